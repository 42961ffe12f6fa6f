package toolscan

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/scan/confusable"
	"github.com/moatdev/moat/internal/scan/injection"
	"github.com/moatdev/moat/internal/scan/smuggling"
)

// Finding is one thing Inspect noticed about one tool of a listing.
type Finding struct {
	// ID is one of the Find constants, or input.too-large for text beyond what Inspect reads;
	// Evidence names the tool and the field.
	call.Finding
	// Tool is the tool's name as listed.
	Tool string `json:"tool"`
	// Field is where in the tool's definition: "name", "description",
	// "inputSchema.properties.notes.description", "annotations.title".
	Field string `json:"field"`
	// Signals are what was seen: the names of this package's signals and the ids of
	// the findings of package scan that led to this one, strongest first.
	Signals []string `json:"signals"`
}

// Inspect returns the findings of the tools that server lists: instructions to the model
// in any text of a tool's definition, text hidden from a human reviewer, and attempts to
// change how other tools are used. others are the names of the tools of the agent's other
// servers, which a tool's description has no business naming. The findings are in the
// order of the tools, and a tool with nothing to report has none.
//
// Every string of a tool's definition is read (the description, every key and string of
// the input schema, and the other members of Raw), with package scan's prompt-injection
// and Unicode detectors and with the poisoning signals of this package, which are
// scored over the whole tool: a weak hint in the description and another in a parameter
// add up. Excerpts in the evidence have their secrets masked.
func Inspect(server string, tools []Tool, others []string) []Finding {
	own := make(map[string]bool, len(tools))
	for _, t := range tools {
		own[strings.ToLower(t.Name)] = true
	}
	other := make(map[string]bool, len(others))
	for _, n := range others {
		if n = strings.ToLower(n); !own[n] {
			other[n] = true
		}
	}
	var out []Finding
	listed := make(map[string]bool, len(tools))
	for _, t := range tools {
		r := report{server: server, tool: t.Name}
		r.checkName(t.Name, tools, others, listed)
		listed[t.Name] = true
		sc := &scope{tool: t.Name, own: own, others: other}
		var hits []hit
		budget := maxToolText
		t.walk(func(w *where, s string, key bool) {
			if budget <= 0 {
				return
			}
			if budget -= len(s); budget <= 0 {
				r.add(findTooLarge, w.field(), fmt.Sprintf("the tool's text exceeds %d bytes here; the rest was not inspected", maxToolText), "too long to inspect")
			}
			hits = r.checkText(sc, w, s, key, hits)
		})
		r.addScored(hits)
		for _, p := range r.scanned {
			r.add(p.id, p.field, p.detail, p.signal)
		}
		out = append(out, r.findings...)
	}
	return out
}

// Inspection is linear in the text, at about a microsecond a byte where keywords are
// dense: these bounds keep a server that lists megabytes of description from stalling
// the proxy. Nothing a tool's reader needs comes near them (the longest descriptions of
// real servers are a few KiB), so text beyond them is reported, never passed unread.
const (
	maxText     = 64 << 10 // bytes of one string
	maxToolText = 1 << 20  // bytes of all the strings of one tool
)

// findTooLarge is the finding of input moat did not analyse in full.
const findTooLarge = call.FindTooLarge

// hit is one match of one of this package's signals.
type hit struct {
	sig     *signal
	field   string
	excerpt string
}

// report gathers the findings of one tool, one per kind and field.
type report struct {
	server, tool string
	findings     []Finding
	// scanned are the findings of package scan, added after this package's own so that
	// a field's finding leads with the evidence specific to tools.
	scanned []scanned
}

type scanned struct{ id, field, detail, signal string }

// add records a finding, merging it into an earlier one of the same kind and field.
func (r *report) add(id, field, detail string, signals ...string) {
	for i := range r.findings {
		f := &r.findings[i]
		if f.ID == id && f.Field == field {
			for _, s := range signals {
				if !contains(f.Signals, s) {
					f.Signals = append(f.Signals, s)
				}
			}
			return
		}
	}
	at := r.tool
	if r.server != "" {
		at = r.server + "/" + r.tool
	}
	ev := fmt.Sprintf("tool %q %s: %s", at, field, detail)
	r.findings = append(r.findings, Finding{Finding: newFinding(id, ev), Tool: r.tool, Field: field, Signals: signals})
}

// checkName reports a name that hides characters, imitates another tool's name with
// look-alike letters, or repeats a name already listed: a client that keeps one of two
// tools of the same name may keep the one the user never saw.
func (r *report) checkName(name string, tools []Tool, others []string, listed map[string]bool) {
	if listed[name] {
		r.add(FindShadowing, "name", "listed twice by the server", "duplicate name")
	}
	for _, f := range smuggling.Findings(name) {
		if hiddenUnicode(f.ID) {
			r.add(FindHidden, "name", f.Evidence, f.ID)
		}
	}
	if len(confusable.Lookalikes(name)) == 0 {
		return
	}
	skel := confusable.Skeleton(name)
	imitated := ""
	for _, t := range tools {
		if t.Name != name && confusable.Skeleton(t.Name) == skel {
			imitated = t.Name
		}
	}
	for _, o := range others {
		if o != name && confusable.Skeleton(o) == skel {
			imitated = o
		}
	}
	detail := ""
	for _, f := range smuggling.Confusables("name", name) {
		detail = f.Evidence
	}
	if imitated != "" {
		r.add(FindShadowing, "name", fmt.Sprintf("imitates tool %q: %s", imitated, detail), smuggling.FindConfusable)
		return
	}
	r.add(FindHidden, "name", detail, smuggling.FindConfusable)
}

// checkText runs the detectors over one string of a tool's definition, reports what
// package scan finds and returns hits with this package's signals added.
func (r *report) checkText(sc *scope, w *where, s string, key bool, hits []hit) []hit {
	if len(s) > maxText {
		r.add(findTooLarge, w.field(), fmt.Sprintf("%d bytes; the first %d were inspected", len(s), maxText), "too long to inspect")
		s = s[:runeStart(s, maxText)]
	}
	for _, f := range smuggling.Findings(s) {
		if hiddenUnicode(f.ID) {
			r.scanned = append(r.scanned, scanned{FindHidden, w.field(), f.Evidence, f.ID})
		}
	}
	if key && !strings.ContainsFunc(s, unicode.IsSpace) {
		// A key without spaces is a name (a parameter, "type", "enum"), not a sentence;
		// only its invisible characters, above, could hide anything.
		return hits
	}
	sc.param = w.param()
	folded := smuggling.Fold(s)
	sc.desc, sc.selfDone = "", false
	if w.prefix == "" && len(w.segs) == 0 { // the description
		sc.desc = folded
	}
	if wordy(s) {
		for _, inj := range injection.Find(s) {
			if len(inj.Signals) == 1 && inj.Signals[0] == "read a secret file" && inj.Start < sc.self() {
				// "List the host aliases defined in ~/.ssh/config": the tool saying what
				// it does, in the imperative that tool descriptions are written in.
				continue
			}
			detail := fmt.Sprintf("score %.2f (%s) at byte %d: %q", inj.Score, strings.Join(inj.Signals, ", "), inj.Start, excerpt(folded, span{inj.Start, inj.End}))
			r.scanned = append(r.scanned, scanned{injectionKind(inj.Finding), w.field(), detail, inj.Finding})
		}
	}
	for _, m := range matchSignals(sc, folded, !wordy(s), false) {
		hits = append(hits, hit{sig: m.sig, field: w.field(), excerpt: excerpt(folded, m.at)})
	}
	return hits
}

// addScored reports the tool's signals when together they reach threshold: one finding
// per kind, at the field of its strongest signal.
func (r *report) addScored(hits []hit) {
	best := map[*signal]bool{}
	miss := 1.0
	for _, h := range hits {
		if !best[h.sig] {
			best[h.sig] = true
			miss *= 1 - h.sig.Weight
		}
	}
	score := 1 - miss
	if score < threshold {
		return
	}
	// Strongest first, so that each kind's finding sits at its best evidence.
	order := make([]hit, 0, len(hits))
	seen := map[*signal]bool{}
	for len(order) < len(best) {
		var top *hit
		for i := range hits {
			if h := &hits[i]; !seen[h.sig] && (top == nil || h.sig.Weight > top.sig.Weight) {
				top = h
			}
		}
		seen[top.sig] = true
		order = append(order, *top)
	}
	done := map[string]bool{}
	for _, h := range order {
		if done[h.sig.Kind] {
			continue
		}
		done[h.sig.Kind] = true
		var names []string
		for _, o := range order {
			if o.sig.Kind == h.sig.Kind {
				names = append(names, o.sig.Name)
			}
		}
		r.add(h.sig.Kind, h.field, fmt.Sprintf("%s (score %.2f): %q", strings.Join(names, ", "), score, h.excerpt), names...)
	}
}

// match is one verified match of a signal in a text.
type match struct {
	sig *signal
	at  span
}

// matchSignals returns the first verified match of each signal in s; terse, for a
// string without spaces, runs only the signals that can match one; nested, for text
// decoded from base64 or hex, leaves out the decoding signal so that the work is bounded.
func matchSignals(sc *scope, s string, terse, nested bool) []match {
	t := compiled()
	lower := strings.ToLower(s)
	// Which signals have a keyword and an Also word in s, and where their keywords are.
	kw, also := make([]bool, len(t.list)), make([]bool, len(t.list))
	var at [][]span
	t.index.find(lower, func(word, start int) {
		for _, ref := range t.refs[word] {
			if ref.also {
				also[ref.signal] = true
				continue
			}
			kw[ref.signal] = true
			if sg := t.list[ref.signal]; sg.Before+sg.After > 0 {
				if at == nil {
					at = make([][]span, len(t.list))
				}
				at[ref.signal] = append(at[ref.signal], span{start, start + len(t.index.words[word])})
			}
		}
	})
	var out []match
	for i, sg := range t.list {
		if terse && !sg.Terse {
			continue
		}
		if sg.Decode {
			if !nested {
				if found := findEncoded(sc, s); len(found) > 0 {
					out = append(out, match{sg, found[0]})
				}
			}
			continue
		}
		if sg.Find != nil {
			if found := sg.Find(sc, s); len(found) > 0 {
				out = append(out, match{sg, found[0]})
			}
			continue
		}
		if len(sg.Keywords) > 0 && !kw[i] || len(sg.Also) > 0 && !also[i] {
			continue
		}
		windows := []span{{0, len(s)}}
		if at != nil && at[i] != nil && len(lower) == len(s) {
			// Offsets in lower are offsets in s only when lowering kept every length.
			windows = mergeWindows(s, at[i], sg.Before, sg.After)
		}
		if m, ok := firstVerified(sc, sg, s, windows); ok {
			out = append(out, match{sg, m})
		}
	}
	return out
}

// firstVerified returns the first match of sg's pattern in the windows of s that its
// Verify accepts. Submatch offsets are made relative to s, so that Verify can look
// around the match.
func firstVerified(sc *scope, sg *signal, s string, windows []span) (span, bool) {
	for _, w := range windows {
		for _, m := range sg.re.FindAllStringSubmatchIndex(s[w.lo:w.hi], 16) {
			for j := range m {
				if m[j] >= 0 {
					m[j] += w.lo
				}
			}
			if sg.Verify == nil || sg.Verify(sc, s, m) {
				return span{m[0], m[1]}, true
			}
		}
	}
	return span{}, false
}

// mergeWindows returns the text around each keyword occurrence (sorted by start), before
// bytes before and after bytes after, joined where they overlap and on rune boundaries.
func mergeWindows(s string, occurrences []span, before, after int) []span {
	slices.SortFunc(occurrences, func(a, b span) int { return a.lo - b.lo })
	var out []span
	for _, o := range occurrences {
		lo, hi := runeStart(s, max(0, o.lo-before)), runeEnd(s, min(len(s), o.hi+after))
		if n := len(out); n > 0 && lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, hi)
			continue
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// findEncoded returns the base64 and hex runs of s that decode to text in which the
// signals or package scan's injection detector find an instruction: nobody encodes a
// tool's documentation for a human reader.
func findEncoded(sc *scope, s string) []span {
	var out []span
	for r := range injection.EncodedTexts(s) {
		inner := *sc
		inner.desc, inner.selfDone = "", false // offsets of the decoded text are its own
		strong := false
		for _, m := range matchSignals(&inner, r.Text, false, true) {
			strong = strong || m.sig.Weight >= medium
		}
		if strong || len(injection.Find(r.Text)) > 0 {
			out = append(out, span{r.Start, r.End})
		}
	}
	return out
}

// minEncoded is the shortest string that may hold an encoded instruction (scan reads
// base64 and hex runs from 32 bytes).
const minEncoded = 32

// wordy reports whether s could hold a sentence, and so is worth the injection
// detector's time: short strings without spaces are identifiers, enum values, formats.
func wordy(s string) bool {
	if len(s) >= minEncoded {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// selfDescription returns where the first sentence of a tool's description ends, when
// that sentence is the tool saying what it does: "Read the profiles in ~/.aws/config"
// describes the tool in the imperative tool descriptions are written in. A sentence
// that speaks of calling the tool or of its parameters is an order to the model, and
// 0 is returned.
func selfDescription(desc string) int {
	if desc == "" {
		return 0
	}
	end := len(desc)
	for i := 0; i < len(desc); i++ {
		if desc[i] == '\n' || desc[i] == '.' && (i+1 == len(desc) || desc[i+1] == ' ' || desc[i+1] == '\n') {
			end = i
			break
		}
	}
	if preconditionWords().MatchString(desc[:end]) {
		return 0
	}
	return end
}

// preconditionWords mark a sentence that orders something around the use of a tool.
var preconditionWords = lazyRegexp(`(?i)\b(?:before|prior\s+to|first|then|after|when(?:ever)?|calling|call|using|use|invok\w*|pass|put|include|insert|send|parameter|argument|field|param)\b`)

// hiddenUnicode reports whether a finding id of scan.Unicode is text a reader does not
// see. Compatibility forms are left out: fullwidth punctuation is ordinary in Chinese
// and Japanese descriptions, and the injection detector reads them normalised anyway.
func hiddenUnicode(id string) bool {
	switch id {
	case smuggling.FindZeroWidth, smuggling.FindBidiControl, smuggling.FindTagCharacters, smuggling.FindVariationSelector:
		return true
	}
	return false
}

// injectionKind maps a finding of package scan's injection detector to the kind it is
// in a tool's definition.
func injectionKind(id string) string {
	switch id {
	case injection.FindHidden, injection.FindInvisible:
		return FindHidden
	}
	return FindPoisoning
}

// excerpt returns the matched text with some context, at most 80 bytes, with secrets
// masked and spaces collapsed.
func excerpt(s string, at span) string {
	lo, hi := runeStart(s, max(0, at.lo-10)), runeEnd(s, min(len(s), max(at.hi, at.lo+60)))
	e := strings.Join(strings.Fields(scan.Redact(s[lo:hi])), " ")
	if len(e) > 80 {
		e = e[:runeStart(e, 80)] + "…"
	}
	return e
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
