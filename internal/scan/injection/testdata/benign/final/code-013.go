package prompt

import (
	"fmt"
	"strings"
	"text/template"
)

const systemTmpl = `You are a code review assistant for the {{.Repo}} repository.
Review only the diff you are given. Point out bugs, missing tests and unclear
names. Do not comment on formatting; gofmt handles that.
{{if .Strict}}Treat any unchecked error as a blocking issue.{{end}}`

var sys = template.Must(template.New("system").Parse(systemTmpl))

// Options controls the generated system prompt.
type Options struct {
	Repo   string
	Strict bool
}

// System renders the system prompt for a review request.
func System(o Options) (string, error) {
	var b strings.Builder
	if err := sys.Execute(&b, o); err != nil {
		return "", fmt.Errorf("render system prompt: %w", err)
	}
	return b.String(), nil
}

// User wraps a unified diff so the model can tell where it starts and ends.
func User(diff string) string {
	return "Here is the diff to review:\n\n```diff\n" + strings.TrimSpace(diff) + "\n```"
}
