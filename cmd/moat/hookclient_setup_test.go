package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/selfguard"
)

// linkMoat puts the built moat binary into dir under the name moat (a hard link where the
// file system allows, else a copy), as if it were installed there, and returns its path.
func linkMoat(t *testing.T, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "moat")
	if err := os.Link(moatBinary(t), exe); err == nil {
		return exe
	}
	data, err := os.ReadFile(moatBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// TestSetupInstallsHookClient runs setup as the user would, before and after the hook
// client is installed beside moat, and after it is removed: the hooks run whichever is
// there, re-running setup moves them from one form to the other without adding a second
// hook, Codex trusts the hooks it runs, doctor accepts both forms, and uninstall takes
// either out.
func TestSetupInstallsHookClient(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := linkMoat(t, bin)
	client := selfguard.ClientPath(exe)
	path := bin + ":/usr/bin:/bin"
	writeFiles(t, home, map[string]string{
		".claude/settings.json": "{\n  \"model\": \"opus\"\n}\n",
		".codex/hooks.json":     "{}\n",
	})
	moat := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := runInProcessAs(t, exe, home, []string{"HOME=" + home, "PATH=" + path}, "", args...)
		if code != 0 {
			t.Fatalf("moat %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout + stderr
	}
	settings := func() string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	healthy := func(step string) {
		t.Helper()
		_, status, _ := runDoctor(t, home, path, home)
		for _, id := range []string{"hooks.claude-code", "hooks.codex"} {
			if status[id] != "ok" {
				out, _, _ := inHome(t, home, path, home, "doctor")
				t.Errorf("%s: doctor says %s is %s:\n%s", step, id, status[id], out)
			}
		}
	}
	moatForm, clientForm := `"`+exe+` hook claude-code"`, `"`+client+` claude-code"`

	moat("setup", "claude-code", "codex")
	if s := settings(); strings.Count(s, moatForm) != 3 || strings.Contains(s, "moat-hook") {
		t.Fatalf("without a client, setup wrote:\n%s", s)
	}
	healthy("moat hook")

	// The client is installed beside moat (a harmless stand-in: setup only looks for an
	// executable file; nothing runs it here).
	if err := os.WriteFile(client, []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := moat("setup", "claude-code", "codex")
	if !strings.Contains(out, "made moat's hooks for PreToolUse, PostToolUse, UserPromptSubmit run "+client+" claude-code") {
		t.Errorf("setup over the old form said:\n%s", out)
	}
	if s := settings(); strings.Count(s, clientForm) != 3 || strings.Contains(s, " hook claude-code") || !strings.Contains(s, `"model": "opus"`) {
		t.Fatalf("with a client, setup wrote:\n%s", s)
	}
	status := moat("status")
	if !strings.Contains(status, "moat hooks: PreToolUse, UserPromptSubmit; trusted by codex") {
		t.Errorf("codex does not trust the client's hooks:\n%s", status)
	}
	healthy("moat-hook")
	before := settings()
	if out := moat("setup", "claude-code", "codex"); !strings.Contains(out, "claude-code: moat's hooks are already in") {
		t.Errorf("setup run twice said:\n%s", out)
	}
	if settings() != before {
		t.Errorf("setup run twice changed the settings:\n%s", settings())
	}

	// The client is gone: setup goes back to moat itself.
	if err := os.Remove(client); err != nil {
		t.Fatal(err)
	}
	moat("setup", "claude-code", "codex")
	if s := settings(); strings.Count(s, moatForm) != 3 || strings.Contains(s, "moat-hook") {
		t.Fatalf("after the client was removed, setup wrote:\n%s", s)
	}

	if err := os.WriteFile(client, []byte("#!/bin/sh\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	moat("setup", "claude-code", "codex")
	moat("setup", "--uninstall", "claude-code", "codex")
	if s := settings(); s != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("uninstall left:\n%s", s)
	}
}
