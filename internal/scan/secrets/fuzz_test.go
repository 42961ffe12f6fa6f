package secrets

import (
	"fmt"
	"strings"
	"testing"
)

func FuzzFindSecrets(f *testing.F) {
	for _, c := range LoadCorpus(f) {
		f.Add(c.Input)
	}
	for _, r := range secretRules {
		for _, k := range r.Keywords {
			f.Add(k)
			f.Add("x_" + k + ` = "Vq8nT2xLp4Rz"` + "\n" + k + ":\n  " + k)
		}
	}
	ids := map[string]bool{}
	for _, r := range secretRules {
		ids[r.ID] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		found := Find(s)
		end := 0
		for _, f := range found {
			if f.Start < end || f.Start >= f.End || f.End > len(s) || !ids[f.RuleID] {
				t.Fatalf("bad secrets for %q: %+v", s, found)
			}
			end = f.End
		}
		end = 0
		for _, f := range FindSent(s) {
			if f.Start < end || f.Start >= f.End || f.End > len(s) || !ids[f.RuleID] {
				t.Fatalf("bad sent secrets for %q: %+v", s, FindSent(s))
			}
			end = f.End
		}
		findings := Findings(s, "arg")
		if len(findings) != len(found) {
			t.Fatalf("%d findings for %d secrets", len(findings), len(found))
		}
		for i, f := range found {
			lineStart := strings.LastIndexByte(s[:f.Start], '\n') + 1
			want := fmt.Sprintf("%s at arg:%d:%d", shortID(f.RuleID), strings.Count(s[:f.Start], "\n")+1, f.Start-lineStart+1)
			if findings[i].Evidence != want || findings[i].ID != f.RuleID {
				t.Fatalf("finding %+v, want evidence %q", findings[i], want)
			}
		}
	})
}
