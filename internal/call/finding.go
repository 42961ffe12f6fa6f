package call

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

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

// NewFinding returns a finding of the catalogued kind id with the given evidence. An id
// missing from the catalog still yields a finding (analysis must never lose one), graded
// high so that it cannot pass unnoticed; a test keeps every analyzer's ids catalogued.
func NewFinding(id, evidence string) Finding {
	k, ok := LookupFinding(id)
	if !ok {
		return Finding{ID: id, Category: "uncatalogued", Severity: High, Evidence: evidence}
	}
	return Finding{ID: k.ID, Category: k.Category, Severity: k.Severity, Taxonomy: k.Taxonomy, Evidence: evidence}
}

// LookupFinding returns the catalogued kind of id.
func LookupFinding(id string) (FindingKind, bool) {
	i, ok := slices.BinarySearchFunc(FindingKinds, id, func(k FindingKind, id string) int {
		switch {
		case k.ID < id:
			return -1
		case k.ID > id:
			return 1
		}
		return 0
	})
	if !ok {
		return FindingKind{}, false
	}
	return FindingKinds[i], true
}

// MatchFindingIDs returns the catalogued ids that the glob pattern matches ("destructive.*").
func MatchFindingIDs(pattern string) ([]string, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, fmt.Errorf("invalid finding pattern %q: %w", pattern, err)
	}
	if !strings.ContainsAny(pattern, `*?[\`) {
		// Most rules name findings exactly: a lookup, not a match against every kind.
		if _, ok := LookupFinding(pattern); ok {
			return []string{pattern}, nil
		}
		return nil, nil
	}
	var ids []string
	for _, k := range FindingKinds {
		if ok, _ := path.Match(pattern, k.ID); ok {
			ids = append(ids, k.ID)
		}
	}
	return ids, nil
}
