package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// optInPacks are the packs no template enables: each covers one kind of tool, for the
// users who run it.
var optInPacks = []string{"cloud", "containers", "databases", "git-hosting", "kubernetes", "publishing", "secrets-managers"}

// TestOptInPacks holds the opt-in packs to what lets them be enabled together and after
// the recommended pack: ids that name their pack (ids are unique across a policy and its
// packs), a reason for every decision, no allow (a pack that allowed could loosen the
// packs after it), and a test that expects each rule and one that expects allow (a near
// miss the rules must leave alone).
func TestOptInPacks(t *testing.T) {
	names := PackNames()
	for _, name := range optInPacks {
		t.Run(name, func(t *testing.T) {
			if !slices.Contains(names, name) {
				t.Fatalf("pack %s is not embedded (packs: %v)", name, names)
			}
			p, err := LoadPack(name, testHost(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if p.Description == "" {
				t.Error("no description")
			}
			tested := map[string]bool{}
			nearMiss := false
			for _, tt := range p.Tests {
				tested[tt.Rule] = true
				nearMiss = nearMiss || tt.Expect == call.Allow
			}
			if !nearMiss {
				t.Error("no test expects allow: add a near miss the rules must leave alone")
			}
			for _, r := range p.Rules {
				if !strings.HasPrefix(r.ID, name+".") {
					t.Errorf("rule %s: id must start with %q", r.ID, name+".")
				}
				if r.Reason == "" {
					t.Errorf("rule %s: no reason", r.ID)
				}
				if r.Decision == call.Allow || r.Decision == call.Audit {
					t.Errorf("rule %s: decision %s; an opt-in pack only asks and denies", r.ID, r.Decision)
				}
				if !tested[r.ID] {
					t.Errorf("rule %s: no test expects it", r.ID)
				}
			}
		})
	}
}

// TestOptInPacksLoadTogether enables every pack at once, in both orders, as a team
// would: their rule ids must not collide.
func TestOptInPacksLoadTogether(t *testing.T) {
	all := append([]string{"recommended"}, optInPacks...)
	for _, packs := range [][]string{all, append(slices.Clone(optInPacks), "recommended")} {
		src := "version: 1\ndefault: allow\npacks: [" + strings.Join(packs, ", ") + "]\n"
		p, err := Load("/proj/moat.yaml", []byte(src), testHost())
		if err != nil {
			t.Fatalf("packs %v: %v", packs, err)
		}
		if len(p.Packs) != len(packs) {
			t.Errorf("packs %v: loaded %v", packs, p.Packs)
		}
	}
}
