package policy

import (
	"strings"
	"testing"
)

func TestShadowed(t *testing.T) {
	for _, tt := range []struct {
		name  string
		rules string
		want  []string // "later<-earlier"
	}{
		{"same command, earlier wins", `
  - {id: a, command: "git push", decision: ask}
  - {id: b, command: "git push", decision: deny}`, []string{"b<-a"}},
		{"earlier has more patterns", `
  - {id: a, command: ["git push", "git push --force"], decision: ask}
  - {id: b, command: "git push --force", decision: deny}`, []string{"b<-a"}},
		{"earlier wants fewer conditions", `
  - {id: a, tool: shell, decision: ask}
  - {id: b, tool: shell, command: "rm *", decision: deny}`, []string{"b<-a"}},
		{"earlier for every agent", `
  - {id: a, command: "make", decision: deny}
  - {id: b, agent: codex, command: "make", decision: ask}`, []string{"b<-a"}},
		{"later is wider: not shadowed", `
  - {id: a, command: "git push --force", decision: deny}
  - {id: b, command: ["git push --force", "git push"], decision: ask}`, nil},
		{"earlier has a condition the later lacks", `
  - {id: a, agent: codex, command: "make", decision: deny}
  - {id: b, command: "make", decision: ask}`, nil},
		{"earlier has a limit", `
  - {id: a, tool: shell, limit: 5 per minute, decision: deny}
  - {id: b, tool: shell, decision: ask}`, nil},
		{"allow reads findings otherwise", `
  - {id: a, findings: [destructive.fs.recursive-delete], decision: deny}
  - {id: b, findings: [destructive.fs.recursive-delete], decision: allow}`, nil},
		{"same findings, same reading", `
  - {id: a, findings: [destructive.fs.recursive-delete], decision: deny}
  - {id: b, findings: [destructive.fs.recursive-delete], decision: ask}`, []string{"b<-a"}},
		{"different classes", `
  - {id: a, tool: file.read, decision: ask}
  - {id: b, tool: shell, decision: deny}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc := "version: 1\nrules:" + tt.rules + "\n"
			p, err := Load("/p/moat.yaml", []byte(doc), testHost())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Shadowed() {
				got = append(got, s.Rule.ID+"<-"+s.By.ID)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("shadowed %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPacksAreNotReportedAsShadowed(t *testing.T) {
	doc := "version: 1\npacks: [recommended]\nrules:\n  - {id: mine, tool: shell, decision: ask}\n"
	p, err := Load("/p/moat.yaml", []byte(doc), testHost())
	if err != nil {
		t.Fatal(err)
	}
	if s := p.Shadowed(); len(s) != 0 {
		t.Errorf("a policy overriding its packs is reported: %v", s)
	}
}

// The templates moat writes shadow none of their own rules.
func TestTemplatesShadowNothing(t *testing.T) {
	for _, name := range TemplateNames() {
		data, err := Template(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load("/p/moat.yaml", data, testHost())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range p.Shadowed() {
			t.Errorf("%s: rule %s (line %d) is shadowed by %s (line %d)", name, s.Rule.ID, s.Rule.Line, s.By.ID, s.By.Line)
		}
	}
}
