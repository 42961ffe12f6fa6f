package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/setup"
)

// fakeClient writes an executable hook client beside the moat at moat and returns its path.
func fakeClient(t *testing.T, moat string) string {
	t.Helper()
	p := selfguard.ClientPath(moat)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHookBinariesClientForm(t *testing.T) {
	ag, _ := setup.ForAgent("claude-code")
	for _, client := range []string{"/usr/local/bin/moat-hook", "/home/u/my tools/moat-hook", "/opt/it's/moat-hook"} {
		text, _, err := ag.Install("", client)
		if err != nil {
			t.Fatal(err)
		}
		got := hookBinaries(text, "claude-code")
		if len(got) != len(ag.Events) || got[0] != client {
			t.Errorf("hookBinaries of the client at %q = %q\n%s", client, got, text)
		}
		if other := hookBinaries(text, "codex"); len(other) != 0 {
			t.Errorf("codex's hooks found in claude-code's: %q", other)
		}
	}
}

// The doctor accepts hooks that run this moat's hook client as it accepts hooks that run
// this moat, and finds a client that is gone or another moat's.
func TestCheckAgentClientForm(t *testing.T) {
	moat := fakeMoat(t)
	client := fakeClient(t, moat)
	otherClient := fakeClient(t, fakeMoat(t))
	ag, _ := setup.ForAgent("claude-code")
	install := func(program string) string {
		text, _, err := ag.Install("", program)
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	tests := []struct {
		name, settings string
		want           Status
		contains       string
	}{
		{"this moat", install(moat), OK, "PreToolUse, PostToolUse, UserPromptSubmit"},
		{"this moat's client", install(client), OK, "PreToolUse, PostToolUse, UserPromptSubmit"},
		{"another moat's client", install(otherClient), Warn, "not the hook client of this moat"},
		{"a client that is gone", install("/nowhere/moat-hook"), Fail, "not an executable file"},
	}
	for _, tt := range tests {
		home := t.TempDir()
		file := filepath.Join(home, ".claude", "settings.json")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(tt.settings), 0o644); err != nil {
			t.Fatal(err)
		}
		f := checkAgent(Inputs{Dirs: dirs.Dirs{Home: home}, Executable: moat}, ag)
		if f.Status != tt.want || !strings.Contains(f.Message, tt.contains) {
			t.Errorf("%s: %s %q; want %s and %q", tt.name, f.Status, f.Message, tt.want, tt.contains)
		}
	}
}
