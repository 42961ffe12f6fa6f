package findings

import (
	"slices"
	"strings"
)

// Mapping places a finding kind in the frameworks compliance reports are written
// against: the OWASP Top 10 for LLM Applications (2025), MITRE ATT&CK and MITRE ATLAS.
type Mapping struct {
	// OWASP holds the OWASP Top 10 for LLM Applications 2025 ids (LLM01…LLM10).
	OWASP []string `json:"owasp_llm"`
	// ATTACK holds MITRE ATT&CK technique ids (T1485, T1552.001).
	ATTACK []string `json:"attack,omitempty"`
	// ATLAS holds MITRE ATLAS technique ids (AML.T0051).
	ATLAS []string `json:"atlas,omitempty"`
}

// OWASPName returns the title of the OWASP Top 10 for LLM Applications 2025 entry id
// ("Prompt Injection" for LLM01), or "" for an id it does not have.
func OWASPName(id string) string { return owaspNames[id] }

var owaspNames = map[string]string{
	"LLM01": "Prompt Injection",
	"LLM02": "Sensitive Information Disclosure",
	"LLM03": "Supply Chain",
	"LLM04": "Data and Model Poisoning",
	"LLM05": "Improper Output Handling",
	"LLM06": "Excessive Agency",
	"LLM07": "System Prompt Leakage",
	"LLM08": "Vector and Embedding Weaknesses",
	"LLM09": "Misinformation",
	"LLM10": "Unbounded Consumption",
}

// owaspByCategory is the OWASP LLM entries a finding of each category is evidence of.
// Every call moat judges is an agent acting with tools, so what it could do beyond what
// the user meant is Excessive Agency (LLM06); the categories add what they are about.
var owaspByCategory = map[string][]string{
	"analysis":       {"LLM06"},
	"credentials":    {"LLM02", "LLM06"},
	"destructive":    {"LLM06"},
	"evasion":        {"LLM06"},
	"execution":      {"LLM05", "LLM06"}, // model output run by a shell unreviewed
	"exfiltration":   {"LLM02", "LLM06"},
	"injection":      {"LLM01"},
	"network":        {"LLM06"},
	"persistence":    {"LLM06"},
	"privilege":      {"LLM06"},
	"reconnaissance": {"LLM06"},
	"supply-chain":   {"LLM03"},
	"tamper":         {"LLM06"},
}

// extraByID adds, to single kinds, the entries their category does not imply. The
// kind's own Taxonomy (one ATT&CK or ATLAS id, declared beside the analyser) is always
// part of its mapping and is not repeated here.
var extraByID = map[string]Mapping{
	"destructive.fork-bomb":    {OWASP: []string{"LLM10"}},
	"destructive.cryptomining": {OWASP: []string{"LLM10"}},
	"injection.exfiltration":   {OWASP: []string{"LLM02"}, ATLAS: []string{"AML.T0057"}},
	"injection.secret-request": {OWASP: []string{"LLM02", "LLM07"}, ATLAS: []string{"AML.T0057"}},
	"injection.file-coercion":  {OWASP: []string{"LLM02"}, ATTACK: []string{"T1552.001"}},
	"injection.safety-bypass":  {ATLAS: []string{"AML.T0051"}},
	"unicode.tag-characters":   {OWASP: []string{"LLM01"}, ATLAS: []string{"AML.T0051"}},
	"mcp.hidden-text":          {ATLAS: []string{"AML.T0051.001"}},
	"mcp.tool-changed":         {ATLAS: []string{"AML.T0010"}},
	"exfiltration.network":     {ATTACK: []string{"T1041"}},
	"rce.download-exec":        {ATTACK: []string{"T1059"}},
	"rce.pipe-to-shell":        {ATTACK: []string{"T1105"}},
}

// Compliance returns the mapping of the catalogued kind id; false when no analyser
// declares id.
func Compliance(id string) (Mapping, bool) {
	k, ok := Lookup(id)
	if !ok {
		return Mapping{}, false
	}
	var m Mapping
	m.OWASP = slices.Clone(owaspByCategory[k.Category])
	switch {
	case strings.HasPrefix(k.Taxonomy, "AML."):
		m.ATLAS = []string{k.Taxonomy}
	case k.Taxonomy != "":
		m.ATTACK = []string{k.Taxonomy}
	}
	if x, ok := extraByID[id]; ok {
		m.OWASP = append(m.OWASP, x.OWASP...)
		m.ATTACK = append(m.ATTACK, x.ATTACK...)
		m.ATLAS = append(m.ATLAS, x.ATLAS...)
	}
	for _, ids := range []*[]string{&m.OWASP, &m.ATTACK, &m.ATLAS} {
		slices.Sort(*ids)
		*ids = slices.Compact(*ids)
	}
	return m, true
}
