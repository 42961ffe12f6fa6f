package policy

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// OutputAction is what a hook does with a tool's output (a fetched page, a file read, an
// MCP result) that holds something the model should not take at face value.
type OutputAction string

// Output actions.
const (
	// OutputWarn lets the output reach the model with a note saying what it holds.
	OutputWarn OutputAction = "warn"
	// OutputBlock withholds the output where the agent allows it, and tells the model why.
	OutputBlock OutputAction = "block"
	// OutputRedact, for secrets, masks each credential in the output and lets the rest
	// through, where moat carries the output (the MCP proxy); the hooks, which only see
	// an output the agent already holds, warn instead.
	OutputRedact OutputAction = "redact"
)

// outputActions are the actions each kind of finding may take.
var outputActions = map[string][]string{
	"injection": {string(OutputWarn), string(OutputBlock)},
	"secrets":   {string(OutputWarn), string(OutputRedact), string(OutputBlock)},
}

// Output says what happens to tool outputs in which content scanning finds something.
type Output struct {
	Injection OutputAction // text that reads as prompt injection
	Secrets   OutputAction // credentials
}

// DefaultOutput warns the model and keeps the user's data flowing: a false positive on a
// page or a file read costs a note, not the result.
var DefaultOutput = Output{Injection: OutputWarn, Secrets: OutputWarn}

var outputKeys = []string{"injection", "secrets"}

func (l *loader) output(n *yaml.Node) Output {
	out := DefaultOutput
	fields, ok := l.mapping(n, "output", outputKeys)
	if !ok {
		return out
	}
	for _, f := range fields {
		s, ok := l.str(f.value, "output."+f.key)
		if !ok {
			continue
		}
		if actions := outputActions[f.key]; !slices.Contains(actions, s) {
			l.errorf(f.value, "output.%s must be one of %s, not %q%s", f.key, strings.Join(actions, ", "), s, suggest(s, actions))
			continue
		}
		switch f.key {
		case "injection":
			out.Injection = OutputAction(s)
		case "secrets":
			out.Secrets = OutputAction(s)
		}
	}
	return out
}
