package findings

import (
	"regexp"
	"slices"
	"testing"
)

// noTechnique lists the kinds no ATT&CK or ATLAS technique fits: they say that moat
// could not look, not what an attacker did.
var noTechnique = []string{"input.too-large"}

func TestComplianceCoversEveryKind(t *testing.T) {
	attack := regexp.MustCompile(`^T\d{4}(\.\d{3})?$`)
	atlas := regexp.MustCompile(`^AML\.T\d{4}(\.\d{3})?$`)
	for _, k := range Kinds() {
		m, ok := Compliance(k.ID)
		if !ok {
			t.Errorf("%s: no mapping", k.ID)
			continue
		}
		if len(m.OWASP) == 0 {
			t.Errorf("%s (category %s): no OWASP LLM entry", k.ID, k.Category)
		}
		for _, id := range m.OWASP {
			if OWASPName(id) == "" {
				t.Errorf("%s: unknown OWASP LLM id %q", k.ID, id)
			}
		}
		for _, id := range m.ATTACK {
			if !attack.MatchString(id) {
				t.Errorf("%s: malformed ATT&CK id %q", k.ID, id)
			}
		}
		for _, id := range m.ATLAS {
			if !atlas.MatchString(id) {
				t.Errorf("%s: malformed ATLAS id %q", k.ID, id)
			}
		}
		if len(m.ATTACK)+len(m.ATLAS) == 0 && !slices.Contains(noTechnique, k.ID) {
			t.Errorf("%s: no ATT&CK or ATLAS technique", k.ID)
		}
		if k.Taxonomy != "" && !slices.Contains(m.ATTACK, k.Taxonomy) && !slices.Contains(m.ATLAS, k.Taxonomy) {
			t.Errorf("%s: mapping %+v leaves out its taxonomy %s", k.ID, m, k.Taxonomy)
		}
	}
}

func TestComplianceTablesNameDeclaredKinds(t *testing.T) {
	categories := map[string]bool{}
	for _, k := range Kinds() {
		categories[k.Category] = true
	}
	for c := range owaspByCategory {
		if !categories[c] {
			t.Errorf("owaspByCategory: no kind has category %q", c)
		}
	}
	for id := range extraByID {
		if _, ok := Lookup(id); !ok {
			t.Errorf("extraByID: %q is not a declared kind", id)
		}
	}
	if _, ok := Compliance("not.catalogued"); ok {
		t.Error("Compliance of an undeclared id: ok")
	}
}

func TestComplianceExamples(t *testing.T) {
	tests := []struct {
		id   string
		want Mapping
	}{
		{"injection.instruction-override", Mapping{OWASP: []string{"LLM01"}, ATLAS: []string{"AML.T0051"}}},
		{"injection.secret-request", Mapping{OWASP: []string{"LLM01", "LLM02", "LLM07"}, ATLAS: []string{"AML.T0051", "AML.T0057"}}},
		{"destructive.fs.recursive-delete", Mapping{OWASP: []string{"LLM06"}, ATTACK: []string{"T1485"}}},
		{"destructive.fork-bomb", Mapping{OWASP: []string{"LLM06", "LLM10"}, ATTACK: []string{"T1499"}}},
		{"secret.private-key", Mapping{OWASP: []string{"LLM02", "LLM06"}, ATTACK: []string{"T1552.004"}}},
		{"supply-chain.lookalike-name", Mapping{OWASP: []string{"LLM03"}, ATTACK: []string{"T1195.002"}}},
		{"rce.pipe-to-shell", Mapping{OWASP: []string{"LLM05", "LLM06"}, ATTACK: []string{"T1059", "T1105"}}},
	}
	for _, tt := range tests {
		got, _ := Compliance(tt.id)
		if !slices.Equal(got.OWASP, tt.want.OWASP) || !slices.Equal(got.ATTACK, tt.want.ATTACK) || !slices.Equal(got.ATLAS, tt.want.ATLAS) {
			t.Errorf("Compliance(%s) = %+v, want %+v", tt.id, got, tt.want)
		}
	}
}
