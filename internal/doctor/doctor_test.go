package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/mcpconfig"
	"github.com/moatdev/moat/internal/setup"
)

// fakeMoat writes an executable file called moat in a new directory and returns its path.
func fakeMoat(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "moat")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckBinary(t *testing.T) {
	self, other := fakeMoat(t), fakeMoat(t)
	link := filepath.Join(t.TempDir(), "moat")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		found    string
		version  string
		want     Status
		contains string
	}{
		{"not on PATH", "", "", Warn, "no moat is on PATH"},
		{"itself", self, "", OK, "the moat on PATH"},
		{"itself through a link", link, "", OK, "the moat on PATH"},
		{"another copy, same version", other, "v1.0.0", OK, "another copy of the same version"},
		{"another version", other, "v0.9.0", Warn, "is version v0.9.0, but this moat"},
	}
	for _, tt := range tests {
		in := Inputs{Executable: self, Version: "v1.0.0",
			LookPath: func(string) (string, error) {
				if tt.found == "" {
					return "", errors.New("not found")
				}
				return tt.found, nil
			},
			VersionOf: func(string) (string, error) { return tt.version, nil },
		}
		f := checkBinary(in)
		if f.Status != tt.want || !strings.Contains(f.Message, tt.contains) {
			t.Errorf("%s: %s %q; want %s and %q", tt.name, f.Status, f.Message, tt.want, tt.contains)
		}
		if f.Status != OK && f.Fix == "" {
			t.Errorf("%s: no fix", tt.name)
		}
	}
}

func TestCheckPolicy(t *testing.T) {
	home := t.TempDir()
	d := dirs.Dirs{Home: home, Config: filepath.Join(home, ".config/moat"), State: filepath.Join(home, ".local/state/moat")}
	tests := []struct {
		name   string
		info   PolicyInfo
		err    error
		userOK bool
		want   []Status
	}{
		{"embedded", PolicyInfo{Name: "embedded:recommended", Kind: "embedded", Rules: 33}, nil, true, []Status{OK}},
		{"project", PolicyInfo{Name: "/p/moat.yaml", Kind: "project", Path: "/p/moat.yaml"}, nil, true, []Status{OK, OK}},
		{"untrusted project", PolicyInfo{Name: "embedded:recommended", Kind: "embedded", Warnings: []string{"not trusted"}}, nil, true, []Status{Warn, OK}},
		{"invalid", PolicyInfo{Path: "/p/moat.yaml"}, errors.New("bad"), true, []Status{Fail, OK}},
		{"invalid user policy elsewhere", PolicyInfo{Name: "/p/moat.yaml", Kind: "project", Path: "/p/moat.yaml"}, nil, false, []Status{OK, Fail}},
	}
	for _, tt := range tests {
		// The user's policy exists except in the first case.
		os.RemoveAll(d.Config)
		if tt.name != "embedded" {
			if err := os.MkdirAll(d.Config, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(d.UserPolicy(), []byte("version: 1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		in := Inputs{Dirs: d, Cwd: "/p",
			Policy: func() (PolicyInfo, error) { return tt.info, tt.err },
			Validate: func(string) error {
				if tt.userOK {
					return nil
				}
				return errors.New("bad")
			},
		}
		var got []Status
		for _, f := range checkPolicy(in) {
			got = append(got, f.Status)
			if f.Status != OK && f.Fix == "" {
				t.Errorf("%s: %s without a fix", tt.name, f.ID)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCheckLandlock(t *testing.T) {
	tests := []struct {
		goos string
		abi  int
		err  error
		want Status
	}{
		{"darwin", 0, nil, Warn},
		{"linux", 0, errors.New("no landlock"), Warn},
		{"linux", 3, nil, Warn},
		{"linux", 4, nil, OK},
		{"linux", 7, nil, OK},
	}
	for _, tt := range tests {
		f := checkLandlock(Inputs{GOOS: tt.goos, LandlockABI: func() (int, error) { return tt.abi, tt.err }})
		if f.Status != tt.want {
			t.Errorf("%s ABI %d %v: %s (%s), want %s", tt.goos, tt.abi, tt.err, f.Status, f.Message, tt.want)
		}
	}
}

func TestHookBinaries(t *testing.T) {
	ag, _ := setup.ForAgent("claude-code")
	for _, moat := range []string{"/usr/local/bin/moat", "/home/u/my tools/moat", "/opt/it's/moat"} {
		text, _, err := ag.Install("", moat)
		if err != nil {
			t.Fatal(err)
		}
		got := hookBinaries(text, "claude-code")
		if len(got) != len(ag.Events) || got[0] != moat {
			t.Errorf("hookBinaries of moat at %q = %q\n%s", moat, got, text)
		}
		if other := hookBinaries(text, "codex"); len(other) != 0 {
			t.Errorf("codex's hooks found in claude-code's: %q", other)
		}
	}
}

func TestCheckAgent(t *testing.T) {
	moat := fakeMoat(t)
	otherMoat := fakeMoat(t)
	ag, _ := setup.ForAgent("gemini-cli")
	full, _, err := ag.Install("", moat)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := ag.Install("", otherMoat)
	if err != nil {
		t.Fatal(err)
	}
	gone, _, err := ag.Install("", "/nowhere/moat")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		settings string // "" means no file
		dir      bool
		want     Status
		contains string
	}{
		{"not installed", "", false, OK, "not installed"},
		{"installed, no file", "", true, Fail, "moat's hooks are not in"},
		{"installed, no hooks", `{"theme": "dark"}`, true, Fail, "moat's hooks are not in"},
		{"one event missing", strings.Replace(full, `"AfterTool"`, `"Other"`, 1), true, Fail, "missing for AfterTool"},
		{"all in", full, true, OK, "BeforeTool, AfterTool, BeforeAgent"},
		{"another moat", other, true, Warn, "not this moat"},
		{"a moat that is gone", gone, true, Fail, "not an executable file"},
		{"unreadable settings", "{", true, Fail, "cannot be read as settings"},
	}
	for _, tt := range tests {
		home := t.TempDir()
		if tt.dir {
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if tt.settings != "" {
			if err := os.WriteFile(filepath.Join(home, ".gemini/settings.json"), []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := checkAgent(Inputs{Dirs: dirs.Dirs{Home: home}, Executable: moat}, ag)
		if f.Status != tt.want || !strings.Contains(f.Message, tt.contains) {
			t.Errorf("%s: %s %q; want %s and %q", tt.name, f.Status, f.Message, tt.want, tt.contains)
		}
	}
}

func TestCheckPrivateDir(t *testing.T) {
	root := t.TempDir()
	tests := []struct {
		mode os.FileMode
		want Status
	}{{0o700, OK}, {0o750, Fail}, {0o755, Fail}, {0o777, Fail}}
	for _, tt := range tests {
		dir := filepath.Join(root, tt.mode.String())
		if err := os.Mkdir(dir, tt.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tt.mode); err != nil {
			t.Fatal(err)
		}
		f := checkPrivateDir(Inputs{}, "state.dir", dir, "the state directory")
		if f.Status != tt.want {
			t.Errorf("mode %v: %s (%s)", tt.mode, f.Status, f.Message)
		}
		if f.Status == Fail && f.Fix != "chmod 700 "+dir {
			t.Errorf("mode %v: fix %q", tt.mode, f.Fix)
		}
	}
	if f := checkPrivateDir(Inputs{}, "state.dir", filepath.Join(root, "missing"), "x"); f.Status != OK {
		t.Errorf("a directory not made yet: %s", f.Status)
	}
}

func TestMCPFinding(t *testing.T) {
	tests := []struct {
		name    string
		changes []mcpconfig.Change
		gone    []string
		want    Status
		fix     string
	}{
		{"no servers", nil, nil, OK, ""},
		{"all wrapped", []mcpconfig.Change{{Server: "a", Already: true}, {Server: "b", Already: true}}, nil, OK, ""},
		{"wrapped, moat gone", []mcpconfig.Change{{Server: "a", Already: true}}, []string{"/old/moat"}, Warn, "moat mcp unwrap --agent cursor && moat mcp wrap --agent cursor"},
		{"one bare", []mcpconfig.Change{{Server: "a", Already: true}, {Server: "b"}}, nil, Warn, "moat mcp wrap --agent cursor"},
		{"one skipped", []mcpconfig.Change{{Server: "a", Already: true}, {Server: "web", HTTP: true, Skipped: true, Reason: "remote"}}, nil, Warn, "see `moat mcp wrap --help`"},
	}
	for _, tt := range tests {
		f := mcpFinding(Finding{ID: "mcp.cursor.user"}, "cursor", "/h/.cursor/mcp.json", tt.changes, tt.gone)
		if f.Status != tt.want || f.Fix != tt.fix {
			t.Errorf("%s: %s %q fix %q; want %s, %q", tt.name, f.Status, f.Message, f.Fix, tt.want, tt.fix)
		}
	}
}

func TestMoatPaths(t *testing.T) {
	text := `{"mcpServers": {"fs": {"command": "/usr/local/bin/moat", "args": ["mcp", "proxy", "--name", "fs", "--", "npx"]},
  "w": {"command": "C:\\Tools\\moat.exe"}, "x": {"command": "moat"}, "y": {"command": "/opt/moatish"}}}
[mcp_servers.gh]
command = "/home/u/bin/moat"`
	want := []string{"/usr/local/bin/moat", "/home/u/bin/moat"}
	if got := moatPaths(text); !reflect.DeepEqual(got, want) {
		t.Errorf("moatPaths = %q, want %q", got, want)
	}
}

func TestWorst(t *testing.T) {
	for _, tt := range []struct {
		in   []Status
		want Status
	}{{nil, OK}, {[]Status{OK, OK}, OK}, {[]Status{OK, Warn}, Warn}, {[]Status{Fail, Warn, OK}, Fail}} {
		var fs []Finding
		for _, s := range tt.in {
			fs = append(fs, Finding{Status: s})
		}
		if got := Worst(fs); got != tt.want {
			t.Errorf("Worst(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzHookBinaries(f *testing.F) {
	ag, _ := setup.ForAgent("cursor")
	for _, moat := range []string{"/usr/local/bin/moat", "/a b/moat", "/it's/moat"} {
		text, _, _ := ag.Install("", moat)
		f.Add(text)
	}
	f.Add(`{"hooks": {"x": [{"command": "\"quoted\\\" hook cursor"}]}}`)
	f.Fuzz(func(t *testing.T, text string) {
		for _, bin := range hookBinaries(text, "cursor") {
			if !filepath.IsAbs(bin) {
				t.Errorf("hookBinaries(%q) gave a relative path %q", text, bin)
			}
		}
	})
}

// TestCheckCodexTrust checks that moat's hooks in Codex's settings are ok only when Codex
// trusts them as they are now: untrusted, trusted before a change, or disabled, Codex
// skips them without a word, and doctor fails. A project hook that names moat without a
// path needs a moat on PATH.
func TestCheckCodexTrust(t *testing.T) {
	moat := fakeMoat(t)
	ag, _ := setup.ForAgent("codex")
	hooksText, _, err := ag.Install("", moat)
	if err != nil {
		t.Fatal(err)
	}
	portable, _, err := ag.Install("", setup.PortableCommand)
	if err != nil {
		t.Fatal(err)
	}
	trusted := func(home, file, text string) string {
		hooks, err := setup.CodexHooks(file, text)
		if err != nil || len(hooks) != 2 {
			t.Fatalf("CodexHooks: %v, %v", hooks, err)
		}
		cfg, err := setup.RecordCodexTrust("", hooks)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	noPath := func(string) (string, error) { return "", errors.New("not found") }
	onPath := func(string) (string, error) { return moat, nil }
	tests := []struct {
		name     string
		project  bool // the hooks are the project's, naming moat without a path
		config   func(home, file, text string) string
		lookPath func(string) (string, error)
		want     Status
		contains string
	}{
		{"trusted", false, trusted, noPath, OK, "codex trusts them"},
		{"no config.toml", false, nil, noPath, Fail, "installed but not trusted: codex will not run them (PreToolUse in"},
		{"trusted before a change", false, func(home, file, text string) string {
			return strings.ReplaceAll(trusted(home, file, text), "sha256:", "sha256:0")
		}, noPath, Fail, "PreToolUse: modified"},
		{"disabled", false, func(home, file, text string) string {
			return strings.Replace(trusted(home, file, text), "trusted_hash", "enabled = false\ntrusted_hash", 1)
		}, noPath, Fail, "PreToolUse: disabled"},
		{"project, moat on PATH", true, trusted, onPath, OK, "codex trusts them"},
		{"project, no moat on PATH", true, trusted, noPath, Fail, "there is none on PATH"},
	}
	for _, tt := range tests {
		home := t.TempDir()
		project := filepath.Join(home, "src")
		file, text := filepath.Join(home, ".codex/hooks.json"), hooksText
		if tt.project {
			file, text = filepath.Join(project, ".codex/hooks.json"), portable
		}
		files := map[string]string{file: text}
		if tt.config != nil {
			files[filepath.Join(home, ".codex/config.toml")] = tt.config(home, file, text)
		}
		for p, s := range files {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f := checkAgent(Inputs{Dirs: dirs.Dirs{Home: home}, Project: project, Executable: moat, LookPath: tt.lookPath}, ag)
		if f.Status != tt.want || !strings.Contains(f.Message, tt.contains) {
			t.Errorf("%s: %s %q; want %s and %q", tt.name, f.Status, f.Message, tt.want, tt.contains)
		}
		if f.Status == Fail && tt.config != nil && !tt.project && !strings.HasPrefix(f.Fix, "moat setup codex") {
			t.Errorf("%s: fix %q", tt.name, f.Fix)
		}
	}
}

func TestCheckOldBackups(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "src")
	in := Inputs{Dirs: dirs.Dirs{Home: home, State: filepath.Join(home, "state")}, Project: project}
	if _, ok := checkOldBackups(in); ok {
		t.Error("a finding without any backup")
	}
	old := filepath.Join(project, ".claude/settings.json.moat-backup")
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.WriteFile(old, []byte("{}"), 0o644)
	f, ok := checkOldBackups(in)
	if !ok || f.Status != Warn || !strings.Contains(f.Message, old) || f.Fix != "rm "+old {
		t.Errorf("old backup: %v %+v", ok, f)
	}
}
