package sandbox

import (
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/pathset"
)

// TestDefaultDeniesSigningKeys: the default sandbox takes the private keys that sign
// policies out of the home and workspace trees it grants, where keygen puts them, and
// leaves their public halves readable.
func TestDefaultDeniesSigningKeys(t *testing.T) {
	home := tree(t, "team.moat-key", "team.moat-pub", "notes.txt")
	ws := tree(t, "moat-policy.moat-key", "moat-policy.moat-pub", "main.go")
	p, err := Build(Options{
		Section: section(t, ""), Host: pathset.Host{Home: home}, Workspace: []string{ws},
		ABI: 7, Errata: 7, UserTasks: func() (uint64, error) { return 5, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]Access{}
	for _, r := range p.Rules {
		rules[r.Path] = r.Access
	}
	for _, denied := range []string{filepath.Join(home, "team.moat-key"), filepath.Join(ws, "moat-policy.moat-key")} {
		if a, ok := rules[denied]; ok {
			t.Errorf("%s is granted %s", denied, a)
		}
		if a, ok := rules[filepath.Dir(denied)]; ok && a&ReadFile != 0 {
			t.Errorf("%s, which holds a signing key, is granted whole: %s", filepath.Dir(denied), a)
		}
	}
	// A file is readable through its own rule or one of a directory above it.
	readable := func(p string) bool {
		for ; ; p = filepath.Dir(p) {
			if rules[p]&ReadFile != 0 {
				return true
			}
			if p == filepath.Dir(p) {
				return false
			}
		}
	}
	for _, p := range []string{filepath.Join(home, "team.moat-pub"), filepath.Join(ws, "moat-policy.moat-pub"), filepath.Join(ws, "main.go")} {
		if !readable(p) {
			t.Errorf("%s is not readable", p)
		}
	}
}
