package engine

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/policy"
)

func TestNearestMisses(t *testing.T) {
	checks := func(held int, failed bool) []policy.Check {
		var cs []policy.Check
		for range held {
			cs = append(cs, policy.Check{Condition: "c", Held: true})
		}
		if failed {
			cs = append(cs, policy.Check{Condition: "c", Held: false})
		}
		return cs
	}
	u := UnitTrace{Tried: []RuleTrace{
		{ID: "none-held", Checks: checks(0, true)},
		{ID: "one-held", Checks: checks(1, true)},
		{ID: "two-held", Checks: checks(2, true)},
		{ID: "one-held-later", Checks: checks(1, true)},
		{ID: "three-held", Checks: checks(3, true)},
		{ID: "one-held-last", Checks: checks(1, true)},
		{ID: "matched", Matched: true, Checks: checks(1, false)},
	}}
	shown, hidden := u.nearest(3)
	var ids []string
	for _, r := range shown {
		ids = append(ids, r.ID)
	}
	// The three furthest misses and the match, in the order tried; the rest counted.
	if got, want := strings.Join(ids, " "), "one-held two-held three-held matched"; got != want || hidden != 3 {
		t.Errorf("shown %q, hidden %d; want %q and 3", got, hidden, want)
	}

	var concise, full strings.Builder
	tr := &Trace{Units: []UnitTrace{u}}
	if err := tr.WriteConcise(&concise, nil); err != nil {
		t.Fatal(err)
	}
	if err := tr.WriteText(&full, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(concise.String(), "none-held") || !strings.Contains(concise.String(), "3 more rules tried did not match") {
		t.Errorf("concise trace:\n%s", concise.String())
	}
	if !strings.Contains(full.String(), "none-held") || strings.Contains(full.String(), "more rules tried") {
		t.Errorf("full trace:\n%s", full.String())
	}
}
