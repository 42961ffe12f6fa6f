package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
)

// TestGuardedSetsAreSelfProtections keeps guardedSets the sets self-protection forbids
// writing or deleting: a set added there is checked by identity too.
func TestGuardedSetsAreSelfProtections(t *testing.T) {
	data, err := os.ReadFile("../policy/builtin/self-protection.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rules []struct {
			Paths map[string][]string `yaml:"paths"`
		} `yaml:"rules"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var sets []string
	for _, r := range doc.Rules {
		for _, kind := range []string{"write", "delete", "any"} {
			for _, p := range r.Paths[kind] {
				if !slices.Contains(sets, p) {
					sets = append(sets, p)
				}
			}
		}
	}
	slices.Sort(sets)
	want := slices.Sorted(slices.Values(guardedSets))
	if !slices.Equal(sets, want) {
		t.Fatalf("self-protection guards %v, identities are checked for %v", sets, want)
	}
}

// identityFixture is a canary home and project on disk, with moat's policy, the agent's
// hook settings and the links an agent could have made to them in an earlier call.
type identityFixture struct {
	home, project string
	e             *Engine
}

func newIdentityFixture(t *testing.T) identityFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := identityFixture{home: filepath.Join(root, "home"), project: filepath.Join(root, "home", "proj")}
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("home/.claude/settings.json", `{"hooks":{}}`)
	write("home/.config/moat/trust.json", `{}`)
	write("home/proj/moat.yaml", "version: 1\n")
	write("home/proj/main.go", "package main\n")
	write("home/other.txt", "x")
	links := []struct {
		hard       bool
		from, name string
	}{
		{true, "home/proj/moat.yaml", "home/proj/notes.txt"},
		{true, "home/.claude/settings.json", "home/proj/s.json"},
		{true, "home/.config/moat/trust.json", "home/proj/t.json"},
		{true, "home/other.txt", "home/proj/other.txt"},
		{false, "home/.claude", "home/proj/cfg"},
		{false, "home/proj/notes.txt", "home/proj/via"},
	}
	for _, l := range links {
		var err error
		if l.hard {
			err = os.Link(filepath.Join(root, l.from), filepath.Join(root, l.name))
		} else {
			err = os.Symlink(filepath.Join(root, l.from), filepath.Join(root, l.name))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	f.e = canary{root: root, home: f.home}.engine(t, f.home+"/.local/state/moat/**", "/**/moat.yaml")
	return f
}

func TestWritesByIdentity(t *testing.T) {
	f := newIdentityFixture(t)
	cases := []struct {
		cmd  string
		want call.Verdict
		rule string
		why  string
	}{
		{"echo 'default: allow' > notes.txt", call.Deny, "self-protection.moat-files", "notes.txt is a hard link of moat.yaml"},
		{"sed -i s/deny/allow/ notes.txt", call.Deny, "self-protection.moat-files", "an in-place edit of the hard link"},
		{"echo '{}' > s.json", call.Deny, "self-protection.agent-config", "a hard link of the hook settings"},
		{"truncate -s0 t.json", call.Deny, "self-protection.moat-files", "a hard link of the trust store"},
		{"echo '{}' > cfg/settings.json", call.Deny, "self-protection.agent-config", "through a directory linked to ~/.claude"},
		{"echo x > via", call.Deny, "self-protection.moat-files", "a symbolic link to the hard link"},
		{"rm notes.txt", call.Allow, "", "deleting a hard link leaves the policy as it is"},
		{"echo x > other.txt", call.Allow, "", "a hard link, but of no protected file"},
		{"echo x > new.txt", call.Allow, "", "a new file"},
		{"echo 'package main' > main.go", call.Allow, "", "a file with one name"},
		{"cat notes.txt", call.Allow, "", "reading is fine"},
		// Trees and globs reach the protected files that exist in them.
		{"tar xzf dist.tgz", call.Deny, "self-protection.moat-files", "extracting into the project may overwrite moat.yaml"},
		{"tar xzf dist.tgz -C build/", call.Allow, "", "extracting into a directory without protected files"},
		{"rm -rf ./*", call.Deny, "self-protection.moat-files", "the glob names moat.yaml"},
		{"rm -f *.yaml", call.Deny, "self-protection.moat-files", "the glob names moat.yaml"},
		{"rm -f *.pyc", call.Allow, "", "the glob cannot name a protected file"},
		{"find . -name '*.orig' -delete", call.Allow, "", "find's -name cannot match a protected file"},
		{"find . -name 'moat.*' -delete", call.Deny, "self-protection.moat-files", "find's -name matches moat.yaml"},
		{"find ~ -name .claude -exec rm -rf {} +", call.Deny, "", "a directory named on the way"},
		{"rsync -a x/ cfg/", call.Deny, "self-protection.agent-config", "into a directory linked to ~/.claude"},
	}
	for _, c := range cases {
		t.Run(c.cmd, func(t *testing.T) {
			d := f.e.Evaluate(context.Background(), shellCall(c.cmd, f.project))
			if d.Verdict != c.want || c.rule != "" && d.Rule != c.rule {
				t.Fatalf("%s (%s): %s by %s (%s), want %s by %s", c.cmd, c.why, d.Verdict, d.Rule, d.Reason, c.want, c.rule)
			}
		})
	}
	t.Run("file tools", func(t *testing.T) {
		c, err := call.Canonicalize(call.ClaudeCode, "Write", map[string]any{"file_path": filepath.Join(f.project, "notes.txt"), "content": "default: allow"})
		if err != nil {
			t.Fatal(err)
		}
		c.Cwd = f.project
		if d := f.e.Evaluate(context.Background(), c); d.Verdict != call.Deny {
			t.Fatalf("Write to a hard link of moat.yaml: %s by %s", d.Verdict, d.Rule)
		}
	})
}

func TestUnknownIdentityIsNotAllowed(t *testing.T) {
	f := newIdentityFixture(t)
	if err := os.Symlink("loop", filepath.Join(f.project, "loop")); err != nil {
		t.Fatal(err)
	}
	d := f.e.Evaluate(context.Background(), shellCall("echo x > loop", f.project))
	if d.Verdict == call.Allow || !slices.ContainsFunc(d.Findings, func(x call.Finding) bool { return x.ID == "analysis.opaque" }) {
		t.Fatalf("a write to a link loop: %s by %s, findings %v", d.Verdict, d.Rule, d.Findings)
	}
}
