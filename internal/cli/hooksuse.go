package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/trust"
)

// hooksNote says, when the hooks deciding a call in dir would not use the policy file
// file as it is, which policy they use instead and why; it is "" when they use it.
// validate, test and check say it, so that a policy that passes its tests is never
// silently one the hooks ignore (a project policy not trusted, or changed since it was and
// enforced as trusted, a file named with --policy).
func (a *app) hooksNote(file, dir string) string {
	src, _, err := a.findPolicyWarn("", dir, "", func(string) {})
	if err != nil {
		return fmt.Sprintf("the hooks in %s cannot load their policy: %v", dir, err)
	}
	for _, sk := range src.Skipped {
		if !sameFile(sk.Path, file) {
			continue
		}
		if sk.Status == trust.Changed {
			return fmt.Sprintf("the hooks do not use this file as it is now: %s", sk.Why)
		}
		return fmt.Sprintf("the hooks do not use this file: %s; until then they use %s", sk.Why, src.Name)
	}
	if sameFile(src.Path, file) {
		return ""
	}
	return fmt.Sprintf("the hooks in %s do not use this file: they use %s (%s)", dir, src.Name, src.Kind)
}

// sameFile reports whether the paths a and b name one file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// noteHooks writes the hooksNote of file on stderr, if there is one, and returns it.
func (a *app) noteHooks(file string) string {
	note := a.hooksNote(file, filepath.Dir(file))
	if note != "" {
		fmt.Fprintf(a.env.Stderr, "moat: note: %s\n", note)
	}
	return note
}
