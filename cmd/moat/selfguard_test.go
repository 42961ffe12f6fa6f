package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMoatCLISelfProtection installs moat's hooks in a canary HOME, as the user would,
// puts a renamed copy of the moat binary on the PATH, and then sends `moat hook
// claude-code` the Bash calls an agent would make to switch moat off through moat's own
// CLI: every spelling of the flags, a renamed copy, go run of the module, another
// policy through the environment. Each is denied by self-protection, the hook settings
// are left byte for byte as they were and no policy is written; moat's read-only
// commands get no opinion.
func TestMoatCLISelfProtection(t *testing.T) {
	h := newHookRun(t)
	bin := filepath.Join(h.home, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(moatBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	// A copy under another name: moat by its content, not its name.
	if err := os.WriteFile(filepath.Join(bin, "helper"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	h.env = []string{"HOME=" + h.home, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}

	setup := exec.Command(moatBinary(t), "setup", "claude-code")
	setup.Dir, setup.Env = h.project, h.env
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("moat setup: %v\n%s", err, out)
	}
	settings := filepath.Join(h.home, ".claude", "settings.json")
	before, err := os.ReadFile(settings)
	if err != nil || !strings.Contains(string(before), "moat") {
		t.Fatalf("moat setup wrote no hooks: %v\n%s", err, before)
	}

	bash := func(command string) string {
		return `{"session_id":"s","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + jsonString(h.expand(command)) + `}}`
	}
	attacks := []string{
		"moat setup --uninstall=true",
		"moat --uninstall=1 setup claude-code",
		"moat setup claude-code --scope=user --uninstall=t",
		"$HOME/bin/helper setup --uninstall",
		"helper setup --uninstall",
		`cp "$(command -v moat)" $HOME/m && $HOME/m setup --uninstall`,
		"go run github.com/moatdev/moat/cmd/moat@latest setup --uninstall",
		"mkdir sub && cd sub && moat init --template permissive",
		"moat init --template=permissive --force",
		"MOAT_POLICY=$HOME/p.yaml moat run -- ls",
		"moat run --policy=$HOME/p.yaml -- rm -rf build",
		"moat mcp pin --accept=true github",
		"moat trust --revoke moat.yaml",
		"moat fix --last --write",
	}
	for _, command := range attacks {
		stdout, stderr, code := h.run(t, bash(command), "claude-code")
		if code != 0 || !strings.Contains(stdout, `"permissionDecision":"deny"`) || !strings.Contains(stdout, "self-protection.moat-cli") {
			t.Errorf("%s: not denied by self-protection.moat-cli: exit %d\nstdout: %s\nstderr: %s", command, code, stdout, stderr)
		}
	}
	benign := []string{
		"moat check -- ls",
		"moat version",
		// A copy under another name running a harmless command is not identified (that
		// would read the binary for every line): it is an unknown program, asked about,
		// so "helper version --json" is not here.
		"moat logs -n 5",
		"moat trust --list",
		"moat fix --last",
		"moat setup --uninstall --dry-run",
		"go build ./cmd/moat",
	}
	for _, command := range benign {
		stdout, stderr, code := h.run(t, bash(command), "claude-code")
		if code != 0 || stdout != "" {
			t.Errorf("%s: want no opinion, got exit %d\nstdout: %s\nstderr: %s", command, code, stdout, stderr)
		}
	}

	after, err := os.ReadFile(settings)
	if err != nil || string(after) != string(before) {
		t.Errorf("the hook settings changed: %v\n%s", err, after)
	}
	for _, p := range []string{filepath.Join(h.project, "moat.yaml"), filepath.Join(h.project, "sub", "moat.yaml")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}
