//go:build unix

package watch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// A user policy that is a link into another directory (a dotfiles repository): an edit
// of the file it points to is an edit of the policy.
func TestLinkedPolicyFollowed(t *testing.T) {
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "moat.yaml")
	e := newEnvWith(t, func(e *env) {
		e.write(dotfiles, policyDenying("rm"))
		if err := os.MkdirAll(filepath.Dir(e.user), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dotfiles, e.user); err != nil {
			t.Fatal(err)
		}
	})
	if v := e.verdict("rm x"); v != call.Deny {
		t.Fatalf("rm under the linked policy: %s", v)
	}
	e.write(dotfiles, policyDenying("curl"))
	e.eventually("the edit of the linked file applies", func() bool { return e.verdict("curl x") == call.Deny })
}
