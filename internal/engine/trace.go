package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// Trace records how a decision was reached: each unit of the call, each rule tried on it and
// why it matched or not, and the findings.
type Trace struct {
	Call   string `json:"call"`
	Policy string `json:"policy"`
	// Layers are the policies that decide together, highest first; nil when one does.
	Layers   []LayerTrace  `json:"layers,omitempty"`
	Units    []UnitTrace   `json:"units"`
	Decision call.Decision `json:"-"`
}

// UnitTrace is the part of a trace about one unit.
type UnitTrace struct {
	Label    string         `json:"unit"`
	Accesses []call.Access  `json:"accesses,omitempty"`
	Opaque   bool           `json:"opaque,omitempty"`
	Findings []call.Finding `json:"findings,omitempty"`
	// Skipped counts the policy's rules not tried because they cannot match this class.
	Skipped int          `json:"skipped"`
	Tried   []RuleTrace  `json:"tried"`
	Verdict call.Verdict `json:"decision"`
	Rule    string       `json:"rule"`
	// Layers, under a combined policy, say what each layer decided; Layer is the one
	// whose decision stands.
	Layers []LayerTrace `json:"layers,omitempty"`
	Layer  string       `json:"decided_by,omitempty"`
}

// RuleTrace is one rule tried on a unit.
type RuleTrace struct {
	ID      string         `json:"id"`
	Origin  string         `json:"origin"`
	Line    int            `json:"line"`
	Matched bool           `json:"matched"`
	Checks  []policy.Check `json:"checks"`
	// Limit is the counter of a rule with a limit whose conditions held.
	Limit *LimitTrace `json:"limit,omitempty"`
}

// nearMisses is how many of the rules that did not match the concise trace shows.
const nearMisses = 3

// WriteText renders the whole trace for a terminal: every rule tried, condition by
// condition. redact is applied to every line, since the trace quotes arguments that may
// hold secrets.
func (t *Trace) WriteText(w io.Writer, redact func(string) string) error {
	return t.write(w, redact, true)
}

// WriteConcise is WriteText with, of the rules that did not match, only the nearest
// misses: those that got furthest (most conditions held before one failed), at most
// nearMisses of them; the rules that matched are all shown.
func (t *Trace) WriteConcise(w io.Writer, redact func(string) string) error {
	return t.write(w, redact, false)
}

func (t *Trace) write(w io.Writer, redact func(string) string, verbose bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "call:   %s\n", t.Call)
	fmt.Fprintf(&b, "policy: %s\n", t.Policy)
	for _, l := range t.Layers {
		fmt.Fprintf(&b, "layer:  %-8s %s\n", l.Kind, l.Source)
	}
	for _, u := range t.Units {
		fmt.Fprintf(&b, "\n%s\n", u.Label)
		for _, a := range u.Accesses {
			fmt.Fprintf(&b, "  touches  %s\n", a)
		}
		if u.Opaque {
			fmt.Fprintf(&b, "  touches  possibly more than moat can see\n")
		}
		for _, f := range u.Findings {
			fmt.Fprintf(&b, "  finding  %s (%s, %s) %s\n", f.ID, f.Category, f.Severity, f.Evidence)
		}
		if u.Skipped > 0 {
			fmt.Fprintf(&b, "  (%d rules skipped: they cannot match this kind of call)\n", u.Skipped)
		}
		shown, hidden := u.Tried, 0
		if !verbose {
			shown, hidden = u.nearest(nearMisses)
		}
		for _, r := range shown {
			mark := "no "
			if r.Matched {
				mark = "YES"
			}
			fmt.Fprintf(&b, "  %s  %s  (%s:%d)\n", mark, r.ID, r.Origin, r.Line)
			for _, c := range r.Checks {
				held := "✗"
				if c.Held {
					held = "✓"
				}
				fmt.Fprintf(&b, "         %s %s: %s\n", held, c.Condition, c.Detail)
			}
		}
		if hidden > 0 {
			fmt.Fprintf(&b, "  (%d more %s tried did not match; -v shows every rule)\n", hidden, plural(hidden, "rule", "rules"))
		}
		for _, l := range u.Layers {
			if l.Abstained {
				fmt.Fprintf(&b, "  layer %-8s %s: no rule matched\n", l.Kind, l.Source)
				continue
			}
			fmt.Fprintf(&b, "  layer %-8s %s: %s (%s)\n", l.Kind, l.Source, l.Verdict, l.Rule)
		}
		if u.Rule == call.RuleDefault {
			fmt.Fprintf(&b, "  no rule matched: default %s\n", u.Verdict)
		}
		if u.Layer != "" {
			fmt.Fprintf(&b, "  decided by the %s layer\n", u.Layer)
		}
		if u.guarded() && !strings.HasPrefix(u.Rule, policy.SelfProtectionPrefix) {
			fmt.Fprintf(&b, "  (self-protection denies this too; the policy's own deny gives the reason)\n")
		}
		fmt.Fprintf(&b, "  => %s (%s)\n", u.Verdict, u.Rule)
	}
	d := t.Decision
	fmt.Fprintf(&b, "\ndecision: %s  rule: %s  latency: %s\n", d.Verdict, d.Rule, d.Latency)
	if d.Policy != "" {
		fmt.Fprintf(&b, "decided by: %s\n", d.Policy)
	}
	if d.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", d.Reason)
	}
	out := b.String()
	if redact != nil {
		out = redact(out)
	}
	_, err := io.WriteString(w, out)
	return err
}

// guarded reports whether a self-protection rule matched the unit.
func (u *UnitTrace) guarded() bool {
	for _, r := range u.Tried {
		if r.Matched && strings.HasPrefix(r.ID, policy.SelfProtectionPrefix) {
			return true
		}
	}
	return false
}

// nearest is the rules of the unit to show in a concise trace, in the order they were
// tried: every rule that matched, and of the others the n that held the most conditions
// (at least one); hidden counts the rest.
func (u *UnitTrace) nearest(n int) (shown []RuleTrace, hidden int) {
	held := func(r RuleTrace) int {
		k := 0
		for _, c := range r.Checks {
			if c.Held {
				k++
			}
		}
		return k
	}
	var misses []int
	for i, r := range u.Tried {
		if !r.Matched && held(r) > 0 {
			misses = append(misses, i)
		}
	}
	// The furthest first; among equals, the earliest tried.
	slices.SortStableFunc(misses, func(a, b int) int { return held(u.Tried[b]) - held(u.Tried[a]) })
	keep := make(map[int]bool)
	for _, i := range misses[:min(n, len(misses))] {
		keep[i] = true
	}
	for i, r := range u.Tried {
		if r.Matched || keep[i] {
			shown = append(shown, r)
		} else {
			hidden++
		}
	}
	return shown, hidden
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
