package agent

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLeaf keeps the registry a leaf: setup, mcp wrap, the path sets and shell analysis
// all read it, and the hook path links it, so it imports nothing but the standard library.
func TestLeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p := strings.Trim(imp.Path.Value, `"`); strings.Contains(p, ".") {
				t.Errorf("%s imports %s: the registry imports only the standard library", name, p)
			}
		}
	}
}

// TestRegistryRows keeps every row of the table well formed: a place says what it is for
// and where, paths are relative to their root, and no two agents share a name or a
// program.
func TestRegistryRows(t *testing.T) {
	names := map[string]bool{}
	programs := map[string]string{}
	for _, a := range All() {
		if a.Name == "" || a.Title == "" {
			t.Errorf("row %+v has no name or title", a)
		}
		if names[a.Name] {
			t.Errorf("two rows are named %s", a.Name)
		}
		names[a.Name] = true
		if len(a.Places) == 0 && len(a.Data) == 0 {
			t.Errorf("%s has no places and no data: nothing of it is known", a.Name)
		}
		if a.Guard > Launched {
			t.Errorf("%s: guard %d is not one", a.Name, a.Guard)
		}
		if a.Guard == Hooked && (a.Dir == "" || len(a.Files(Hooks, Home, "linux")) == 0) {
			t.Errorf("%s is hooked, but the registry lacks its directory or its hook files", a.Name)
		}
		if a.HasProfile() && a.Guard == 0 {
			t.Errorf("%s has a sandbox profile, but policies cannot name it: give it a guard", a.Name)
		}
		for _, d := range a.Data {
			if d == "" || strings.HasPrefix(d, "/") || strings.Contains(d, `\`) || strings.Contains(d, "..") || strings.HasSuffix(d, "/") || strings.ContainsAny(d, "*?[{") {
				t.Errorf("%s: data %q is not a clean path relative to the home", a.Name, d)
			}
		}
		for _, in := range a.Instructions {
			if !strings.HasPrefix(in.Pattern, "**/") || in.Why == "" {
				t.Errorf("%s: instruction file %q is not a pattern for any directory, or does not say why", a.Name, in.Pattern)
			}
		}
		for _, p := range a.Places {
			where := a.Name + ": " + p.Path
			if p.Role < Hooks || p.Role > Settings || p.Root < Home || p.Root > System {
				t.Errorf("%s: role %d or root %d is not one", where, p.Role, p.Root)
			}
			if p.Why == "" {
				t.Errorf("%s does not say why it is there", where)
			}
			if abs := strings.HasPrefix(p.Path, "/"); abs != (p.Root == System) {
				t.Errorf("%s: a system path is absolute and the others are relative", where)
			}
			if strings.Contains(p.Path, `\`) || strings.Contains(p.Path, "..") || strings.HasSuffix(p.Path, "/") {
				t.Errorf("%s: paths are clean and slash separated", where)
			}
		}
		for _, prog := range a.CLI.Programs {
			if other, dup := programs[prog]; dup {
				t.Errorf("program %s is both %s and %s", prog, other, a.Name)
			}
			programs[prog] = a.Name
			if got, ok := ForProgram(prog); !ok || got.Name != a.Name {
				t.Errorf("ForProgram(%s) = %s, %v", prog, got.Name, ok)
			}
		}
		for _, pkg := range a.CLI.Packages {
			if got, ok := ForPackage(pkg + "@latest"); !ok || got.Name != a.Name {
				t.Errorf("ForPackage(%s@latest) = %s, %v", pkg, got.Name, ok)
			}
		}
		for _, o := range a.CLI.Options {
			if len(o.Names) == 0 || o.Why == "" {
				t.Errorf("%s: option %v has no name or no reason", a.Name, o.Names)
			}
			for _, n := range o.Names {
				if got, ok := a.CLI.Option(n); !ok || !slices.Equal(got.Names, o.Names) {
					t.Errorf("%s: Option(%s) does not find it", a.Name, n)
				}
			}
		}
		for _, e := range a.CLI.Env {
			if e.Name == "" || e.Why == "" || e.Name != strings.ToUpper(e.Name) {
				t.Errorf("%s: variable %q has no reason or is not an environment variable's name", a.Name, e.Name)
			}
		}
		for _, w := range a.CLI.Writers {
			if len(w.Words) == 0 || w.Why == "" || !w.Role.Edited() && w.Role != Settings {
				t.Errorf("%s: writer %v is incomplete", a.Name, w.Words)
			}
			if len(a.Files(w.Role, Home, "linux")) == 0 {
				t.Errorf("%s: writer %v writes files of a role the agent has none of", a.Name, w.Words)
			}
		}
	}
}

func TestFiles(t *testing.T) {
	vscode, _ := Lookup("vscode")
	tests := []struct {
		goos string
		want []string
	}{
		{"linux", []string{".config/Code/User/mcp.json"}},
		{"freebsd", []string{".config/Code/User/mcp.json"}},
		{"darwin", []string{"Library/Application Support/Code/User/mcp.json"}},
		{"windows", []string{"AppData/Roaming/Code/User/mcp.json"}},
	}
	for _, tt := range tests {
		if got := vscode.Files(MCP, Home, tt.goos); !slices.Equal(got, tt.want) {
			t.Errorf("vscode user MCP files on %s = %q, want %q", tt.goos, got, tt.want)
		}
	}
	if got := vscode.Files(MCP, Project, "darwin"); !slices.Equal(got, []string{".vscode/mcp.json"}) {
		t.Errorf("vscode project MCP files = %q", got)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup found an agent that is not there")
	}
}

func TestProtected(t *testing.T) {
	got := map[string]bool{}
	for _, p := range Protected() {
		if got[p.Pattern] {
			t.Errorf("%s is listed twice", p.Pattern)
		}
		got[p.Pattern] = true
		if p.Why == "" {
			t.Errorf("%s does not say why", p.Pattern)
		}
	}
	for _, want := range []string{
		"~/.config/Code/User/mcp.json", "~/Library/Application Support/Code/User/mcp.json", "~/AppData/Roaming/Code/User/mcp.json",
		"~/AppData/Roaming/Claude/claude_desktop_config.json", "**/.vscode/mcp.json", "~/.claude.json.moat-backup",
		"**/.mcp.json.moat-backup", "/etc/claude-code/**", "~/.codex/*.config.toml", "~/.cline/hooks/**",
	} {
		if !got[want] {
			t.Errorf("%s is not protected", want)
		}
	}
	// Files moat never rewrites have no backup to protect.
	if got["~/.claude/settings.local.json"+BackupSuffix] || got["/etc/claude-code/**"+BackupSuffix] {
		t.Error("a backup of a file moat does not edit is listed")
	}
}

func TestOptionUnguards(t *testing.T) {
	claude, _ := Lookup("claude-code")
	codex, _ := Lookup("codex")
	tests := []struct {
		cli          CLI
		name, value  string
		known, wants bool
	}{
		{claude.CLI, "bare", "", true, true},
		{claude.CLI, "settingSources", "user", true, true}, // yargs-style spelling, project dropped
		{claude.CLI, "setting-sources", "user,project", true, false},
		{claude.CLI, "setting-sources", " Project , user ,local", true, false},
		{claude.CLI, "setting-sources", "", true, true},
		{claude.CLI, "setting-sources", "$SOURCES", false, true},
		{codex.CLI, "c", "features.hooks=false", true, true},
		{codex.CLI, "config", `mcp_servers.x.command="sh"`, true, true},
		{codex.CLI, "c", "hooks.PreToolUse=[]", true, true},
		{codex.CLI, "c", `notify=["sh","-c","id"]`, true, true},
		{codex.CLI, "c", `model="o3"`, true, false},
		{codex.CLI, "c", "features.web_search=true", true, false},
		{codex.CLI, "disable", "hooks", true, true},
		{codex.CLI, "disable", "web_search", true, false},
		{codex.CLI, "profile", "work", true, false},
		{codex.CLI, "p", "../../tmp/evil", true, true},
	}
	for _, tt := range tests {
		o, ok := tt.cli.Option(tt.name)
		if !ok {
			t.Errorf("%s is not an option of %v", tt.name, tt.cli.Programs)
			continue
		}
		if got := o.Unguards(tt.value, tt.known); got != tt.wants {
			t.Errorf("%v --%s %q: Unguards = %v, want %v", tt.cli.Programs, tt.name, tt.value, got, tt.wants)
		}
	}
	// Short options keep their case: Codex's -C is --cd, not --config.
	if _, ok := codex.CLI.Option("C"); ok {
		t.Error("codex -C was taken for -c")
	}
	if _, ok := claude.CLI.Option("dangerously-skip-permissions"); ok {
		t.Error("--dangerously-skip-permissions keeps hooks running: it is not a finding")
	}
}

func TestEnvMoves(t *testing.T) {
	claude, _ := Lookup("claude-code")
	gemini, _ := Lookup("gemini-cli")
	const home = "/home/u"
	tests := []struct {
		cli         CLI
		name, value string
		known, want bool
	}{
		{claude.CLI, "HOME", "/home/u", true, false},
		{claude.CLI, "HOME", "/home/u/", true, false},
		{claude.CLI, "HOME", "/tmp/h", true, true},
		{claude.CLI, "HOME", "$(mktemp -d)", false, true},
		{claude.CLI, "XDG_CONFIG_HOME", "/home/u/.config", true, false},
		{claude.CLI, "XDG_CONFIG_HOME", "/tmp/x", true, true},
		{claude.CLI, "CLAUDE_CONFIG_DIR", "/home/u/.claude", true, false},
		{claude.CLI, "CLAUDE_CONFIG_DIR", "/tmp/c", true, true},
		{claude.CLI, "CLAUDE_CONFIG_DIR", "rel", true, true},
		{claude.CLI, "CLAUDE_CODE_SIMPLE", "1", true, true},
		{claude.CLI, "CLAUDE_CODE_SIMPLE", "TRUE", true, true},
		{claude.CLI, "CLAUDE_CODE_SIMPLE", "0", true, false},
		{claude.CLI, "CLAUDE_CODE_SIMPLE", "", true, false},
		{claude.CLI, "CLAUDE_CODE_PERSONAL_HOOKS_OFF", "none", true, false},
		{claude.CLI, "CLAUDE_CODE_PERSONAL_HOOKS_OFF", "retry", true, true},
		{claude.CLI, "CLAUDE_CODE_MANAGED_SETTINGS_PATH", "", true, true},
		{gemini.CLI, "GEMINI_CLI_TRUST_WORKSPACE", "false", true, true},
		{gemini.CLI, "GEMINI_CLI_TRUST_WORKSPACE", "true", true, false},
		{gemini.CLI, "GEMINI_CLI_HOME", "/tmp/g", true, true},
	}
	for _, tt := range tests {
		e, ok := tt.cli.Variable(tt.name)
		if !ok {
			t.Errorf("%s is not a variable of %v", tt.name, tt.cli.Programs)
			continue
		}
		if got := e.Moves(tt.value, tt.known, home); got != tt.want {
			t.Errorf("%v %s=%q: Moves = %v, want %v", tt.cli.Programs, tt.name, tt.value, got, tt.want)
		}
	}
	if _, ok := claude.CLI.Variable("ANTHROPIC_MODEL"); ok {
		t.Error("an ordinary variable was taken for one that moves the configuration")
	}
}

func TestWriterMatches(t *testing.T) {
	claude, _ := Lookup("claude-code")
	w := claude.CLI.Writers[0]
	for args, want := range map[string]bool{
		"mcp add github -- npx x": true,
		"--debug mcp remove x":    true,
		"mcp list":                false,
		"-p mcp":                  false,
		"-p mcp add":              true, // odd, and matched: the words are there
	} {
		if got := w.Matches(strings.Fields(args)); got != want {
			t.Errorf("claude %s: Matches = %v, want %v", args, got, want)
		}
	}
}

// TestGuarded keeps the order policies and messages list the agents in: hooked agents
// first, then those guarded without hooks; MCP-only clients are not agents of calls.
func TestGuarded(t *testing.T) {
	var got []string
	for _, a := range Guarded() {
		got = append(got, a.Name)
	}
	want := []string{"claude-code", "cursor", "windsurf", "gemini-cli", "codex", "aider", "cline", "continue", "cursor-agent", "openclaw", "swe-agent"}
	if !slices.Equal(got, want) {
		t.Errorf("Guarded = %q, want %q", got, want)
	}
}

func TestInstructions(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Instructions() {
		if seen[p.Pattern] {
			t.Errorf("%s is listed twice", p.Pattern)
		}
		seen[p.Pattern] = true
	}
	for _, want := range []string{"**/CLAUDE.md", "**/AGENTS.md", "**/GEMINI.md", "**/.cursorrules", "**/.windsurfrules", "**/.clinerules", "**/.github/copilot-instructions.md"} {
		if !seen[want] {
			t.Errorf("%s is not an instruction file", want)
		}
	}
}
