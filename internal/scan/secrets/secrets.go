package secrets

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan/textmatch"
)

// Rule describes one kind of secret: how to recognise it and how to tell it from
// look-alikes. The rules are data (see secretRules); the matcher that runs them is shared.
type Rule struct {
	ID          string // finding id, e.g. "secret.aws-access-key-id"
	Description string
	// Pattern matches the secret. The value is the first participating capture group
	// named "secret", or the whole match; a group named "name" holds the key the value is
	// assigned to, for rules that match assignments.
	Pattern *textmatch.Pattern
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
	// After is the text that follows the value on its line, at most 64 bytes of it: the
	// host a URL's password is for.
	After string
}

// Secret is one secret found in a text.
type Secret struct {
	RuleID     string
	Start, End int // byte offsets of the secret value in the text
}

// detector holds a rule table and the keyword index over it.
type detector struct {
	rules     []*Rule
	index     *textmatch.KeywordIndex
	wordRules [][]int // keyword number → rules that use it
	always    []int   // rules without keywords or line selector
	lineRules []int   // rules with a line selector
}

// newDetector indexes the rules' keywords. It compiles no pattern: find does, for the
// rules a text gives something to search.
func newDetector(rules []Rule) *detector {
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
	d.index = textmatch.NewKeywordIndex(words)
	return d
}

// builtin is the detector over the built-in rule table, built on first use: a hook
// process that never looks for secrets does not pay for the keyword automaton.
var builtin = sync.OnceValue(func() *detector { return newDetector(secretRules) })

// Rules returns a copy of the built-in secret rules, most specific first: when two
// rules match overlapping text, the earlier one wins.
func Rules() []Rule {
	rules := slices.Clone(secretRules)
	for i := range rules {
		rules[i].Keywords = slices.Clone(rules[i].Keywords)
	}
	return rules
}

// ruleWindow is a window of the text that the rule numbered rule searches.
type ruleWindow struct {
	rule int
	w    textmatch.Span
}

// Find returns the secrets in s, sorted by Start and never overlapping: where two
// rules match overlapping text, the more specific rule's secret is kept. It is safe for
// concurrent use, and its time grows linearly with len(s).
func Find(s string) []Secret {
	return builtin().find(s, false)
}

// FindSent is Find for text that leaves the machine (a URL fetched, a message posted):
// a key that documentation marks as its example (AWS's AKIAIOSFODNN7EXAMPLE) is found
// too. In a file it is a stand-in; sent out, it is a key in the shape of a real one,
// sent where keys are sent when they leak.
func FindSent(s string) []Secret {
	return builtin().find(s, true)
}

func (d *detector) find(s string, sent bool) []Secret {
	if s == "" {
		return nil
	}
	// The windows are gathered as (rule, window) pairs rather than one list per rule: a
	// shell command gives a handful of rules something to search, and a list per rule
	// allocated for every text cost more than the search.
	var buf [16]ruleWindow
	hits := buf[:0]
	for _, h := range d.index.Find(s, nil) {
		end := h.Start + len(d.index.Word(h.Word))
		for _, ri := range d.wordRules[h.Word] {
			r := d.rules[ri]
			if r.Hit != nil && !r.Hit(s, h.Start, end) {
				continue
			}
			w := window(s, h.Start, end, r.Before, r.After, r.Lines)
			if r.AtName {
				w.Lo = nameStart(s, h.Start, w.Lo)
			}
			hits = append(hits, ruleWindow{ri, w})
		}
	}
	for _, ri := range d.always {
		hits = append(hits, ruleWindow{ri, textmatch.Span{Lo: 0, Hi: len(s)}})
	}
	for _, ri := range d.lineRules {
		for _, w := range selectLines(s, d.rules[ri].LinesWhere) {
			hits = append(hits, ruleWindow{ri, w})
		}
	}
	// Rules are tried in table order, each over its windows in the order found.
	slices.SortStableFunc(hits, func(a, b ruleWindow) int { return cmp.Compare(a.rule, b.rule) })

	var found []Secret
	var ws []textmatch.Span
	for i := 0; i < len(hits); {
		ri := hits[i].rule
		ws = ws[:0]
		for ; i < len(hits) && hits[i].rule == ri; i++ {
			ws = append(ws, hits[i].w)
		}
		// The first text that gives a rule something to search compiles its pattern; a
		// plain shell command gives most rules nothing.
		r := compile(d.rules[ri])
		var cands []Secret
		if r.AtName {
			cands = r.matchAt(s, uniqueStarts(ws), cands, sent)
		} else {
			for _, w := range textmatch.MergeSpans(ws) {
				cands = r.match(s, w, cands, sent)
			}
		}
		slices.SortStableFunc(cands, func(a, b Secret) int { return cmp.Compare(a.Start, b.Start) })
		found = keepNonOverlapping(found, cands)
	}
	return found
}

// window returns the text around a keyword occurrence s[start:end] that a rule's pattern sees.
func window(s string, start, end, before, after, lines int) textmatch.Span {
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
	return textmatch.Span{Lo: lo, Hi: hi}
}

// selectLines returns the lines of s that keep accepts, without their line breaks.
func selectLines(s string, keep func(string) bool) []textmatch.Span {
	var ws []textmatch.Span
	for lo := 0; lo < len(s); {
		hi := strings.IndexByte(s[lo:], '\n')
		if hi < 0 {
			hi = len(s)
		} else {
			hi += lo
		}
		if keep(s[lo:hi]) {
			ws = append(ws, textmatch.Span{Lo: lo, Hi: hi})
		}
		lo = hi + 1
	}
	return ws
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
func uniqueStarts(ws []textmatch.Span) []textmatch.Span {
	slices.SortFunc(ws, func(a, b textmatch.Span) int { return cmp.Or(cmp.Compare(a.Lo, b.Lo), cmp.Compare(b.Hi, a.Hi)) })
	return slices.CompactFunc(ws, func(a, b textmatch.Span) bool { return a.Lo == b.Lo })
}

// compiledRule is a rule with its pattern compiled.
type compiledRule struct {
	*Rule
	re                       *regexp.Regexp
	secretGroups, nameGroups []int // the groups named "secret" and "name"
}

// compile returns the rule with its pattern compiled.
func compile(r *Rule) compiledRule {
	c := r.Pattern.Compiled()
	return compiledRule{r, c.Re, c.Groups("secret"), c.Groups("name")}
}

// matchAt appends to found the secrets the rule's anchored pattern accepts at the starts
// of windows, which are sorted. A window that starts inside the value of the previous
// match is skipped: it would only see the rest of a value already judged.
func (r compiledRule) matchAt(s string, ws []textmatch.Span, found []Secret, sent bool) []Secret {
	var valueLo, valueHi int
	for _, w := range ws {
		if valueLo <= w.Lo && w.Lo < valueHi {
			continue
		}
		text := s[w.Lo:w.Hi]
		m := r.re.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		a, b := group(m, r.secretGroups, m[0], m[1])
		valueLo, valueHi = w.Lo+a, w.Lo+b
		found = r.keep(s, w.Lo, m, found, sent)
	}
	return found
}

// match appends to found the secrets the rule accepts in window w of s.
func (r compiledRule) match(s string, w textmatch.Span, found []Secret, sent bool) []Secret {
	text := s[w.Lo:w.Hi]
	for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
		found = r.keep(s, w.Lo, m, found, sent)
	}
	return found
}

// keep appends to found the secret of match m in the window of s starting at byte off, if
// the rule accepts it; sent accepts documentation's example keys.
func (r compiledRule) keep(s string, off int, m []int, found []Secret, sent bool) []Secret {
	text := s[off:]
	a, b := group(m, r.secretGroups, m[0], m[1])
	if a >= b {
		return found
	}
	c := Candidate{Value: text[a:b]}
	if na, nb := group(m, r.nameGroups, -1, -1); na >= 0 {
		c.Name = text[na:nb]
		if !nestedUnder(s, off+na, off+a) {
			return found
		}
	}
	if a > 0 {
		c.Quoted = strings.IndexByte("\"'`", text[a-1]) >= 0
	}
	if b < len(text) {
		c.Next = text[b]
		after := text[b:min(len(text), b+64)]
		if nl := strings.IndexByte(after, '\n'); nl >= 0 {
			after = after[:nl]
		}
		c.After = after
	}
	if !r.accept(c, sent) {
		return found
	}
	return append(found, Secret{RuleID: r.ID, Start: off + a, End: off + b})
}

// nestedUnder reports whether a value starting at byte value of s belongs to the key
// starting at byte name: on the key's line, or on a later line indented further than the
// key (YAML's nesting: `password:` then `  value: …`). A line indented no further is the
// key's sibling (`password:` left empty, then `username: admin`), not its value.
func nestedUnder(s string, name, value int) bool {
	nl := strings.LastIndexByte(s[name:value], '\n')
	if nl < 0 {
		return true
	}
	col := name - (strings.LastIndexByte(s[:name], '\n') + 1)
	line := name + nl + 1
	indent := 0
	for line+indent < len(s) && (s[line+indent] == ' ' || s[line+indent] == '\t') {
		indent++
	}
	return indent > col
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
func (r compiledRule) accept(c Candidate, sent bool) bool {
	switch {
	case len(c.Value) < r.MinLength:
		return false
	case isPlaceholder(c.Value) && !(sent && documentationKey(c.Value)):
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

// Kind is the secret's rule id without its "secret." prefix, as masks and evidence show
// it: "aws-access-key-id".
func (s Secret) Kind() string { return shortID(s.RuleID) }

// shortID is a rule id without its "secret." prefix, as masks and evidence show it.
func shortID(id string) string { return strings.TrimPrefix(id, "secret.") }

// Findings returns one finding per secret in s, the text of the argument named
// where. The evidence names the kind and position, "aws-access-key-id at content:12:5"
// (line and byte column, from 1), and never the value.
func Findings(s, where string) []call.Finding {
	return findings(s, where, Find(s))
}

// SentFindings is Findings for text that leaves the machine (FindSent).
func SentFindings(s, where string) []call.Finding {
	return findings(s, where, FindSent(s))
}

func findings(s, where string, found []Secret) []call.Finding {
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
		findings = append(findings, Kinds.New(f.RuleID, shortID(f.RuleID)+" at "+at))
	}
	return findings
}
