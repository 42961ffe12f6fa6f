package scan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// SecretRule describes one kind of secret: how to recognise it and how to tell it from
// look-alikes. The rules are data (see secretRules); the matcher that runs them is shared.
type SecretRule struct {
	ID          string // finding id, e.g. "secret.aws-access-key-id"
	Description string
	// Pattern matches the secret. The value is the first participating capture group
	// named "secret", or the whole match; a group named "name" holds the key the value is
	// assigned to, for rules that match assignments.
	Pattern *Pattern
	// Keywords are lower-case strings one of which must occur (in any ASCII case) for the
	// rule to run, and Pattern only runs near their occurrences. A rule with no keywords
	// and no LinesWhere runs on the whole text.
	Keywords []string
	// Before and After bound the text around a keyword occurrence that Pattern sees: at
	// most Before bytes before it, never reaching back past its line, and at most After
	// bytes after it, crossing at most Lines line breaks (any number if Lines < 0).
	Before, After, Lines int
	// AtName, for rules whose keywords are part of a key name, starts the text Pattern sees
	// where that name starts (at most Before bytes back) and tries Pattern only there; such
	// patterns begin with ^. It spares the patterns of assignments a search of each line.
	AtName     bool
	MinLength  int     // bytes the secret must have
	MinEntropy float64 // Shannon entropy (bits per byte) the secret must reach; 0 = none
	// Hit, when set, vets a keyword occurrence s[start:end] cheaply before Pattern runs.
	Hit func(s string, start, end int) bool
	// LinesWhere, when set, replaces keywords: Pattern runs on each line it accepts.
	LinesWhere func(line string) bool
	// Verify, when set, makes the final decision on a value that passed the length,
	// placeholder and entropy checks.
	Verify func(Candidate) bool
}

// Candidate is a value a rule's pattern matched, as the rule's Verify sees it.
type Candidate struct {
	Value string // the would-be secret
	Name  string // the key it is assigned to: the pattern's "name" group, or ""
	// Quoted reports whether the value is enclosed in quotes, and Next is the byte after
	// it (0 at the end of the text): together they tell a literal from a reference in code.
	Quoted bool
	Next   byte
}

// Secret is one secret found in a text.
type Secret struct {
	RuleID     string
	Start, End int // byte offsets of the secret value in the text
}

// detector holds a rule table and the keyword index over it.
type detector struct {
	rules     []*SecretRule
	index     *keywordIndex
	wordRules [][]int // keyword number → rules that use it
	always    []int   // rules without keywords or line selector
	lineRules []int   // rules with a line selector
}

// newDetector indexes the rules' keywords. It compiles no pattern: find does, for the
// rules a text gives something to search.
func newDetector(rules []SecretRule) *detector {
	d := &detector{}
	wordNum := map[string]int{}
	var words []string
	for i := range rules {
		r := &rules[i]
		d.rules = append(d.rules, r)
		switch {
		case r.LinesWhere != nil:
			d.lineRules = append(d.lineRules, i)
		case len(r.Keywords) == 0:
			d.always = append(d.always, i)
		}
		if r.LinesWhere != nil {
			continue
		}
		for _, k := range r.Keywords {
			n, ok := wordNum[k]
			if !ok {
				n = len(words)
				wordNum[k] = n
				words = append(words, k)
				d.wordRules = append(d.wordRules, nil)
			}
			d.wordRules[n] = append(d.wordRules[n], i)
		}
	}
	d.index = newKeywordIndex(words)
	return d
}

// builtin is the detector over the built-in rule table, built on first use: a hook
// process that never looks for secrets does not pay for the keyword automaton.
var builtin = sync.OnceValue(func() *detector { return newDetector(secretRules) })

// SecretRules returns a copy of the built-in secret rules, most specific first: when two
// rules match overlapping text, the earlier one wins.
func SecretRules() []SecretRule {
	rules := slices.Clone(secretRules)
	for i := range rules {
		rules[i].Keywords = slices.Clone(rules[i].Keywords)
	}
	return rules
}

// span is a byte range [lo, hi) of the text.
type span struct{ lo, hi int }

// ruleWindow is a window of the text that the rule numbered rule searches.
type ruleWindow struct {
	rule int
	w    span
}

// FindSecrets returns the secrets in s, sorted by Start and never overlapping: where two
// rules match overlapping text, the more specific rule's secret is kept. It is safe for
// concurrent use, and its time grows linearly with len(s).
func FindSecrets(s string) []Secret {
	return builtin().find(s)
}

func (d *detector) find(s string) []Secret {
	if s == "" {
		return nil
	}
	// The windows are gathered as (rule, window) pairs rather than one list per rule: a
	// shell command gives a handful of rules something to search, and a list per rule
	// allocated for every text cost more than the search.
	var buf [16]ruleWindow
	hits := buf[:0]
	for _, h := range d.index.find(s, nil) {
		end := h.start + len(d.index.words[h.word])
		for _, ri := range d.wordRules[h.word] {
			r := d.rules[ri]
			if r.Hit != nil && !r.Hit(s, h.start, end) {
				continue
			}
			w := window(s, h.start, end, r.Before, r.After, r.Lines)
			if r.AtName {
				w.lo = nameStart(s, h.start, w.lo)
			}
			hits = append(hits, ruleWindow{ri, w})
		}
	}
	for _, ri := range d.always {
		hits = append(hits, ruleWindow{ri, span{0, len(s)}})
	}
	for _, ri := range d.lineRules {
		for _, w := range selectLines(s, d.rules[ri].LinesWhere) {
			hits = append(hits, ruleWindow{ri, w})
		}
	}
	// Rules are tried in table order, each over its windows in the order found.
	slices.SortStableFunc(hits, func(a, b ruleWindow) int { return cmp.Compare(a.rule, b.rule) })

	var found []Secret
	var ws []span
	for i := 0; i < len(hits); {
		ri := hits[i].rule
		ws = ws[:0]
		for ; i < len(hits) && hits[i].rule == ri; i++ {
			ws = append(ws, hits[i].w)
		}
		// The first text that gives a rule something to search compiles its pattern; a
		// plain shell command gives most rules nothing.
		r := compiledRule{d.rules[ri], d.rules[ri].Pattern.compiled()}
		var cands []Secret
		if r.AtName {
			cands = r.matchAt(s, uniqueStarts(ws), cands)
		} else {
			for _, w := range mergeSpans(ws) {
				cands = r.match(s, w, cands)
			}
		}
		slices.SortStableFunc(cands, func(a, b Secret) int { return cmp.Compare(a.Start, b.Start) })
		found = keepNonOverlapping(found, cands)
	}
	return found
}

// window returns the text around a keyword occurrence s[start:end] that a rule's pattern sees.
func window(s string, start, end, before, after, lines int) span {
	lo := max(0, start-before)
	if i := strings.LastIndexByte(s[lo:start], '\n'); i >= 0 {
		lo += i + 1
	}
	hi := min(len(s), end+after)
	for i, n := end, 0; lines >= 0 && i < hi; n++ {
		j := strings.IndexByte(s[i:hi], '\n')
		if j < 0 {
			break
		}
		if n >= lines {
			hi = i + j
			break
		}
		i += j + 1
	}
	return span{lo, hi}
}

// selectLines returns the lines of s that keep accepts, without their line breaks.
func selectLines(s string, keep func(string) bool) []span {
	var ws []span
	for lo := 0; lo < len(s); {
		hi := strings.IndexByte(s[lo:], '\n')
		if hi < 0 {
			hi = len(s)
		} else {
			hi += lo
		}
		if keep(s[lo:hi]) {
			ws = append(ws, span{lo, hi})
		}
		lo = hi + 1
	}
	return ws
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(ws []span) []span {
	slices.SortFunc(ws, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	out := ws[:1]
	for _, w := range ws[1:] {
		last := &out[len(out)-1]
		if w.lo <= last.hi {
			last.hi = max(last.hi, w.hi)
			continue
		}
		out = append(out, w)
	}
	return out
}

// nameStart returns where the key name that contains s[start] begins, not before lo.
func nameStart(s string, start, lo int) int {
	for start > lo && (isNameByte(s[start-1]) || s[start-1] == '$') {
		start--
	}
	return start
}

// uniqueStarts sorts windows by start and joins those that start at the same byte (the
// hits of several keywords in one name) into the longest of them.
func uniqueStarts(ws []span) []span {
	slices.SortFunc(ws, func(a, b span) int { return cmp.Or(cmp.Compare(a.lo, b.lo), cmp.Compare(b.hi, a.hi)) })
	return slices.CompactFunc(ws, func(a, b span) bool { return a.lo == b.lo })
}

// compiledRule is a rule with its pattern compiled.
type compiledRule struct {
	*SecretRule
	*compiledPattern
}

// matchAt appends to found the secrets the rule's anchored pattern accepts at the starts
// of windows, which are sorted. A window that starts inside the value of the previous
// match is skipped: it would only see the rest of a value already judged.
func (r compiledRule) matchAt(s string, ws []span, found []Secret) []Secret {
	var valueLo, valueHi int
	for _, w := range ws {
		if valueLo <= w.lo && w.lo < valueHi {
			continue
		}
		text := s[w.lo:w.hi]
		m := r.re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		a, b := group(m, r.secretGroups, m[0], m[1])
		valueLo, valueHi = w.lo+a, w.lo+b
		found = r.keep(text, w.lo, m, found)
	}
	return found
}

// match appends to found the secrets the rule accepts in window w of s.
func (r compiledRule) match(s string, w span, found []Secret) []Secret {
	text := s[w.lo:w.hi]
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		found = r.keep(text, w.lo, m, found)
	}
	return found
}

// keep appends to found the secret of match m in text (which starts at byte off of the
// scanned string), if the rule accepts it.
func (r compiledRule) keep(text string, off int, m []int, found []Secret) []Secret {
	a, b := group(m, r.secretGroups, m[0], m[1])
	if a >= b {
		return found
	}
	c := Candidate{Value: text[a:b]}
	if na, nb := group(m, r.nameGroups, -1, -1); na >= 0 {
		c.Name = text[na:nb]
	}
	if a > 0 {
		c.Quoted = strings.IndexByte("\"'`", text[a-1]) >= 0
	}
	if b < len(text) {
		c.Next = text[b]
	}
	if !r.accept(c) {
		return found
	}
	return append(found, Secret{RuleID: r.ID, Start: off + a, End: off + b})
}

// group returns the span of the first participating group of groups in the match m, or
// the fallback.
func group(m, groups []int, lo, hi int) (int, int) {
	for _, g := range groups {
		if m[2*g] >= 0 {
			return m[2*g], m[2*g+1]
		}
	}
	return lo, hi
}

// accept applies the rule's checks to a candidate value.
func (r compiledRule) accept(c Candidate) bool {
	switch {
	case len(c.Value) < r.MinLength, isPlaceholder(c.Value):
		return false
	case r.MinEntropy > 0 && entropy(c.Value) < r.MinEntropy:
		return false
	case r.Verify != nil && !r.Verify(c):
		return false
	}
	return true
}

// keepNonOverlapping merges into kept (sorted, non-overlapping) the candidates (sorted by
// start, from a less specific rule) that overlap nothing already kept nor an earlier
// candidate.
func keepNonOverlapping(kept, cands []Secret) []Secret {
	if len(cands) == 0 {
		return kept
	}
	out := make([]Secret, 0, len(kept)+len(cands))
	i := 0
	for _, c := range cands {
		for i < len(kept) && kept[i].End <= c.Start {
			out = append(out, kept[i])
			i++
		}
		if i < len(kept) && kept[i].Start < c.End {
			continue // overlaps a secret of a more specific rule
		}
		if n := len(out); n > 0 && out[n-1].End > c.Start {
			continue
		}
		out = append(out, c)
	}
	return append(out, kept[i:]...)
}

// shortID is a rule id without its "secret." prefix, as masks and evidence show it.
func shortID(id string) string { return strings.TrimPrefix(id, "secret.") }

// Redact returns s with the value of every secret FindSecrets reports replaced by a mask
// naming its kind, "[REDACTED:aws-access-key-id]"; every other byte is left as it was.
func Redact(s string) string {
	found := FindSecrets(s)
	if len(found) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, f := range found {
		b.WriteString(s[prev:f.Start])
		b.WriteString("[REDACTED:")
		b.WriteString(shortID(f.RuleID))
		b.WriteString("]")
		prev = f.End
	}
	b.WriteString(s[prev:])
	return b.String()
}

// Redactor redacts secrets from the strings given to it; the zero value is ready to use.
type Redactor struct{}

// RedactString returns s with its secrets masked, as Redact does.
func (Redactor) RedactString(s string) string { return Redact(s) }

// SecretValues returns the values of the secrets in s, so that a record can mask them
// wherever else they appear.
func (Redactor) SecretValues(s string) []string {
	found := FindSecrets(s)
	values := make([]string, len(found))
	for i, f := range found {
		values[i] = s[f.Start:f.End]
	}
	return values
}

// SecretFindings returns one finding per secret in s, the text of the argument named
// where. The evidence names the kind and position, "aws-access-key-id at content:12:5"
// (line and byte column, from 1), and never the value.
func SecretFindings(s, where string) []call.Finding {
	found := FindSecrets(s)
	if len(found) == 0 {
		return nil
	}
	findings := make([]call.Finding, 0, len(found))
	line, lineStart, pos := 1, 0, 0
	for _, f := range found {
		for pos < f.Start {
			i := strings.IndexByte(s[pos:f.Start], '\n')
			if i < 0 {
				break
			}
			pos += i + 1
			line++
			lineStart = pos
		}
		pos = f.Start
		at := fmt.Sprintf("%d:%d", line, f.Start-lineStart+1)
		if where != "" {
			at = where + ":" + at
		}
		findings = append(findings, call.NewFinding(f.RuleID, shortID(f.RuleID)+" at "+at))
	}
	return findings
}
