package fileid

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tree makes, in a temporary directory, a protected file and the links an agent could make
// to it, with real symbolic and hard links.
func tree(t *testing.T) (dir, protected string) {
	t.Helper()
	dir = t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "home", ".claude")
	must(os.MkdirAll(cfg, 0o755))
	protected = filepath.Join(cfg, "settings.json")
	must(os.WriteFile(protected, []byte("{}"), 0o644))
	proj := filepath.Join(dir, "proj")
	must(os.MkdirAll(proj, 0o755))
	must(os.Symlink(protected, filepath.Join(proj, "s")))                         // a link to the file
	must(os.Symlink("../home/.claude", filepath.Join(proj, "d")))                 // a relative link to its directory
	must(os.Link(protected, filepath.Join(proj, "h")))                            // another name of the file
	must(os.Symlink(filepath.Join(proj, "h"), filepath.Join(proj, "sh")))         // a link to that name
	must(os.Symlink(filepath.Join(cfg, "new.json"), filepath.Join(proj, "dang"))) // a dangling link into the directory
	must(os.Symlink(filepath.Join(proj, "loop"), filepath.Join(proj, "loop")))    // a link to itself
	must(os.WriteFile(filepath.Join(proj, "plain"), []byte("x"), 0o644))
	other := filepath.Join(proj, "other")
	must(os.WriteFile(other, []byte("x"), 0o644))
	must(os.Link(other, filepath.Join(proj, "other2"))) // hard-linked, but not to anything protected
	return dir, protected
}

func TestResolve(t *testing.T) {
	dir, protected := tree(t)
	// The temporary directory may itself be under a link (macOS's /var): compare with
	// the real names.
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	realProtected := filepath.Join(realDir, "home", ".claude", "settings.json")
	proj := filepath.Join(dir, "proj")
	cases := []struct {
		name, path     string
		real, hardOf   string
		wantErr, isSet bool
	}{
		{name: "a symbolic link to the file", path: "s", real: realProtected},
		{name: "through a linked directory", path: "d/settings.json", real: realProtected},
		{name: "a new file in a linked directory", path: "d/x.json", real: filepath.Join(realDir, "home", ".claude", "x.json")},
		{name: "a hard link", path: "h", hardOf: protected},
		{name: "a symbolic link to a hard link", path: "sh", real: filepath.Join(realDir, "proj", "h"), hardOf: protected},
		{name: "a dangling link creates its target", path: "dang", real: filepath.Join(realDir, "home", ".claude", "new.json")},
		{name: "a link loop cannot be told", path: "loop", wantErr: true},
		{name: "an ordinary file", path: "plain"},
		{name: "a new file", path: "new/deeper/file"},
		{name: "hard-linked to something unprotected", path: "other2"},
		{name: "the protected file itself is no other file", path: "../home/.claude/settings.json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewResolver(OS{}, func(string) []string { return []string{protected} })
			p := filepath.Join(proj, c.path)
			id, err := r.Resolve(p)
			if (err != nil) != c.wantErr {
				t.Fatalf("Resolve(%s) error = %v, want error %v", c.path, err, c.wantErr)
			}
			if c.wantErr {
				return
			}
			wantReal := c.real
			if wantReal == "" && realDir != dir {
				wantReal = filepath.Join(realDir, filepath.Clean(filepath.Join("proj", c.path)))
			}
			if id.Real != wantReal {
				t.Errorf("Real = %q, want %q", id.Real, wantReal)
			}
			if id.HardLinkOf != c.hardOf {
				t.Errorf("HardLinkOf = %q, want %q", id.HardLinkOf, c.hardOf)
			}
		})
	}
}

// countingFS counts the lookups, to hold the resolver to its cost.
type countingFS struct {
	OS
	stats int
}

func (c *countingFS) Stat(name string) (os.FileInfo, error) {
	c.stats++
	return os.Stat(name)
}

func TestProtectedReadOnlyForHardLinks(t *testing.T) {
	dir, protected := tree(t)
	fsys := &countingFS{}
	listed := 0
	r := NewResolver(fsys, func(string) []string { listed++; return []string{protected} })
	for _, p := range []string{"plain", "d/x.json", "new", "dang"} {
		if _, err := r.Resolve(filepath.Join(dir, "proj", p)); err != nil {
			t.Fatal(err)
		}
	}
	if listed != 0 || fsys.stats != 0 {
		t.Fatalf("files with one name read the protected files (%d lists, %d stats)", listed, fsys.stats)
	}
	for range 3 {
		if id, _ := r.Resolve(filepath.Join(dir, "proj", "h")); id.HardLinkOf == "" {
			t.Fatal("hard link not found")
		}
		r.Resolve(filepath.Join(dir, "proj", "other2"))
	}
	if listed != 1 {
		t.Fatalf("the protected files were listed %d times in one decision, want once", listed)
	}
}

func TestConcrete(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		"home/.config/moat/moat.yaml", "home/.config/moat/trust/a", "home/.local/state/moat/audit.jsonl",
		"home/.codex/work.config.toml", "home/.codex/config.toml", "home/Code/User/profiles/p1/mcp.json",
		"proj/moat.yaml", "proj/.claude/settings.json", "proj/sub/x",
	}
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := filepath.Join(dir, "home")
	patterns := []string{
		h + "/.config/moat/**", h + "/.local/state/moat/**", "/**/moat.yaml", "/**/.claude/settings.json",
		h + "/.codex/*.config.toml", h + "/Code/User/profiles/*/mcp.json", h + "/.claude/settings.json",
	}
	got := Concrete(OS{}, patterns, []string{filepath.Join(dir, "proj"), filepath.Join(dir, "proj", "sub")}, "")
	want := []string{
		h + "/.config/moat/moat.yaml", h + "/.config/moat/trust/a", h + "/.local/state/moat/audit.jsonl",
		dir + "/proj/moat.yaml", dir + "/proj/.claude/settings.json",
		h + "/.codex/work.config.toml", h + "/Code/User/profiles/p1/mcp.json",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Concrete =\n%q\nwant\n%q", got, want)
	}
}

func TestConcreteWithin(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"home/.config/moat/moat.yaml", "home/proj/moat.yaml", "home/proj/.claude/settings.json", "home/proj/build/x"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := filepath.Join(dir, "home")
	proj := filepath.Join(h, "proj")
	patterns := []string{h + "/.config/moat/**", "/**/moat.yaml", "/**/.claude/settings.json", h + "/.codex/*.config.toml"}
	roots := []string{proj, h}
	for _, c := range []struct {
		within string
		want   []string
	}{
		{proj, []string{proj + "/moat.yaml", proj + "/.claude/settings.json"}},
		{proj + "/build", nil},
		{h + "/.config", []string{h + "/.config/moat/moat.yaml"}},
		{h, []string{h + "/.config/moat/moat.yaml", proj + "/moat.yaml", proj + "/.claude/settings.json"}},
	} {
		fsys := &countingFS{}
		got := Concrete(fsys, patterns, roots, c.within)
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("Concrete within %s = %q, want %q", c.within, got, c.want)
		}
		if c.within == proj+"/build" && fsys.stats != 0 {
			t.Errorf("Concrete within %s looked up %d paths that cannot be there", c.within, fsys.stats)
		}
	}
}

func BenchmarkResolveNewFile(b *testing.B) {
	dir := b.TempDir()
	r := NewResolver(OS{}, func(string) []string { return nil })
	for i := 0; b.Loop(); i++ {
		r.seen = nil
		r.Resolve(filepath.Join(dir, "build", "out.o"))
	}
}

func BenchmarkLstat(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		os.Lstat(filepath.Join(dir, "build", "out.o"))
	}
}
