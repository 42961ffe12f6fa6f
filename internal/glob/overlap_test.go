package glob

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOverlaps(t *testing.T) {
	shell, tree, find := Overlap{}, Overlap{Tree: true}, Overlap{Hidden: true}
	tests := []struct {
		pattern, glob string
		o             Overlap
		want          bool
	}{
		// rm in the project root: only globs that can name the policy file reach it.
		{"/**/moat.yaml", "/ws/*.pyc", shell, false},
		{"/**/moat.yaml", "/ws/*.orig", shell, false},
		{"/**/moat.yaml", "/ws/*", shell, true},
		{"/**/moat.yaml", "/ws/*.yaml", shell, true},
		{"/**/moat.yaml", "/ws/m?at.y[a-z]ml", shell, true},
		{"/**/moat.yaml", "/ws/[!m]*.yaml", shell, false},
		{"/**/moat.yaml", "/ws/*.{yml,json}", shell, false},
		{"/**/moat.yaml", "/ws/*.{yml,yaml}", shell, true},
		{"/**/moat.yaml", "/ws/build/*", tree, true},
		{"/**/moat.yaml", "/ws/build/*", Overlap{Tree: true, Spelled: true}, false},
		{"/**/moat.yaml", "/ws/*/moat.yaml", Overlap{Spelled: true}, true},
		{"/**/moat.yaml", "/ws/**/moat.yaml", Overlap{Spelled: true, Hidden: true}, true},
		{"/**/moat.yaml", "/ws/**/*.yaml", Overlap{Spelled: true, Hidden: true}, false},
		{"/**/.claude/settings.json", "/ws/*/.claude", Overlap{Spelled: true, Tree: true}, true},
		{"/**/.claude/settings.json", "/ws/**/settings.json", Overlap{Spelled: true, Hidden: true}, true},
		{"/**/secrets/**", "/ws/**/*.go", Overlap{Spelled: true, Hidden: true}, false},
		// A pattern for names of one kind is reached by a glob that spells the kind.
		{"/**/*.moat-key", "/h/keys/*.moat-key", Overlap{Spelled: true}, true},
		{"/**/*.moat-key", "/h/keys/team*.moat-key", Overlap{Spelled: true}, true},
		{"/**/*.moat-key", "/h/keys/*.{moat-key,pem}", Overlap{Spelled: true}, true},
		{"/**/*.moat-key", "/h/keys/*.{pub,pem}", Overlap{Spelled: true}, false},
		{"/**/*.moat-key", "/h/*/*.moat-key", Overlap{Spelled: true}, true},
		{"/**/*.moat-key", "/h/keys/*", Overlap{Spelled: true}, false},
		{"/**/*.moat-key", "/h/keys/*.moat-*", Overlap{Spelled: true}, false},
		{"/**/*.moat-key", "/h/keys/*key", Overlap{Spelled: true}, false},
		{"/**/moat.yaml", "/ws/*", tree, true},
		{"/**/moat.yaml", "/ws/**/*.yaml", find, true},
		{"/**/moat.yaml", "/ws/**/*.orig", find, false},
		// The shell's wildcards skip names starting with a dot; find's do not.
		{"/**/.claude/settings.json", "/ws/*", shell, false},
		{"/**/.claude/settings.json", "/ws/*", tree, false},
		{"/**/.claude/settings.json", "/ws/.*", tree, true},
		{"/**/.claude/settings.json", "/ws/.c*/*", shell, true},
		{"/**/.claude/settings.json", "/ws/*", Overlap{Tree: true, Hidden: true}, true},
		{"/**/.claude/settings.json", "/ws/**/*.json", find, true},
		{"/**/.claude/settings.json", "/ws/**/*.json", shell, false},
		{"/**/.claude/settings.json", "/ws/build/*", tree, false},
		{"/**/.claude/settings.json", "/ws/**/__pycache__", Overlap{Tree: true, Hidden: true}, false},
		// Literal and tree patterns.
		{"/home/u/.config/moat/**", "/home/u/.config/*", tree, true},
		{"/home/u/.config/moat/**", "/home/u/.config/m*", shell, true},
		{"/home/u/.config/moat/**", "/home/u/.config/n*", tree, false},
		{"/home/u/.config/moat/**", "/home/u/*", tree, false},
		{"/etc/**", "/e*/passwd", shell, true},
		{"/etc/**", "/usr/*", tree, false},
		{"/usr/local/bin/moat", "/usr/local/bin/*", shell, true},
		{"/usr/local/bin/moat", "/usr/local/bin/[a-l]*", shell, false},
		{"/**/x", "/", tree, true},
		{"/x", "/", shell, false},
		// Classes outside ASCII are assumed to overlap.
		{"/a/[é]", "/a/[!x]", shell, true},
	}
	for _, tt := range tests {
		p, err := CompilePath(tt.pattern, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := CompilePath(tt.glob, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Overlaps(g, tt.o); got != tt.want {
			t.Errorf("%s overlaps %s %+v = %v, want %v", tt.pattern, tt.glob, tt.o, got, tt.want)
		}
	}
}

func TestOverlapsFoldCase(t *testing.T) {
	p, err := CompilePath("/**/moat.yaml", Options{FoldCase: true})
	if err != nil {
		t.Fatal(err)
	}
	g, err := CompilePath("/ws/MOAT.*", Options{FoldCase: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Overlaps(g, Overlap{}) {
		t.Error("on a case-insensitive file system MOAT.* names moat.yaml")
	}
}

func TestAnchor(t *testing.T) {
	p, err := CompilePath("/**/.claude/settings.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Anywhere() {
		t.Fatal("/**/.claude/settings.json is an anywhere pattern")
	}
	a := p.Anchor("/ws")
	if a.Anywhere() || !a.Match("/ws/.claude/settings.json") || a.Match("/ws/x/.claude/settings.json") {
		t.Errorf("anchored at /ws: %v", a)
	}
	if r := p.Anchor("/"); !r.Match("/.claude/settings.json") {
		t.Error("anchored at / names /.claude/settings.json")
	}
	q, _ := CompilePath("/etc/**", Options{})
	if q.Anywhere() || q.Anchor("/ws") != q {
		t.Error("/etc/** is not an anywhere pattern")
	}
}

func TestOverlapsShallow(t *testing.T) {
	p, _ := CompilePath("/ws/secrets/**", Options{})
	g, _ := CompilePath("/ws/**/*.go", Options{})
	if !p.Overlaps(g, Overlap{Hidden: true}) {
		t.Error("/ws/secrets/x.go is named by both")
	}
	if p.Overlaps(g, Overlap{Hidden: true, Shallow: true}) {
		t.Error("shallow: the walk does not reach secrets/ through a name the glob spells")
	}
	m, _ := CompilePath("/ws/moat.yaml", Options{})
	y, _ := CompilePath("/ws/**/*.yaml", Options{})
	if !m.Overlaps(y, Overlap{Hidden: true, Shallow: true}) {
		t.Error("shallow: the walk names /ws/moat.yaml itself")
	}
}

func TestOverlapsHiddenFamilies(t *testing.T) {
	find := Overlap{Hidden: true}
	for _, tt := range []struct {
		pattern, glob string
		want          bool
	}{
		{"/ws/.env.*", "/ws/**/*.pyc", false},
		{"/ws/.env", "/ws/**/*env*", true},
		{"/ws/.env.*", "/ws/**/.e*", true},
		{"/ws/.claude/**", "/ws/*", true},
	} {
		p, _ := CompilePath(tt.pattern, Options{})
		g, _ := CompilePath(tt.glob, Options{})
		if got := p.Overlaps(g, find); got != tt.want {
			t.Errorf("%s overlaps find's %s = %v, want %v", tt.pattern, tt.glob, got, tt.want)
		}
	}
}

// FuzzOverlaps checks Overlaps against witnesses: whenever a path with no hidden name
// matches both patterns, they overlap, as a shell glob, a find walk and a tree alike. (A
// hidden name matched by wildcards on both sides is the one place Overlaps answers no on
// purpose; see segmentsOverlap.) The work stays bounded by the patterns' sizes.
func FuzzOverlaps(f *testing.F) {
	seeds := [][3]string{
		{"/**/moat.yaml", "/ws/*.yaml", "/ws/moat.yaml"},
		{"/**/moat.yaml", "/ws/*.pyc", "/ws/a.pyc"},
		{"/etc/**", "/e*/passwd", "/etc/passwd"},
		{"/a/{b,c}*/d", "/a/c?/[d-f]", "/a/cx/d"},
		{"/ws/secrets/**", "/ws/**/*.go", "/ws/secrets/x.go"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, pattern, globPat, path string) {
		if len(pattern) > 200 || len(globPat) > 200 {
			return
		}
		p, err := CompilePath(pattern, Options{})
		if err != nil {
			return
		}
		g, err := CompilePath(globPat, Options{})
		if err != nil {
			return
		}
		for _, o := range []Overlap{{}, {Tree: true}, {Hidden: true}, {Tree: true, Hidden: true}} {
			_ = p.Overlaps(g, o)
		}
		if path == "" || path[0] != '/' || strings.Contains(path, "/.") || strings.Contains(path, "//") || strings.HasSuffix(path, "/") && path != "/" || !utf8.ValidString(path) || strings.ContainsRune(path, 0) {
			return
		}
		if p.Match(path) && g.Match(path) {
			for _, o := range []Overlap{{}, {Tree: true}, {Hidden: true}} {
				if !p.Overlaps(g, o) {
					t.Errorf("%s and %s both match %s, but Overlaps(%+v) says no", pattern, globPat, path, o)
				}
			}
		}
	})
}

func TestSameBranch(t *testing.T) {
	for _, tc := range []struct {
		x, y string
		want bool
	}{
		{"", "/a", true},
		{"/a", "/a", true},
		{"/a", "/a/b", true},
		{"/a/b", "/a", true},
		{"/a", "/ab", false},
		{"/home/u/.ssh", "/home/u/project/dist", false},
	} {
		if got := sameBranch(tc.x, tc.y); got != tc.want {
			t.Errorf("sameBranch(%q, %q) = %v", tc.x, tc.y, got)
		}
	}
}
