package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupAndUninstall runs `moat setup` and `moat setup --uninstall` on a HOME where
// every agent already has settings of its own (other hooks, comments where the format
// allows them), and checks that moat's hooks go in, that everything else survives byte
// for byte, that a second run changes nothing, that status sees the hooks, and that
// uninstalling gives the files back exactly.
func TestSetupAndUninstall(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	files := map[string]string{
		".claude/settings.json":        "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]\n  }\n}\n",
		".cursor/hooks.json":           "{\n\t\"version\": 1,\n\t\"hooks\": {\"afterFileEdit\": [{\"command\": \"./fmt.sh\"}]}\n}\n",
		".codeium/windsurf/hooks.json": "{\"hooks\": {\"post_write_code\": [{\"command\": \"echo ok\"}]}}\n",
		".gemini/settings.json":        "{\n  // my theme\n  \"theme\": \"dark\"\n}\n",
		".codex/hooks.json":            "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/opt/check\"}]}\n    ]\n  }\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	moat := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(moatBinary(t), args...)
		cmd.Dir = project
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("moat %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(home, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	dry := moat("setup", "--dry-run")
	for name, text := range files {
		if read(name) != text {
			t.Errorf("--dry-run changed %s", name)
		}
	}
	if !strings.Contains(dry, "would add moat's hooks") || !strings.Contains(dry, "+ ") {
		t.Errorf("--dry-run shows no diff:\n%s", dry)
	}

	moat("setup")
	bin := moatBinary(t)
	for name, text := range files {
		got := read(name)
		if !strings.Contains(got, bin+" hook ") {
			t.Errorf("%s has no moat hook:\n%s", name, got)
		}
		if read(name+".moat-backup") != text {
			t.Errorf("%s: the backup is not the original", name)
		}
		// The user's own settings are still there (uninstalling below checks every byte).
		for _, keep := range []string{"say done", "opus", "./fmt.sh", `"version": 1`, "echo ok", "// my theme", "dark", "/opt/check"} {
			if strings.Contains(text, keep) && !strings.Contains(got, keep) {
				t.Errorf("%s lost %q:\n%s", name, keep, got)
			}
		}
		if name != ".gemini/settings.json" && !json.Valid([]byte(got)) {
			t.Errorf("%s is not valid JSON after setup:\n%s", name, got)
		}
	}
	second := moat("setup")
	if strings.Contains(second, "added") {
		t.Errorf("a second setup changed something:\n%s", second)
	}

	var status struct {
		Agents []struct {
			Agent    string `json:"agent"`
			Settings []struct {
				Scope string          `json:"scope"`
				Hooks map[string]bool `json:"hooks"`
			} `json:"settings"`
		} `json:"agents"`
	}
	if err := json.Unmarshal([]byte(moat("status", "--json")), &status); err != nil {
		t.Fatal(err)
	}
	for _, a := range status.Agents {
		for _, s := range a.Settings {
			for ev, on := range s.Hooks {
				if on != (s.Scope == "user") {
					t.Errorf("status: %s %s %s = %v", a.Agent, s.Scope, ev, on)
				}
			}
		}
	}

	moat("setup", "--uninstall")
	for name, text := range files {
		if got := read(name); got != text {
			t.Errorf("%s after --uninstall:\n%s\nwant:\n%s", name, got, text)
		}
	}

	moat("setup", "claude-code", "--scope", "project")
	if got := read("project/.claude/settings.json"); !strings.Contains(got, bin+" hook claude-code") {
		t.Errorf("project settings:\n%s", got)
	}
}

func TestSetupErrors(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"setup"}, "no agent found"},
		{[]string{"setup", "vim"}, `unknown agent "vim"`},
		{[]string{"setup", "--all", "codex"}, "not both"},
		{[]string{"setup", "--scope", "team", "codex"}, "--scope must be user or project"},
	} {
		cmd := exec.Command(moatBinary(t), tc.args...)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("moat %v: %v\n%s", tc.args, err, out)
		}
	}
	// A settings file moat cannot read is left alone, and the run fails.
	p := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{ not json"), 0o644)
	cmd := exec.Command(moatBinary(t), "setup", "claude-code")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if b, _ := os.ReadFile(p); err == nil || string(b) != "{ not json" || !strings.Contains(string(out), "left as it is") {
		t.Errorf("broken settings: %v\n%s", err, out)
	}
}

// TestSetupKeepsLinkedSettings checks that a settings file that is a symbolic link (a
// dotfiles repository) is edited where it lives and stays a link.
func TestSetupKeepsLinkedSettings(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(home, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(dotfiles), 0o755)
	os.WriteFile(dotfiles, []byte("{\"model\": \"opus\"}\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
	link := filepath.Join(home, ".claude", "settings.json")
	if err := os.Symlink(dotfiles, link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(moatBinary(t), "setup", "claude-code")
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the settings link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(dotfiles); !strings.Contains(string(b), "hook claude-code") {
		t.Errorf("the linked file was not edited:\n%s", b)
	}
}
