package cli

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestFindingsJSONCompliance(t *testing.T) {
	a, stdout, stderr := testApp(t.TempDir())
	if code := Main([]string{"findings", "--json"}, a.env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var kinds []struct {
		ID         string `json:"id"`
		Compliance struct {
			OWASP  []string `json:"owasp_llm"`
			ATTACK []string `json:"attack"`
			ATLAS  []string `json:"atlas"`
		} `json:"compliance"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &kinds); err != nil {
		t.Fatal(err)
	}
	want := map[string][3][]string{
		"injection.instruction-override":  {{"LLM01"}, nil, {"AML.T0051"}},
		"destructive.fs.recursive-delete": {{"LLM06"}, {"T1485"}, nil},
	}
	for _, k := range kinds {
		if len(k.Compliance.OWASP) == 0 {
			t.Errorf("%s: no OWASP LLM entry", k.ID)
		}
		if w, ok := want[k.ID]; ok {
			delete(want, k.ID)
			if !slices.Equal(k.Compliance.OWASP, w[0]) || !slices.Equal(k.Compliance.ATTACK, w[1]) || !slices.Equal(k.Compliance.ATLAS, w[2]) {
				t.Errorf("%s: compliance %+v, want %v", k.ID, k.Compliance, w)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}
