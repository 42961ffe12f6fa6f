package injection

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/scan/smuggling"
	"github.com/moatdev/moat/internal/scan/textmatch"
)

// Prompt injection: text that an agent reads (a fetched page, a file, a tool's result or
// description) or writes into its own instruction files, and that tries to take control
// of the agent. No single phrase proves an injection, so detection is scored: each
// signal (an instruction override, a fake role tag, a request for secrets, an order to
// hide something from the user…) has a weight, the signals close to each other in the
// text form a passage, and a passage whose combined score reaches Threshold is
// reported. The weights were calibrated on a corpus of benign text (see
// testdata) so that ordinary documentation, code, issue threads and agent
// instruction files stay below the threshold.

// Finding ids of prompt injection. A passage is reported under the id of its strongest
// signal.
const (
	FindOverride    = "injection.instruction-override"
	FindRoleTag     = "injection.role-tag"
	FindHidden      = "injection.hidden-instruction"
	FindSecrets     = "injection.secret-request"
	FindFiles       = "injection.file-coercion"
	FindExfil       = "injection.exfiltration"
	FindSafety      = "injection.safety-bypass"
	FindConcealment = "injection.concealment"
	FindOutput      = "injection.output-manipulation"
	FindInvisible   = "injection.invisible-text"
)

// FindingIDs lists the ids Find reports.
var FindingIDs = []string{
	FindOverride, FindRoleTag, FindHidden, FindSecrets,
	FindFiles, FindExfil, FindSafety, FindConcealment,
	FindOutput, FindInvisible,
}

// Threshold is the score from which a passage is reported.
const Threshold = 0.6

// Signal weights. A strong signal is reported alone; medium ones need a second signal
// (0.5 and 0.5 combine to 0.75); weak ones only add to others.
const (
	strong = 0.9
	firm   = 0.7
	medium = 0.5
	weak   = 0.3
)

// passageGap is how far apart, in bytes, two signals may be and still belong to one
// passage: about a paragraph.
const passageGap = 400

// injectionSignal is one kind of evidence of injection, as data.
type injectionSignal struct {
	Name    string // short name shown in evidence
	Finding string // finding id of a passage this signal dominates
	// Family groups correlated signals, which count once in a passage; it defaults to
	// Finding.
	Family string
	Weight float64
	// Keywords are lower-case anchors, one of which must occur for Pattern to run, and
	// Pattern runs on the text around each occurrence (Before bytes before, After after).
	Keywords      []string
	Before, After int
	// Also, when set, are further lower-case words one of which must occur in the text
	// around a keyword for Pattern to run there: the second half of a phrase whose
	// first half (a verb such as "send") is common in ordinary text and code.
	Also []string
	// Requires names a signal that must have matched somewhere in the text for this one
	// to run: evidence that only counts beside another.
	Requires string
	// Pattern is matched around keyword occurrences; when nil, each occurrence of a
	// keyword is itself a match.
	Pattern *textmatch.Pattern
	// ClauseStart widens each window back to the start of its line or sentence, for
	// patterns that must see where a clause begins.
	ClauseStart bool
	// Negatable signals do not count when a negation ("never", "do not") comes just
	// before the match: "never share your password" is advice, not a request.
	Negatable bool
	// Verify, when set, vets a match s[start:end] in the whole text.
	Verify func(s string, start, end int) bool
}

// Passage is one passage of a text that reads as prompt injection.
type Passage struct {
	Finding    string
	Score      float64
	Start, End int      // byte offsets of the passage in the scanned text
	Signals    []string // names of the signals found in it, strongest first
}

// injectionHit is one match of one signal.
type injectionHit struct {
	signal     int
	start, end int
	weight     float64
}

type injectionDetector struct {
	signals   []injectionSignal
	index     *textmatch.KeywordIndex
	wordUsers [][]int        // keyword number → signals anchored on it
	also      []map[int]bool // signal → numbers of its Also words
	requires  []int          // signal → the signal it requires, or -1
}

func newInjectionDetector(signals []injectionSignal) *injectionDetector {
	d := &injectionDetector{signals: signals, also: make([]map[int]bool, len(signals)), requires: make([]int, len(signals))}
	num := map[string]int{}
	var words []string
	word := func(k string) int {
		n, ok := num[k]
		if !ok {
			n = len(words)
			num[k] = n
			words = append(words, k)
			d.wordUsers = append(d.wordUsers, nil)
		}
		return n
	}
	byName := map[string]int{}
	for i, sg := range signals {
		byName[sg.Name] = i
		for _, k := range sg.Keywords {
			n := word(k)
			d.wordUsers[n] = append(d.wordUsers[n], i)
		}
		if len(sg.Also) > 0 {
			d.also[i] = map[int]bool{}
			for _, k := range sg.Also {
				d.also[i][word(k)] = true
			}
		}
	}
	for i, sg := range signals {
		d.requires[i] = -1
		if sg.Requires != "" {
			d.requires[i] = byName[sg.Requires]
		}
	}
	d.index = textmatch.NewKeywordIndex(words)
	return d
}

// injections is the detector over the built-in table, built on first use.
var injections = sync.OnceValue(func() *injectionDetector { return newInjectionDetector(injectionSignals()) })

// Find returns the passages of s that read as prompt injection, in order. The
// text is read as Fold normalises it (so fullwidth letters and invisible characters do
// not hide a phrase); when folding changed s, offsets are those of the folded text.
// Instructions encoded in base64 or hex are decoded and read, and text hidden in Unicode
// tag characters is a finding by itself.
func Find(s string) []Passage {
	found, _ := findInjections(s)
	return found
}

// findInjections is Find, also returning the folded text the offsets are in.
func findInjections(s string) ([]Passage, string) {
	folded := smuggling.Fold(s)
	d := injections()
	hits := d.hits(folded)
	if hidden := tagText(s); hidden != "" {
		// Tag characters carry text a human cannot see and a model reads; they have no
		// other use in a tool's text, so hidden text counts as strong evidence by
		// itself, at the place where the tag characters begin.
		at := strings.IndexFunc(s, func(r rune) bool { return r >= 0xE0000 && r <= 0xE007F })
		at = min(len(folded), max(0, at))
		hits = append(hits, injectionHit{signal: invisibleSignal, start: at, end: at, weight: strong})
	}
	hits = append(hits, d.encodedHits(folded)...)
	if len(hits) == 0 {
		return nil, folded
	}
	return d.passages(folded, hits), folded
}

// minEncoded is the length from which a base64 or hex run is decoded and read: shorter
// runs are identifiers and hashes, and cannot hold a sentence.
const minEncoded = 32

// encodedHits decodes the base64 and hex runs of s that decode to readable text and
// reports, at the run's place, the strongest signal found in that text: an instruction
// hidden from a human reader by encoding it.
func (d *injectionDetector) encodedHits(s string) []injectionHit {
	var out []injectionHit
	for r := range EncodedTexts(s) {
		best := 0.0
		for _, h := range d.hits(respelled(r.Text)) {
			best = max(best, h.weight)
		}
		if best > 0 {
			out = append(out, injectionHit{signal: encodedSignal, start: r.Start, end: r.End, weight: min(1, best+0.1)})
		}
	}
	return out
}

// hiddenVerbs are the verbs of an override, which respelled restores in encoded text.
var hiddenVerbs = []string{"ignore", "disregard", "forget"}

// respelled returns s with each word one slip away from one of hiddenVerbs (a letter
// dropped, added or changed, two swapped: "Inore", "Hignore", "Disregrad") spelled as
// that verb. It serves text that was hidden by encoding it: nobody encodes prose for a
// person, the model it is meant for reads through a misspelling, and an encoder that
// garbles a letter, or an author who drops one to slip past keywords, leaves the
// instruction as plain to it.
func respelled(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !isLetter(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		if w := strings.ToLower(s[i:j]); len(w) >= 5 {
			for _, v := range hiddenVerbs {
				if w != v && oneEditApart(w, v) {
					b.WriteString(s[last:i])
					b.WriteString(v)
					last = j
					break
				}
			}
		}
		i = j
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// oneEditApart reports whether a and b differ by one letter inserted, deleted or
// replaced, or by two neighbours swapped: the slips of a typist.
func oneEditApart(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if i == len(b) {
		return false // the same word
	}
	if len(a) == len(b) {
		swapped := i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
		return a[i+1:] == b[i+1:] || swapped
	}
	return a[i:] == b[i+1:]
}

// EncodedText is a run of base64 or hex in a text, s[Start:End], and the readable text
// it decodes to.
type EncodedText struct {
	Start, End int
	Text       string
}

// hits finds every signal match in s. The text around each keyword occurrence is
// gathered per signal and joined where it overlaps, so that each pattern runs once over
// each stretch of text however many keywords it holds: the cost stays linear.
func (d *injectionDetector) hits(s string) []injectionHit {
	found := d.index.Find(s, nil)
	kept := found[:0]
	for _, h := range found {
		// A keyword that starts inside a word is not that word: "ai" in "maintain".
		if h.Start == 0 || !isLetter(s[h.Start-1]) || !isLetter(d.index.Word(h.Word)[0]) {
			kept = append(kept, h)
		}
	}
	found = kept
	slices.SortFunc(found, func(a, b textmatch.KeywordHit) int { return cmp.Compare(a.Start, b.Start) })
	windows := make([][]textmatch.Span, len(d.signals))
	var breaks []int // computed when a signal first needs them
	for _, h := range found {
		for _, si := range d.wordUsers[h.Word] {
			sg := &d.signals[si]
			if sg.Pattern == nil {
				continue // the occurrences themselves are the matches, below
			}
			lo := runeStart(s, max(0, h.Start-sg.Before))
			if sg.ClauseStart {
				if breaks == nil {
					breaks = clauseBreaks(s, found)
				}
				lo = spanStart(s, breaks, lo)
			}
			hi := runeEnd(s, min(len(s), h.Start+len(d.index.Word(h.Word))+sg.After))
			if d.also[si] != nil && !anyWordIn(found, d.also[si], lo, hi) {
				continue
			}
			windows[si] = append(windows[si], textmatch.Span{Lo: lo, Hi: hi})
		}
	}
	var out []injectionHit
	for _, h := range found {
		for _, si := range d.wordUsers[h.Word] {
			if d.signals[si].Pattern == nil {
				windows[si] = append(windows[si], textmatch.Span{Lo: h.Start, Hi: h.Start + len(d.index.Word(h.Word))})
			}
		}
	}
	matched := make([]bool, len(d.signals))
	// Signals that require another run after all the others.
	for pass := 0; pass < 2; pass++ {
		for si, ws := range windows {
			if len(ws) == 0 || (d.requires[si] >= 0) != (pass == 1) || pass == 1 && !matched[d.requires[si]] {
				continue
			}
			n := len(out)
			out = d.match(s, si, ws, out)
			matched[si] = len(out) > n
		}
	}
	slices.SortFunc(out, func(a, b injectionHit) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.signal, b.signal))
	})
	return out
}

// anyWordIn reports whether one of words occurs in found (sorted by start) within [lo, hi).
func anyWordIn(found []textmatch.KeywordHit, words map[int]bool, lo, hi int) bool {
	i, _ := slices.BinarySearchFunc(found, lo, func(h textmatch.KeywordHit, lo int) int { return cmp.Compare(h.Start, lo) })
	for ; i < len(found) && found[i].Start < hi; i++ {
		if words[found[i].Word] {
			return true
		}
	}
	return false
}

// match appends the hits of signal si's pattern in the windows ws.
func (d *injectionDetector) match(s string, si int, ws []textmatch.Span, out []injectionHit) []injectionHit {
	sg := &d.signals[si]
	if sg.Pattern == nil {
		for _, w := range ws {
			out = append(out, injectionHit{signal: si, start: w.Lo, end: w.Hi, weight: sg.Weight})
		}
		return out
	}
	// A signal's weight is that of its best match, so past maxSignalMatches matches (a
	// text repeating a phrase) the rest would only cost time.
	re := sg.Pattern.Regexp() // compiled by the first text that gives the signal windows
	found := 0
	for _, w := range textmatch.MergeSpans(ws) {
		if found >= maxSignalMatches {
			break
		}
		for _, m := range re.FindAllStringIndex(s[w.Lo:w.Hi], maxSignalMatches-found) {
			found++
			start, end := w.Lo+m[0], w.Lo+m[1]
			if sg.Negatable && negated(s, start) {
				continue
			}
			if sg.Verify != nil && !sg.Verify(s, start, end) {
				continue
			}
			out = append(out, injectionHit{signal: si, start: start, end: end, weight: sg.Weight})
		}
	}
	return out
}

// maxSignalMatches bounds the matches of one signal in one text.
const maxSignalMatches = 64

// clauseBreaks returns, in order, the offsets where a line or a sentence starts in s, as
// far as windows around the keyword occurrences found (sorted) can reach back.
func clauseBreaks(s string, found []textmatch.KeywordHit) []int {
	breaks := []int{}
	done := 0
	for _, h := range found {
		lo := max(done, h.Start-maxBefore-256)
		for i := lo; i < h.Start && i < len(s); i++ {
			switch s[i] {
			case '\n':
				breaks = append(breaks, i+1)
			case '.', '!', '?':
				if i+1 < len(s) && s[i+1] == ' ' {
					breaks = append(breaks, i+2)
				}
			}
		}
		done = max(done, h.Start)
	}
	return breaks
}

// maxBefore is the largest Before of any signal: how far back windows reach.
const maxBefore = 160

// spanStart moves lo back to the start of its line or sentence (one of breaks, sorted),
// at most 256 bytes, so that patterns anchored at the start of a clause see where it
// really starts.
func spanStart(s string, breaks []int, lo int) int {
	i, found := slices.BinarySearch(breaks, lo)
	if found {
		return lo
	}
	if i > 0 && breaks[i-1] >= lo-256 {
		return breaks[i-1]
	}
	return runeStart(s, lo)
}

// passages groups hits that lie within passageGap of each other and scores each group.
func (d *injectionDetector) passages(s string, hits []injectionHit) []Passage {
	slices.SortFunc(hits, func(a, b injectionHit) int { return cmp.Compare(a.start, b.start) })
	var out []Passage
	for i := 0; i < len(hits); {
		j, end := i+1, hits[i].end
		for j < len(hits) && hits[j].start-end <= passageGap {
			end = max(end, hits[j].end)
			j++
		}
		if inj, ok := d.score(s, hits[i:j]); ok {
			out = append(out, inj)
		}
		i = j
	}
	return out
}

// score combines the hits of one passage. Each signal counts once, at its highest
// weight; a signal quoted in a passage that discusses injection counts for less; hidden
// containers (HTML comments, invisible styles) strengthen what they hide. The combination
// is a noisy-or: 1 - Π(1 - w).
func (d *injectionDetector) score(s string, hits []injectionHit) (Passage, bool) {
	lo, hi := hits[0].start, hits[0].end
	for _, h := range hits {
		hi = max(hi, h.end)
	}
	// First without the framing discounts, which only lower the score and cost a
	// search of the text around the passage: most passages of ordinary text stop here.
	var ws []weighed
	hidden := map[int]bool{}
	counted := map[int]int{}
	for _, h := range hits {
		// A signal's weight is its best hit; past a few dozen hits (a text that repeats
		// a phrase) more of them change nothing but the cost.
		if counted[h.signal]++; counted[h.signal] > 32 {
			continue
		}
		w := h.weight
		if hiddenAt(s, h.start) {
			w = min(1, w+0.3)
			hidden[h.signal] = true
		}
		ws = append(ws, weighed{h, w})
	}
	if score, _ := d.combine(ws, func(w weighed) (int, float64) { return w.hit.signal, w.weight }); score < Threshold {
		return Passage{}, false
	}
	meta := discussionAround(s, lo, hi)
	score, best := d.combine(ws, func(w weighed) (int, float64) {
		f := discount(meta, quotedAt(s, w.hit.start))
		if d.signals[w.hit.signal].Finding == FindRoleTag && literalToken(s, w.hit.start, w.hit.end) {
			// `EOT = "<|eot_id|>"`: a control token that is a whole string literal is
			// code defining the template, not text posing as the model's prompt.
			f *= 0.3
		}
		return w.hit.signal, w.weight * f
	})
	if score < Threshold {
		return Passage{}, false
	}
	order := make([]int, 0, len(best))
	for si := range best {
		order = append(order, si)
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(best[b], best[a]), cmp.Compare(a, b))
	})
	inj := Passage{Score: score, Start: lo, End: hi}
	for _, si := range order {
		sg := d.signals[si]
		if inj.Finding == "" {
			inj.Finding = sg.Finding
			if hidden[si] {
				inj.Finding = FindHidden
			}
		}
		inj.Signals = append(inj.Signals, sg.Name)
	}
	return inj, true
}

// weighed is a hit with its weight in its passage.
type weighed struct {
	hit    injectionHit
	weight float64
}

// combine scores weighed hits: each signal counts at its best weight, and signals of
// one family (correlated evidence) count once, at the family's strongest; families
// combine by noisy-or, 1 - Π(1 - w). It returns the score and each signal's weight.
func (d *injectionDetector) combine(items []weighed, weigh func(weighed) (int, float64)) (float64, map[int]float64) {
	best := map[int]float64{}
	for _, it := range items {
		si, w := weigh(it)
		best[si] = max(best[si], w)
	}
	family := map[string]float64{}
	for si, w := range best {
		f := cmp.Or(d.signals[si].Family, d.signals[si].Finding)
		family[f] = max(family[f], w)
	}
	miss := 1.0
	for _, w := range family {
		miss *= 1 - w
	}
	return 1 - miss, best
}

// Findings returns one finding per injection passage of s, the text of the
// argument named where. The evidence gives the score, the signals and the position,
// and at most 60 bytes of the passage with any secret in it masked.
func Findings(s, where string) []call.Finding {
	found, folded := findInjections(s)
	if len(found) == 0 {
		return nil
	}
	out := make([]call.Finding, 0, len(found))
	for _, inj := range found {
		at := fmt.Sprintf("byte %d", inj.Start)
		if where != "" {
			at = where + " " + at
		}
		out = append(out, Kinds.New(inj.Finding, fmt.Sprintf("score %.2f (%s) at %s: %q",
			inj.Score, strings.Join(inj.Signals, ", "), at, excerpt(folded[inj.Start:inj.End], 60))))
	}
	return out
}

// excerpt returns the start of s, at most n bytes ending on a rune boundary, with spaces
// collapsed and secrets masked.
func excerpt(s string, n int) string {
	s = scan.Redact(s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:runeStart(s, n)] + "…"
}

// negated reports whether a negation ends just before s[start]: "never share", "do not
// reveal", "don't tell".
func negated(s string, start int) bool {
	lo := max(0, start-24)
	before := strings.ToLower(s[runeStart(s, lo):start])
	before = strings.TrimRight(before, " \t\r\n,")
	// "If you don't pass the key, the app will crash": a threat that demands it.
	for _, cond := range []string{"if you don't", "if you dont", "if you do not", "unless you"} {
		if strings.HasSuffix(before, cond) {
			return false
		}
	}
	for _, neg := range []string{"never", "not", "n't", "nobody", "no one", "nor", "avoid", "refuse to", "won't",
		// Reported or conditional speech: "if anyone asks you to ignore your instructions".
		"asks you to", "ask you to", "tells you to", "tell you to", "tries to make you", "try to make you"} {
		if strings.HasSuffix(before, neg) {
			return true
		}
	}
	// "never ask users to share their password": a negation a few words back, unless it
	// negates a verb that itself negates ("don't hesitate to use", "don't forget to
	// add", "never fail to include": instructions in a negative's dress).
	words := strings.Fields(before)
	for i := max(0, len(words)-3); i < len(words); i++ {
		switch strings.Trim(words[i], ".,;:!?\"'") {
		case "never", "not", "don't", "dont", "shouldn't", "mustn't", "cannot", "can't", "won't", "avoid":
			if i+1 < len(words) && NegatingVerb(words[i+1]) {
				continue
			}
			return true
		}
	}
	return false
}

// NegatingVerb reports whether the word w begins with a verb that negates what follows
// it (hesitate, forget, fail, omit, neglect, skip, miss), so that a negation before it
// makes an instruction: "don't hesitate to use", "never skip".
func NegatingVerb(w string) bool {
	for _, v := range []string{"hesitat", "forget", "forgot", "fail", "omit", "neglect", "skip", "miss"} {
		if strings.HasPrefix(w, v) {
			return true
		}
	}
	return false
}

// How a passage's text is framed: discussed as a subject (an article about injection
// that names attackers and payloads), given as an example, or neither.
const (
	framedNone = iota
	framedExample
	framedDiscussed
)

// discussionAround reports how the text around a passage frames it: an article, a policy
// or a test that quotes attacks talks about attackers and payloads; documentation gives
// examples.
func discussionAround(s string, lo, hi int) int {
	lo, hi = runeStart(s, max(0, lo-600)), runeEnd(s, min(len(s), hi+600))
	// Words in addresses frame nothing: "visit https://attacker.example" is not an
	// article about attackers, whatever the host is called.
	around := addresses.Regexp().ReplaceAllString(s[lo:hi], " ")
	switch {
	case discussionWords.Regexp().MatchString(around) || !isASCII(around) && discussionWordsTranslated.Regexp().MatchString(around):
		return framedDiscussed
	case exampleWords.Regexp().MatchString(around):
		return framedExample
	}
	return framedNone
}

// discount is the factor applied to a signal's weight by how it is framed: a quoted
// attack in an article about attacks or in a test counts for little, an unquoted one in
// an article for more. Quotation alone changes nothing: a tool's JSON result quotes
// every string it returns.
func discount(framing int, quoted bool) float64 {
	switch {
	case quoted && framing != framedNone:
		return 0.3
	case framing == framedDiscussed:
		return 0.6
	}
	return 1
}

var (
	// addresses are URLs, e-mail addresses and host names with a dot.
	addresses       = &textmatch.Pattern{Expr: `(?i)[a-z][a-z0-9+.-]*://\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:[\w-]+\.)+(?:com|net|org|io|dev|example|app|xyz|ru|cn|info|biz|co|me|site|online|top)\b\S*`}
	discussionWords = &textmatch.Pattern{Expr: `(?i)\b(?:injections?|injected|jailbreaks?|jailbreak(?:s|ing)? (?:attempts?|prompts?|attacks?)|attackers?|adversar(?:y|ial)|malicious (?:prompts?|instructions?|content|pages?|payloads?|documents?|inputs?|text)|red[- ]team(?:ing|ers)?|payloads?|owasp|threat model|injected (?:instructions?|text|prompts?))\b`}
	// The same, in the languages whose "ignore previous instructions" the detector reads.
	discussionWordsTranslated = &textmatch.Pattern{Expr: `(?i)inyecci[oó]n|injeç[aã]o|injektion|iniezione|инъекц|атак|злоумышленник|注入|インジェクション|攻撃|인젝션|공격자|attaquant|angreifer|atacante|attaccante|προσβολ|επίθεσ`}
	exampleWords              = &textmatch.Pattern{Expr: `(?i)\b(?:for (?:example|instance)|e\.g\.|such as|examples? of|an example|test cases?|fixtures?|asserts?|expected|detect(?:s|ed|ion|or)?|classifier|guardrails?|sanitiz(?:e|er|ation)|spoof(?:ing|ed)?|(?:chat[_ ])?templates?|tokenizer|special tokens?|[eb]os_token)\b|\bfunc Test|\bdef test_`}
)

// quotedAt reports whether s[at] lies inside quotation marks or a code span on its line.
func quotedAt(s string, at int) bool {
	// Only the 512 bytes before the hit are looked at, so that the cost per hit is
	// bounded on a text without line breaks.
	from := runeStart(s, max(0, at-512))
	lineStart := from + strings.LastIndexByte(s[from:at], '\n') + 1
	before := s[lineStart:at]
	for _, q := range []string{`"`, "`"} {
		if strings.Count(before, q)%2 == 1 {
			return true
		}
	}
	for _, q := range [][2]string{{"“", "”"}, {"«", "»"}, {"「", "」"}, {"„", "“"}, {"<code>", "</code>"}, {"<q>", "</q>"}} {
		if strings.Count(before, q[0]) > strings.Count(before, q[1]) {
			return true
		}
	}
	// Inside a Python docstring that began on an earlier line (looked for in the
	// preceding 8 KiB only, to keep the cost bounded).
	recent := s[runeStart(s, max(0, lineStart-4096)):lineStart]
	if strings.Count(recent, `"""`)%2 == 1 || strings.Count(recent, "'''")%2 == 1 {
		return true
	}
	// A single quote opens a quotation only after a space or an opening bracket, so that
	// apostrophes ("don't") are not counted.
	open := false
	for i := 0; i < len(before); i++ {
		if before[i] != '\'' {
			continue
		}
		prevSpace := i == 0 || strings.IndexByte(" \t([{:=,", before[i-1]) >= 0
		nextSpace := i+1 >= len(before) || strings.IndexByte(" \t.,;:!?)]}", before[i+1]) >= 0
		switch {
		case !open && prevSpace:
			open = true
		case open && nextSpace:
			open = false
		}
	}
	return open
}

// literalToken reports whether s[start:end] is exactly the content of a string literal.
func literalToken(s string, start, end int) bool {
	if start == 0 || end >= len(s) {
		return false
	}
	q := s[start-1]
	return (q == '"' || q == '\'' || q == '`') && s[end] == q
}

// hiddenAt reports whether s[at] lies inside an HTML comment, an element styled to be
// invisible, or a markdown comment: places a human reader does not see.
func hiddenAt(s string, at int) bool {
	// A comment or element that opened more than 4 KiB before is not looked for: the
	// cost per hit stays bounded.
	from := runeStart(s, max(0, at-4096))
	if open := strings.LastIndex(s[from:at], "<!--"); open >= 0 && !strings.Contains(s[from+open:at], "-->") {
		return true
	}
	lineStart := from + strings.LastIndexByte(s[from:at], '\n') + 1
	if strings.HasPrefix(strings.TrimSpace(s[lineStart:at]), "[//]: #") {
		return true
	}
	// The hit may start at the element's closing > (a signal whose pattern begins
	// after one), so the tag is looked for up to and including s[at].
	lo, hi := max(0, at-300), min(len(s), at+1)
	if m := invisibleStyle.Regexp().FindAllStringIndex(s[lo:hi], -1); len(m) > 0 {
		// Hidden if no closing tag follows the style before the hit.
		after := s[min(lo+m[len(m)-1][1], at):at]
		return !strings.Contains(after, "</")
	}
	return false
}

var invisibleStyle = &textmatch.Pattern{Expr: `(?i)style\s*=\s*["'][^"']*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em)?\s*[;"']|opacity\s*:\s*0(?:\.0+)?\s*[;"']|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b)[^"']*["'][^>]*>`}

// tagText returns the ASCII hidden in Unicode tag characters in s.
func tagText(s string) string {
	// Tag characters (U+E0000–E007F) all begin with these bytes in UTF-8.
	if !strings.Contains(s, "\xf3\xa0\x80") && !strings.Contains(s, "\xf3\xa0\x81") {
		return ""
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteByte(byte(r - 0xE0000))
		}
	}
	return strings.TrimSpace(b.String())
}

// runeStart moves i back to the start of the rune that contains s[i].
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}

// runeEnd moves i forward to the end of the rune that contains s[i-1].
func runeEnd(s string, i int) int {
	for i < len(s) && s[i]&0xC0 == 0x80 {
		i++
	}
	return i
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
