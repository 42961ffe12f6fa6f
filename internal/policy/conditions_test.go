package policy

import (
	"reflect"
	"testing"
)

func TestRuleConditions(t *testing.T) {
	src := `version: 1
rules:
  - id: every-kind
    agent: [codex]
    tool: [shell]
    command: ["git push ** --force **", {program: [rm], flags: [r]}]
    findings: [secret.*]
    args: {command: {contains: push}}
    paths: {delete: ["~", $workspace]}
    decision: deny
  - id: bare
    decision: allow
`
	p, err := Load("moat.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatal(err)
	}
	want := []Condition{
		{"agent", "codex"},
		{"tool", "shell"},
		{"command", `"git push ** --force **", "program rm flags r"`},
		{"findings", "secret.*"},
		{"args.command", "contains push"},
		{"paths", "delete: ~, $workspace"},
	}
	if got := p.Rules[0].Conditions(); !reflect.DeepEqual(got, want) {
		t.Errorf("Conditions =\n%q\nwant\n%q", got, want)
	}
	if got := p.Rules[1].Conditions(); got != nil {
		t.Errorf("a rule without conditions: %q", got)
	}
	pack, err := LoadPack(DefaultTemplate, testHost(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pack.Rules {
		if len(r.Conditions()) == 0 {
			t.Errorf("pack rule %s shows no condition", r.ID)
		}
	}
}
