package shell

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// Every path rule compiles, names a catalogued finding, and matches an example path made
// from its pattern, for each access kind it lists, and for no other kind.
func TestPathRules(t *testing.T) {
	data := allPathRuleData()
	if len(pathRules()) != len(data) {
		t.Fatalf("%d of %d path rules compiled", len(pathRules()), len(data))
	}
	const home = "/home/u"
	for _, r := range data {
		if _, ok := lookupKind(r.finding); !ok {
			t.Errorf("%s: finding %q is not catalogued", r.pattern, r.finding)
		}
		example := strings.NewReplacer("**", "a/b", "*", "x").Replace(r.pattern)
		if rest, ok := strings.CutPrefix(example, "~/"); ok {
			example = home + "/" + rest
		}
		for _, k := range call.AccessKinds {
			got := hasFinding(pathFindings(nil, call.Access{Kind: k, Path: example}, home), r.finding)
			if want := kindIn(k, r.kinds); got != want && !otherRuleGives(r, k, example) {
				t.Errorf("%s: %s %s gives %s: %v, want %v", r.pattern, k, example, r.finding, got, want)
			}
		}
	}
}

// otherRuleGives reports whether another rule gives the same finding for the access, so that
// a kind a rule does not list may still yield its finding.
func otherRuleGives(self pathRule, k call.AccessKind, example string) bool {
	for _, r := range pathRules() {
		if r.pattern != self.pattern && r.finding == self.finding && kindIn(k, r.kinds) && r.glob.Match(example) {
			return true
		}
	}
	return false
}
