package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/selfguard"
)

const clientBin = "/usr/local/bin/moat-hook"

func TestCommandForms(t *testing.T) {
	a, _ := ForAgent("claude-code")
	for _, tc := range []struct{ program, want string }{
		{"/usr/local/bin/moat", "/usr/local/bin/moat hook claude-code"},
		{"moat", "moat hook claude-code"},
		{clientBin, clientBin + " claude-code"},
		{`C:\moat\moat-hook.exe`, `'C:\moat\moat-hook.exe' claude-code`},
		{"/Users/Jane Doe/bin/moat-hook", `'/Users/Jane Doe/bin/moat-hook' claude-code`},
		// Only the client's own name makes the client form.
		{"/usr/local/bin/moat-hooks", "/usr/local/bin/moat-hooks hook claude-code"},
	} {
		got := a.Command(tc.program)
		if got != tc.want {
			t.Errorf("Command(%q) = %q, want %q", tc.program, got, tc.want)
		}
		if !isMoatCommand(got, "claude-code") {
			t.Errorf("isMoatCommand(%q) = false", got)
		}
		if isMoatCommand(got, "codex") {
			t.Errorf("isMoatCommand(%q, codex) = true", got)
		}
	}
}

func TestIsMoatCommandRefusesLookalikes(t *testing.T) {
	for _, command := range []string{
		"/opt/moat-hook-wrapper claude-code",
		"/usr/bin/env /usr/local/bin/moat-hook claude-code",
		"/usr/local/bin/moat-hook codex",
		"/usr/local/bin/moat-hook claude-code --debug",
		"moat-hook",
	} {
		if isMoatCommand(command, "claude-code") {
			t.Errorf("isMoatCommand(%q) = true", command)
		}
	}
}

// Every agent's settings take the client form as they take moat's own: installed,
// recognised, idempotent, upgraded from one form to the other and back, and removed.
func TestClientFormRoundTrip(t *testing.T) {
	for _, a := range Agents {
		for i, before := range settings[string(a.Agent)] {
			withMoat, _, err := a.Install(before, moatBin)
			if err != nil {
				t.Fatal(err)
			}
			withClient, added, err := a.Install(before, clientBin)
			if err != nil {
				t.Fatalf("%s #%d: install: %v", a.Agent, i, err)
			}
			if !slices.Equal(added, a.Events) {
				t.Errorf("%s #%d: added %v, want %v", a.Agent, i, added, a.Events)
			}
			if !strings.Contains(withClient, `"`+clientBin+` `+string(a.Agent)+`"`) || strings.Contains(withClient, " hook ") {
				t.Errorf("%s #%d: not the client's command:\n%s", a.Agent, i, withClient)
			}
			if got, err := a.Installed(withClient); err != nil || len(got) != len(a.Events) {
				t.Errorf("%s #%d: Installed = %v, %v", a.Agent, i, got, err)
			}
			if again, added, err := a.Install(withClient, clientBin); err != nil || again != withClient || len(added) != 0 {
				t.Errorf("%s #%d: installing twice changed the file (added %v, %v)", a.Agent, i, added, err)
			}
			// Setup run again with the other program: nothing added, every command moved.
			for _, step := range []struct{ from, program, want string }{
				{withMoat, clientBin, withClient},
				{withClient, moatBin, withMoat},
			} {
				text, added, err := a.Install(step.from, step.program)
				if err != nil || len(added) != 0 {
					t.Fatalf("%s #%d: install over the other form added %v (%v)", a.Agent, i, added, err)
				}
				text, moved, err := a.Retarget(text, step.program)
				if err != nil || text != step.want || !slices.Equal(moved, a.Events) {
					t.Errorf("%s #%d: retarget to %s moved %v (%v):\n%s\nwant\n%s", a.Agent, i, step.program, moved, err, text, step.want)
				}
			}
			after, removed, err := a.Uninstall(withClient)
			if err != nil || !slices.Equal(removed, a.Events) {
				t.Errorf("%s #%d: uninstall removed %v (%v)", a.Agent, i, removed, err)
			}
			if plain, _, _ := a.Uninstall(withMoat); after != plain {
				t.Errorf("%s #%d: uninstalling the client form left\n%s\nnot\n%s", a.Agent, i, after, plain)
			}
		}
	}
}

func TestCodexTrustsClientHooks(t *testing.T) {
	a, _ := ForAgent("codex")
	text, _, err := a.Install("", clientBin)
	if err != nil {
		t.Fatal(err)
	}
	hooks, err := CodexHooks("/home/u/.codex/hooks.json", text)
	if err != nil || len(hooks) != len(a.Events) {
		t.Fatalf("CodexHooks found %d hooks (%v), want %d", len(hooks), err, len(a.Events))
	}
}

func TestHookProgram(t *testing.T) {
	dir := t.TempDir()
	moat := filepath.Join(dir, "moat")
	client := selfguard.ClientPath(moat)
	if client != filepath.Join(dir, "moat-hook") {
		t.Fatalf("ClientPath = %q", client)
	}
	if got := selfguard.ClientPath(`C:\bin\moat.exe`); !strings.HasSuffix(got, "moat-hook.exe") {
		t.Errorf("selfguard.ClientPath(moat.exe) = %q", got)
	}
	if got := HookProgram(moat); got != moat {
		t.Errorf("with no client, HookProgram = %q", got)
	}
	if err := os.Mkdir(client, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := HookProgram(moat); got != moat {
		t.Errorf("with a directory for a client, HookProgram = %q", got)
	}
	os.Remove(client)
	if runtime.GOOS != "windows" {
		if err := os.WriteFile(client, []byte("#!/bin/sh\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := HookProgram(moat); got != moat {
			t.Errorf("with a client that is not executable, HookProgram = %q", got)
		}
	}
	if err := os.WriteFile(client, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(client, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := HookProgram(moat); got != client {
		t.Errorf("with the client, HookProgram = %q", got)
	}
}
