package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/setup"
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
		stdout, stderr, code := runInProcess(t, project, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", args...)
		if code != 0 {
			t.Fatalf("moat %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout + stderr
	}
	// backup is where setup keeps the copy of a file in the home, relative to the home.
	backup := func(name string) string {
		rel, err := filepath.Rel(home, setup.BackupPath(filepath.Join(home, ".local/state/moat"), filepath.Join(home, name)))
		if err != nil {
			t.Fatal(err)
		}
		return rel
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
	if !strings.Contains(dry, "would add moat's hooks") || !strings.Contains(dry, "\n+") {
		t.Errorf("--dry-run shows no diff:\n%s", dry)
	}

	moat("setup")
	bin := moatBinary(t)
	for name, text := range files {
		got := read(name)
		// The hooks run moat, or the hook client when a test has built it beside moat.
		if !strings.Contains(got, bin+" hook ") && !strings.Contains(got, selfguard.ClientPath(bin)+" ") {
			t.Errorf("%s has no moat hook:\n%s", name, got)
		}
		if read(backup(name)) != text {
			t.Errorf("%s: the backup is not the original", name)
		}
		if _, err := os.Stat(filepath.Join(home, name+".moat-backup")); err == nil {
			t.Errorf("%s: a backup was left beside the file", name)
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
	// Codex runs only trusted hooks: setup recorded the trust Codex's review would.
	trust := read(".codex/config.toml")
	hooks, err := setup.CodexHooks(filepath.Join(home, ".codex/hooks.json"), read(".codex/hooks.json"))
	if err != nil || len(hooks) != 2 {
		t.Fatalf("codex hooks: %v, %v", hooks, err)
	}
	for _, h := range hooks {
		if !strings.Contains(trust, `[hooks.state."`+h.Key+`"]`+"\ntrusted_hash = \""+h.Hash+`"`) {
			t.Errorf("config.toml does not trust %s:\n%s", h.Key, trust)
		}
	}
	second := moat("setup")
	if strings.Contains(second, "added") || strings.Contains(second, "recorded") || read(".codex/config.toml") != trust {
		t.Errorf("a second setup changed something:\n%s", second)
	}

	var status struct {
		Agents []struct {
			Agent    string `json:"agent"`
			Settings []struct {
				Scope string            `json:"scope"`
				Hooks map[string]bool   `json:"hooks"`
				Trust map[string]string `json:"trust"`
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
				if a.Agent == "codex" && on && s.Trust[ev] != "trusted" {
					t.Errorf("status: codex %s %s is %q, want trusted", s.Scope, ev, s.Trust[ev])
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
	// config.toml held only the trust setup recorded, in a file setup created.
	if _, err := os.Stat(filepath.Join(home, ".codex/config.toml")); err == nil {
		t.Errorf("--uninstall left ~/.codex/config.toml:\n%s", read(".codex/config.toml"))
	}

	// The project's settings are shared: they name moat, not this machine's path, and
	// no backup is left in the repository.
	moat("setup", "claude-code", "codex", "--scope", "project")
	moat("setup", "claude-code", "codex", "--scope", "project")
	for _, name := range []string{"project/.claude/settings.json", "project/.codex/hooks.json"} {
		got := read(name)
		if strings.Contains(got, bin) || !strings.Contains(got, `"moat hook `) {
			t.Errorf("project settings name this machine's moat:\n%s", got)
		}
		if _, err := os.Stat(filepath.Join(home, name+".moat-backup")); err == nil {
			t.Errorf("a backup of %s was left in the repository", name)
		}
	}
	hooks, err = setup.CodexHooks(filepath.Join(project, ".codex/hooks.json"), read("project/.codex/hooks.json"))
	if err != nil || len(hooks) != 2 || !strings.Contains(read(".codex/config.toml"), hooks[0].Key) {
		t.Errorf("project hooks %v (%v) not trusted in:\n%s", hooks, err, read(".codex/config.toml"))
	}
}

// TestSetupMovedMoat runs setup with one moat binary, then with a copy of it elsewhere:
// the hooks then run the second, and Codex's trust follows them, so that Codex still runs
// moat's hooks (a changed command is untrusted to Codex until its hash is recorded).
func TestSetupMovedMoat(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".codex"), 0o755)
	user := "model = \"o3\" # the user's\n\n[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\nenabled = false\n"
	os.WriteFile(filepath.Join(home, ".codex/config.toml"), []byte(user), 0o600)
	other := filepath.Join(home, "opt", "moat")
	os.MkdirAll(filepath.Dir(other), 0o755)
	data, err := os.ReadFile(moatBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// run runs moat in process as if started from bin.
	run := func(bin string, args ...string) string {
		t.Helper()
		stdout, stderr, code := runInProcessAs(t, bin, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", args...)
		if code != 0 {
			t.Fatalf("%s %v: exit %d\n%s%s", bin, args, code, stdout, stderr)
		}
		return stdout + stderr
	}
	trusted := func(bin string) string {
		t.Helper()
		text, _ := os.ReadFile(filepath.Join(home, ".codex/hooks.json"))
		cfg, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml"))
		codex, _ := setup.ForAgent("codex")
		// moat hook, or the hook client when a test has built it beside bin.
		if !strings.Contains(string(text), `"`+codex.Command(setup.HookProgram(bin))+`"`) {
			t.Errorf("the hooks do not run %s:\n%s", bin, text)
		}
		trust, err := codex.HookTrust(filepath.Join(home, ".codex/hooks.json"), string(text), string(cfg))
		if err != nil || len(trust) != 2 || trust["PreToolUse"] != setup.Trusted || trust["UserPromptSubmit"] != setup.Trusted {
			t.Errorf("after setup with %s: trust %v, %v\n%s", bin, trust, err, cfg)
		}
		if !strings.HasPrefix(string(cfg), user) {
			t.Errorf("the user's config.toml was changed:\n%s", cfg)
		}
		return string(cfg)
	}
	run(moatBinary(t), "setup", "codex")
	first := trusted(moatBinary(t))
	out := run(other, "setup", "codex")
	if !strings.Contains(out, "run "+other+" hook codex") {
		t.Errorf("setup did not say the hooks now run %s:\n%s", other, out)
	}
	if second := trusted(other); second == first {
		t.Errorf("the trusted hashes did not change")
	}
	run(other, "setup", "--uninstall", "codex")
	if cfg, _ := os.ReadFile(filepath.Join(home, ".codex/config.toml")); string(cfg) != user {
		t.Errorf("--uninstall did not give config.toml back:\n%s\nwant:\n%s", cfg, user)
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
		stdout, stderr, code := runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", tc.args...)
		if code == 0 || !strings.Contains(stdout+stderr, tc.want) {
			t.Errorf("moat %v: exit %d\n%s%s", tc.args, code, stdout, stderr)
		}
	}
	// A settings file moat cannot read is left alone, and the run fails.
	p := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("{ not json"), 0o644)
	stdout, stderr, code := runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", "setup", "claude-code")
	if b, _ := os.ReadFile(p); code == 0 || string(b) != "{ not json" || !strings.Contains(stdout+stderr, "left as it is") {
		t.Errorf("broken settings: exit %d\n%s%s", code, stdout, stderr)
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
	if stdout, stderr, code := runInProcess(t, home, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, "", "setup", "claude-code"); code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the settings link was replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(dotfiles); !strings.Contains(string(b), "hook claude-code") {
		t.Errorf("the linked file was not edited:\n%s", b)
	}
}

// TestCodexTrustWithRealCodex runs `moat setup codex`, in the user's and a project's
// settings, on a throwaway HOME, then asks the real Codex which hooks it will run: `codex
// app-server` answers hooks/list (JSON-RPC over stdio) with each hook's key, its current
// hash and whether it is trusted. moat's hooks must be trusted, and listed under the key
// and hash moat computed; the user's own hook, placed before moat's so that the indexes
// in the keys count it, must stay untrusted. It runs when MOAT_TEST_AGENT_CLIS names a
// directory holding node_modules/.bin/codex (npm install @openai/codex).
func TestCodexTrustWithRealCodex(t *testing.T) {
	dir := os.Getenv("MOAT_TEST_AGENT_CLIS")
	if dir == "" {
		t.Skip("MOAT_TEST_AGENT_CLIS is not set: no real Codex to ask")
	}
	codex := filepath.Join(dir, "node_modules", ".bin", "codex")
	if _, err := os.Stat(codex); err != nil {
		t.Skipf("MOAT_TEST_AGENT_CLIS=%s holds no node_modules/.bin/codex: %v", dir, err)
	}
	home := t.TempDir()
	project := filepath.Join(home, "src", "app")
	userHook := `{"type": "command", "command": "/opt/lint"}`
	writeFiles(t, home, map[string]string{
		".codex/hooks.json":      `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + userHook + `]}]}}` + "\n",
		".codex/config.toml":     "# mine\n[projects." + jsoncQuote(project) + "]\ntrust_level = \"trusted\"\n",
		"src/app/.git/HEAD":      "ref: refs/heads/main\n",
		"src/app/.codex/.keep":   "",
		"src/app/README.md":      "app\n",
		".config/moat/moat.yaml": "version: 1\ndefault: allow\n",
	})
	for _, args := range [][]string{{"setup", "codex"}, {"setup", "codex", "--scope", "project"}} {
		if out, stderr, code := inHome(t, home, os.Getenv("PATH"), project, args...); code != 0 {
			t.Fatalf("moat %v: exit %d\n%s%s", args, code, out, stderr)
		}
	}
	var want []setup.CodexHook
	for _, file := range []string{filepath.Join(home, ".codex/hooks.json"), filepath.Join(project, ".codex/hooks.json")} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		hooks, err := setup.CodexHooks(file, string(text))
		if err != nil || len(hooks) != 2 {
			t.Fatalf("%s: moat's hooks %v, %v", file, hooks, err)
		}
		want = append(want, hooks...)
	}

	listed := codexHooksList(t, codex, home, project)
	byKey := map[string]codexListedHook{}
	for _, h := range listed {
		byKey[h.Key] = h
	}
	for _, w := range want {
		got, ok := byKey[w.Key]
		switch {
		case !ok:
			t.Errorf("codex does not list %s; it lists %+v", w.Key, listed)
		case got.CurrentHash != w.Hash:
			t.Errorf("%s: codex's hash %s, moat's %s", w.Key, got.CurrentHash, w.Hash)
		case got.TrustStatus != "trusted":
			t.Errorf("%s: codex says %s, want trusted", w.Key, got.TrustStatus)
		}
	}
	user := filepath.Join(home, ".codex/hooks.json") + ":pre_tool_use:0:0"
	if h := byKey[user]; h.Command != "/opt/lint" || h.TrustStatus != "untrusted" {
		t.Errorf("the user's own hook %s: %+v, want listed and untrusted", user, h)
	}
}

type codexListedHook struct {
	Key         string `json:"key"`
	Command     string `json:"command"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
}

// codexHooksList asks `codex app-server`, with HOME as home, for the hooks that apply in
// cwd.
func codexHooksList(t *testing.T, codex, home, cwd string) []codexListedHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = cwd
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	for _, msg := range []string{
		`{"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "moat-test", "version": "0"}}}`,
		`{"method": "initialized"}`,
		`{"id": 2, "method": "hooks/list", "params": {"cwds": [` + jsoncQuote(cwd) + `]}}`,
	} {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("writing to codex app-server: %v\n%s", err, stderr.String())
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var resp struct {
			ID     *int            `json:"id"`
			Error  json.RawMessage `json:"error"`
			Result struct {
				Data []struct {
					Hooks    []codexListedHook `json:"hooks"`
					Warnings []string          `json:"warnings"`
				} `json:"data"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &resp) != nil || resp.ID == nil || *resp.ID != 2 {
			continue
		}
		if resp.Error != nil {
			t.Fatalf("hooks/list: %s", resp.Error)
		}
		var out []codexListedHook
		for _, d := range resp.Result.Data {
			if len(d.Warnings) > 0 {
				t.Logf("codex warns: %q", d.Warnings)
			}
			out = append(out, d.Hooks...)
		}
		return out
	}
	t.Fatalf("codex app-server gave no answer to hooks/list (%v)\n%s", sc.Err(), stderr.String())
	return nil
}

func jsoncQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
