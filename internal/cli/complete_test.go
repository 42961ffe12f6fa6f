package cli

import (
	"slices"
	"strings"
	"testing"
)

// complete runs moat's completion of args (the last one being completed) and returns the
// values offered, without their descriptions.
func complete(t *testing.T, a *app, args ...string) []string {
	t.Helper()
	var out strings.Builder
	env := a.env
	env.Stdout = &out
	if code := Main(append([]string{"__complete"}, args...), env); code != 0 {
		t.Fatalf("__complete %v: exit %d", args, code)
	}
	var values []string
	for _, line := range strings.Split(out.String(), "\n") {
		if line == "" || strings.HasPrefix(line, ":") {
			continue
		}
		v, _, _ := strings.Cut(line, "\t")
		values = append(values, v)
	}
	return values
}

func TestCompletionOfValues(t *testing.T) {
	a, stdout, _, _, project := approvalApp(t)
	// A held Codex call gives the queue an ID, and the log records.
	codexHook(t, a, stdout, project, "cat ~/.ssh/id_rsa")
	for _, tt := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"check", "--agent", ""}, []string{"claude-code", "codex", "aider"}, nil},
		{[]string{"mcp", "scan", "--agent", ""}, []string{"claude-desktop", "cursor"}, []string{"aider"}},
		{[]string{"setup", ""}, []string{"claude-code", "gemini-cli"}, []string{"aider"}},
		{[]string{"hook", ""}, []string{"claude-code", "codex"}, nil},
		{[]string{"packs", "show", ""}, []string{"recommended"}, nil},
		{[]string{"profile", "show", ""}, []string{"claude-code"}, nil},
		{[]string{"launch", "--profile", ""}, []string{"claude-code"}, nil},
		{[]string{"init", "--template", ""}, []string{"recommended", "strict", "permissive"}, nil},
		{[]string{"logs", "--decision", ""}, []string{"allow", "audit", "ask", "deny"}, nil},
		{[]string{"check", "--tool", ""}, []string{"shell", "file.read", "Bash", "read_file"}, nil},
		{[]string{"fix", ""}, []string{"1"}, nil},
		{[]string{"logs", "--seq", ""}, []string{"1"}, nil},
	} {
		got := complete(t, a, tt.args...)
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("moat %s: %v lacks %q", strings.Join(tt.args, " "), got, w)
			}
		}
		for _, n := range tt.not {
			if slices.Contains(got, n) {
				t.Errorf("moat %s: %v offers %q", strings.Join(tt.args, " "), got, n)
			}
		}
	}
	ids := complete(t, a, "approve", "")
	if len(ids) != 1 || len(ids[0]) < 4 {
		t.Fatalf("approve completes %v, want the one pending ID", ids)
	}
	if deny := complete(t, a, "deny", ""); !slices.Equal(deny, ids) {
		t.Errorf("deny completes %v, approve %v", deny, ids)
	}
}
