package call

import "fmt"

// Severity grades a finding. The zero value is not a severity.
type Severity uint8

// Severities from least to most severe.
const (
	Low Severity = iota + 1
	Medium
	High
	Critical
)

var severityNames = [...]string{Low: "low", Medium: "medium", High: "high", Critical: "critical"}

func (s Severity) String() string {
	if s < Low || s > Critical {
		return fmt.Sprintf("invalid(%d)", uint8(s))
	}
	return severityNames[s]
}

// MarshalText encodes the severity by name.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Low || s > Critical {
		return nil, fmt.Errorf("invalid severity %d", uint8(s))
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	for v := Low; v <= Critical; v++ {
		if severityNames[v] == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("unknown severity %q", b)
}

// Finding is one thing analysis noticed about a call: a recursive delete, a secret, a
// command whose name cannot be known. Policies match findings by ID.
type Finding struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Severity Severity `json:"severity"`
	Taxonomy string   `json:"taxonomy,omitempty"`
	// Evidence says where and what, for a human; it never holds a secret's value.
	Evidence string `json:"evidence,omitempty"`
}

// FindingKind describes one finding id: what it means and how it is classified.
type FindingKind struct {
	ID       string
	Category string
	Severity Severity
	// Taxonomy is the MITRE ATT&CK technique the finding is evidence of, when one fits.
	Taxonomy string
	Summary  string
}

// New returns a finding of kind k with the given evidence.
func (k FindingKind) New(evidence string) Finding {
	return Finding{ID: k.ID, Category: k.Category, Severity: k.Severity, Taxonomy: k.Taxonomy, Evidence: evidence}
}

// FindingKinds is a list of finding kinds: the kinds one analyser declares beside the
// code that reports them (each such package exports its list as Kinds), or the catalogue
// of them all (internal/findings).
type FindingKinds []FindingKind

// Lookup returns the kind of id in ks.
func (ks FindingKinds) Lookup(id string) (FindingKind, bool) {
	for _, k := range ks {
		if k.ID == id {
			return k, true
		}
	}
	return FindingKind{}, false
}

// New returns a finding of the kind id in ks with the given evidence. An id missing from
// ks still yields a finding (analysis must never lose one), graded high so that it cannot
// pass unnoticed; each analyser's tests keep the ids it reports declared.
func (ks FindingKinds) New(id, evidence string) Finding {
	if k, ok := ks.Lookup(id); ok {
		return k.New(evidence)
	}
	return Uncatalogued(id, evidence)
}

// Uncatalogued returns the finding of an id that no list declares: it keeps the id and
// the evidence, and is graded high so that it cannot pass unnoticed.
func Uncatalogued(id, evidence string) Finding {
	return Finding{ID: id, Category: "uncatalogued", Severity: High, Evidence: evidence}
}

// FindTooLarge is the finding of an argument larger than moat analyses, which every
// analyser that reads arguments may report.
const FindTooLarge = "input.too-large"

// InputKinds are the findings about a call's input itself rather than what it would do.
var InputKinds = FindingKinds{
	{ID: FindTooLarge, Category: "analysis", Severity: Medium, Summary: "an argument is larger than moat analyses; it was not inspected in full"},
}
