// Package report summarises the decisions of an audit trail over a period, for reviews and compliance: verdicts, findings by framework, top rules, agents and denied calls.
package report

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/logview"
)

// DefaultTop is how many rules, agents and denied calls a report lists.
const DefaultTop = 10

// Report is the summary of the records of a period. Its JSON field names are stable:
// scripts read them.
type Report struct {
	// Since is where the period starts; zero when it covers the whole trail.
	Since time.Time `json:"since,omitzero"`
	// Generated is when the report was made, the period's end.
	Generated time.Time `json:"generated"`
	// First and Last are the times of the earliest and latest records counted.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	// Total counts the records; Failures those of decisions moat could not make (the
	// fail mode answered); WithFindings those that carry at least one finding.
	Total        int `json:"total"`
	Failures     int `json:"failures"`
	WithFindings int `json:"with_findings"`
	// Decisions counts records by verdict, every verdict listed, most restrictive first.
	Decisions []Count `json:"decisions"`
	// The finding counts below count records: a record with two findings of one
	// category counts once for it.
	Categories []Count `json:"finding_categories"`
	Findings   []Count `json:"findings"`
	OWASP      []Count `json:"owasp_llm"`
	ATTACK     []Count `json:"attack"`
	ATLAS      []Count `json:"atlas"`
	// TopRules, TopAgents and TopDenied are the largest counts (the rule that decided,
	// the agent, the denied call as recorded, redacted), at most Top of each.
	TopRules  []Count `json:"top_rules"`
	TopAgents []Count `json:"top_agents"`
	TopDenied []Count `json:"top_denied"`
	// Fleet is the part made across machines (moat report --remote); nil otherwise.
	Fleet *Fleet `json:"fleet,omitempty"`
}

// Count is how many records share one value.
type Count struct {
	ID string `json:"id"`
	// Name is the value's title where it has one (OWASP entries).
	Name  string `json:"name,omitempty"`
	Count int    `json:"count"`
}

// Builder counts records into a Report. Its zero value is not usable: use NewBuilder.
type Builder struct {
	top  int
	rep  Report
	dec  map[call.Verdict]int
	fc   [findingCounts]map[string]int
	rule map[string]int
	agt  map[string]int
	deny map[string]int
}

// The counts of findings a Builder keeps, by what they count records by.
const (
	byCategory = iota
	byID
	byOWASP
	byATTACK
	byATLAS
	findingCounts
)

// NewBuilder returns a Builder for the period from since (zero: the whole trail) that
// lists the top largest counts of rules, agents and denied calls (DefaultTop when ≤ 0).
func NewBuilder(since time.Time, top int) *Builder {
	if top <= 0 {
		top = DefaultTop
	}
	b := &Builder{
		top: top, rep: Report{Since: since}, dec: map[call.Verdict]int{},
		rule: map[string]int{}, agt: map[string]int{}, deny: map[string]int{},
	}
	for i := range b.fc {
		b.fc[i] = map[string]int{}
	}
	return b
}

// Add counts r; a record before the period's start is left out.
func (b *Builder) Add(r audit.Record) {
	if !b.rep.Since.IsZero() && r.Time.Before(b.rep.Since) {
		return
	}
	b.rep.Total++
	if b.rep.First.IsZero() || r.Time.Before(b.rep.First) {
		b.rep.First = r.Time
	}
	if r.Time.After(b.rep.Last) {
		b.rep.Last = r.Time
	}
	if r.Failure {
		b.rep.Failures++
	}
	b.dec[r.Decision]++
	if r.Rule != "" {
		b.rule[r.Rule]++
	}
	agent := r.Agent
	if agent == "" {
		agent = "-"
	}
	b.agt[agent]++
	if r.Decision == call.Deny {
		b.deny[logview.CallSummary(r)]++
	}
	if len(r.Findings) == 0 {
		return
	}
	b.rep.WithFindings++
	type counted struct {
		by  int
		key string
	}
	seen := map[counted]bool{}
	once := func(by int, key string) {
		if c := (counted{by, key}); !seen[c] {
			seen[c] = true
			b.fc[by][key]++
		}
	}
	for _, f := range r.Findings {
		once(byCategory, f.Category)
		once(byID, f.ID)
		m, ok := findings.Compliance(f.ID)
		if !ok {
			// A kind this moat no longer declares: its recorded taxonomy still places it.
			switch {
			case strings.HasPrefix(f.Taxonomy, "AML."):
				m.ATLAS = []string{f.Taxonomy}
			case f.Taxonomy != "":
				m.ATTACK = []string{f.Taxonomy}
			}
		}
		for by, ids := range map[int][]string{byOWASP: m.OWASP, byATTACK: m.ATTACK, byATLAS: m.ATLAS} {
			for _, id := range ids {
				once(by, id)
			}
		}
	}
}

// Report returns the summary of what was added, made at now.
func (b *Builder) Report(now time.Time) Report {
	rep := b.rep
	rep.Generated = now
	rep.Decisions = nil
	for _, v := range []call.Verdict{call.Deny, call.Ask, call.Audit, call.Allow} {
		rep.Decisions = append(rep.Decisions, Count{ID: v.String(), Count: b.dec[v]})
	}
	rep.Categories = sorted(b.fc[byCategory], 0)
	rep.Findings = sorted(b.fc[byID], 0)
	rep.OWASP = sorted(b.fc[byOWASP], 0)
	for i := range rep.OWASP {
		rep.OWASP[i].Name = findings.OWASPName(rep.OWASP[i].ID)
	}
	rep.ATTACK = sorted(b.fc[byATTACK], 0)
	rep.ATLAS = sorted(b.fc[byATLAS], 0)
	rep.TopRules = sorted(b.rule, b.top)
	rep.TopAgents = sorted(b.agt, b.top)
	rep.TopDenied = sorted(b.deny, b.top)
	return rep
}

// sorted lists m largest first, ids breaking ties, cut to top entries when top > 0.
func sorted(m map[string]int, top int) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{ID: k, Count: n})
	}
	slices.SortFunc(out, func(a, b Count) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.ID, b.ID))
	})
	if top > 0 && len(out) > top {
		out = out[:top]
	}
	return out
}
