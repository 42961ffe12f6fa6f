package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/glob"
)

// tree makes files (and their directories) under a temporary root, and returns the root
// with symbolic links resolved, as the carver sees paths.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		p := filepath.Join(root, f)
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// rulesOf renders rules relative to root: "a rl---------".
func rulesOf(root string, rules []*rule) map[string]string {
	out := map[string]string{}
	for _, r := range rules {
		rel, err := filepath.Rel(root, r.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		out[rel] = r.access.String()
	}
	return out
}

func TestCarveDeny(t *testing.T) {
	root := tree(t, "a/x", "a/y", "b", "secret/key", "secret/key.pub", "secret/deep/k")
	if err := os.Symlink(filepath.Join(root, "secret"), filepath.Join(root, "link-to-secret")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	pub, err := glob.CompilePath(filepath.Join(root, "secret/*.pub"), glob.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := newCarver(probe{}, []*limit{{path: filepath.Join(root, "secret"), mask: 0, why: "deny", except: []*glob.Path{pub}}})
	c.grant(root, readAccess, "read")
	got := rulesOf(root, c.result())
	want := map[string]string{
		".":              "-l-------", // listing only: it holds the secret
		"a":              "rl-------",
		"b":              "r--------",
		"secret/key.pub": "r--------", // an exception of the denied set
	}
	if len(got) != len(want) {
		t.Errorf("rules = %v, want %v", got, want)
	}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("rule for %s = %q, want %q (all: %v)", p, got[p], a, got)
		}
	}
	for p := range got {
		if strings.HasPrefix(p, "secret") && p != "secret/key.pub" {
			t.Errorf("a rule reaches the denied %s", p)
		}
	}
	if !c.hit[c.limits[0]] {
		t.Error("the deny is not reported as having taken something")
	}
}

func TestCarveProtect(t *testing.T) {
	root := tree(t, "a/policy.yaml", "a/other", "b/c")
	c := newCarver(probe{}, []*limit{{path: filepath.Join(root, "a/policy.yaml"), mask: protectedAccess, why: "protect"}})
	c.grant(root, readAccess|writeAccess, "write")
	got := rulesOf(root, c.result())
	want := map[string]string{
		".":             "rl---c---", // reading beneath, lock directories; writing only in the entries below
		"a":             "rl---cd--", // also removing directories: the protected file cannot be one
		"a/policy.yaml": "",          // covered by the read of its ancestors: no rule of its own
		"a/other":       "r--wt----",
		"b":             "rl-wtcdm-",
	}
	for p, a := range want {
		if got[p] != a {
			t.Errorf("rule for %s = %q, want %q (all: %v)", p, got[p], a, got)
		}
	}
}

// TestCarveChainRights: what a directory on the way to a denied or protected path keeps
// (see the comment at the top of carve.go for why).
func TestCarveChainRights(t *testing.T) {
	cases := []struct {
		name   string
		files  []string
		limits []limit // paths relative to the root
		absent []string
		want   map[string]string
	}{
		{
			name:   "a protected file: create directories, remove directories, never files",
			files:  []string{"agent/settings.json", "agent/state.json", "agent/projects/"},
			limits: []limit{{path: "agent/settings.json", mask: protectedAccess}},
			want:   map[string]string{".": "rl---c---", "agent": "rl---cd--", "agent/state.json": "r--wt----", "agent/projects": "rl-wtcdm-"},
		},
		{
			name:   "a protected file deeper: no removing directories, which could move it away",
			files:  []string{"agent/sub/settings.json", "agent/other/"},
			limits: []limit{{path: "agent/sub/settings.json", mask: protectedAccess}},
			want:   map[string]string{"agent": "rl---c---", "agent/sub": "rl---cd--", "agent/other": "rl-wtcdm-"},
		},
		{
			name:   "a protected directory: its parent cannot rename it",
			files:  []string{"agent/hooks/h.sh", "agent/other/"},
			limits: []limit{{path: "agent/hooks", mask: protectedAccess, dir: true}},
			want:   map[string]string{"agent": "rl---c---", "agent/other": "rl-wtcdm-"},
		},
		{
			name:   "a protected directory missing beside a protected file: no renaming a directory to its name",
			files:  []string{"agent/settings.json", "agent/other/"},
			limits: []limit{{path: "agent/settings.json", mask: protectedAccess}},
			absent: []string{"agent/hooks"},
			want:   map[string]string{"agent": "rl---c---", "agent/other": "rl-wtcdm-"},
		},
		{
			name:   "a denied file: listing only",
			files:  []string{"agent/key", "agent/other"},
			limits: []limit{{path: "agent/key", mask: 0}},
			want:   map[string]string{".": "-l-------", "agent": "-l-------", "agent/other": "r--wt----"},
		},
		{
			name:   "a denied and a protected file: the denial's listing only",
			files:  []string{"agent/key", "agent/settings.json"},
			limits: []limit{{path: "agent/key", mask: 0}, {path: "agent/settings.json", mask: protectedAccess}},
			want:   map[string]string{"agent": "-l-------"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, tc.files...)
			var limits []*limit
			for _, l := range tc.limits {
				l.path = filepath.Join(root, l.path)
				limits = append(limits, &l)
			}
			c := newCarver(probe{}, limits)
			for _, a := range tc.absent {
				c.absentDirs = append(c.absentDirs, filepath.Join(root, a))
			}
			c.grant(root, readAccess|writeAccess, "write")
			rules := c.result()
			for p, a := range tc.want {
				if got := effective(rules, filepath.Join(root, p)).String(); got != a {
					t.Errorf("%s gets %q, want %q (rules: %v)", p, got, a, rulesOf(root, rules))
				}
			}
			for _, l := range limits {
				if got := effective(rules, l.path); got&^(l.mask|dirAccess) != 0 {
					t.Errorf("the limited %s gets %q", l.path, got)
				}
			}
		})
	}
}

// dirAccess are the rights that apply to directories.
const dirAccess = ReadDir | RemoveDir | RemoveFile | MakeChar | MakeDir | MakeReg | MakeSock | MakeFifo | MakeBlock | MakeSym | Refer

// effective returns the rights Landlock gives on p: those of every rule on p or above it
// that apply to what p is.
func effective(rules []*rule, p string) Access {
	var a Access
	for _, r := range rules {
		if within(p, r.path) {
			a |= r.access
		}
	}
	if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
		a &= fileAccess
	}
	return a
}

func TestCarveNothingToCarve(t *testing.T) {
	root := tree(t, "a/x")
	c := newCarver(probe{}, []*limit{{path: "/elsewhere/secret", mask: 0}})
	c.grant(root, readAccess, "read")
	c.grant(filepath.Join(root, "a"), readAccess, "read again")
	rules := c.result()
	if len(rules) != 1 || rules[0].path != root {
		t.Fatalf("rules = %+v, want the root alone", rules)
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a", "/", true}, {"/", "/a", false},
	}
	for _, c := range cases {
		if got := within(c.p, c.dir); got != c.want {
			t.Errorf("within(%q, %q) = %v", c.p, c.dir, got)
		}
	}
}
