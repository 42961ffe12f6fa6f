package main

import (
	"strings"
	"testing"
)

// TestExitCodes checks the README's one table of exit codes across commands: a number
// means the same in every command that uses it.
func TestExitCodes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		// 0: done, allowed.
		{[]string{"check", "--", "ls"}, 0},
		{[]string{"version"}, 0},
		{[]string{"--version"}, 0},
		// 2 and 3: ask and deny.
		{[]string{"check", "--tool", "Read", "--", "~/.ssh/id_rsa"}, 2},
		{[]string{"check", "--", "rm -rf ~"}, 3},
		// 64: the command line is wrong, in every command.
		{[]string{"frobnicate"}, 64},
		{[]string{"check", "--frobnicate", "--", "ls"}, 64},
		{[]string{"check", "--agent", "claude-cod", "--", "ls"}, 64},
		{[]string{"check", "--tool", "Bsh", "--", "ls"}, 64},
		{[]string{"logs", "--since", "last week"}, 64},
		{[]string{"logs", "--decision", "block"}, 64},
		{[]string{"report", "--format", "pdf"}, 64},
		{[]string{"report", "--since", "last week"}, 64},
		{[]string{"approve"}, 64},
		{[]string{"approve", "3f2a", "--once", "--session"}, 64},
		{[]string{"fix", "1", "--to", "maybe"}, 64},
		{[]string{"packs", "show", "recomended"}, 64},
		{[]string{"profile", "show", "claud-code"}, 64},
		{[]string{"setup", "cursr", "--dry-run"}, 64},
		{[]string{"init", "--template", "strickt"}, 64},
		{[]string{"run"}, 64},
		{[]string{"validate", "a.yaml", "b.yaml"}, 64},
		// 1: moat could not do what was asked.
		{[]string{"validate", "missing.yaml"}, 1},
		{[]string{"approve", "3f2a"}, 1},
		// hook speaks the agents' protocol: 2 blocks, also for a broken invocation.
		{[]string{"hook", "claude-cod"}, 2},
		{[]string{"hook", "claude-code", "--frobnicate"}, 2},
	} {
		_, stderr, code := runMoat(t, nil, tt.args...)
		if code != tt.want {
			t.Errorf("moat %s: exit %d, want %d\n%s", strings.Join(tt.args, " "), code, tt.want, stderr)
		}
	}
}
