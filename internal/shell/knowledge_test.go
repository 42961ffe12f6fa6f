package shell

import (
	"strings"
	"testing"
)

// Every rule of the knowledge table names a catalogued finding, and every rule made only of
// data (no `when` body) is exercised here: a command built from its fields gets its finding,
// and without the option it needs, or with the one it must not have, it does not.
func TestEffectRules(t *testing.T) {
	for prog, rules := range effectRules() {
		for i, r := range rules {
			if r.finding != "" {
				if _, ok := lookupKind(r.finding); !ok {
					t.Errorf("%s rule %d: finding %q is not catalogued", prog, i, r.finding)
				}
			} else if r.when == nil {
				t.Errorf("%s rule %d: neither a finding nor a body that reports one", prog, i)
			}
			if r.when != nil || r.finding == "" {
				continue
			}
			words := []string{prog}
			for _, alts := range r.sub {
				w := strings.Split(alts, "|")[0]
				if w == "*" {
					w = "x"
				}
				words = append(words, w)
			}
			base := append([]string(nil), words...)
			if len(r.anyOf) > 0 {
				words = append(words, optionWord(r.anyOf[0]))
			}
			if r.operand != "" {
				words = append(words, strings.ReplaceAll(r.operand, "*", "x"))
			}
			line := strings.Join(words, " ")
			if !gives(line, r.finding) {
				t.Errorf("%s rule %d: %q does not give %s:\n%s", prog, i, line, r.finding, render(Analyze(line, testEnv)))
			}
			if len(r.noneOf) > 0 {
				if neg := line + " " + optionWord(r.noneOf[0]); gives(neg, r.finding) && !otherEffectRuleGives(prog, i, neg) {
					t.Errorf("%s rule %d: %q gives %s despite %s", prog, i, neg, r.finding, r.noneOf[0])
				}
			}
			if len(r.anyOf) > 0 && r.operand == "" {
				if bare := strings.Join(base, " "); gives(bare, r.finding) && !otherEffectRuleGives(prog, i, bare) {
					t.Errorf("%s rule %d: %q gives %s without %s", prog, i, bare, r.finding, r.anyOf[0])
				}
			}
		}
	}
}

func optionWord(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func gives(line, finding string) bool {
	for _, c := range Analyze(line, testEnv).Commands {
		if hasFinding(c.Findings, finding) {
			return true
		}
	}
	return false
}

// otherEffectRuleGives reports whether a rule of the program other than the i-th, or a
// rule body, may give the finding for the line (git push -d and git push --mirror share
// findings with other rules).
func otherEffectRuleGives(prog string, i int, line string) bool {
	for j, r := range effectRules()[prog] {
		if j != i && (r.finding == effectRules()[prog][i].finding || r.when != nil) {
			return true
		}
	}
	return false
}
