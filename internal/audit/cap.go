package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
)

// The record cap. One record must not dominate the log: a handful of huge ones would
// otherwise rotate the rest away. A record whose line is longer than the cap is
// summarised in steps, each taken only while the line is still too long: long strings
// clipped (anywhere: fields, argument keys and values, findings), then the arguments cut
// down to those that fit a budget (the class's own first: the command, the path, the
// URL), then the findings, then every string clipped short, and at last arguments and
// findings dropped. What makes the decision (time, agent, class, decision, rule, failure,
// answer) is never removed. Clipped says what was done, with the length and SHA-256 of
// the line before.

// Budgets of the steps, in bytes of JSON.
const (
	clipLong      = 1 << 10
	argsBudget    = 4 << 10
	findingBudget = 4 << 10
	clipShort     = 256
	clipLast      = 64
)

// summarise shrinks r, whose line full is longer than limit, until its line fits.
func summarise(r Record, full []byte, limit int) ([]byte, error) {
	sum := sha256.Sum256(bytes.TrimSuffix(full, []byte{'\n'}))
	var notes []string
	steps := []func(){
		func() {
			if n := clipRecordStrings(&r, clipLong); n > 0 {
				notes = append(notes, fmt.Sprintf("%d strings clipped to %d bytes", n, clipLong))
			}
		},
		func() {
			if kept, all := shrinkArgs(&r, argsBudget); kept < all {
				notes = append(notes, fmt.Sprintf("%d of %d arguments kept", kept, all))
			}
		},
		func() {
			if kept, all := shrinkFindings(&r, findingBudget); kept < all {
				notes = append(notes, fmt.Sprintf("%d of %d findings kept", kept, all))
			}
		},
		func() {
			if n := clipRecordStrings(&r, clipShort); n > 0 {
				notes = append(notes, fmt.Sprintf("%d strings clipped to %d bytes", n, clipShort))
			}
		},
		func() {
			if len(r.Args) > 0 {
				notes = append(notes, fmt.Sprintf("%d arguments dropped", len(r.Args)))
				r.Args = nil
			}
			if len(r.Findings) > 0 {
				notes = append(notes, fmt.Sprintf("%d findings dropped", len(r.Findings)))
				r.Findings = nil
			}
			if n := clipRecordStrings(&r, clipLast); n > 0 {
				notes = append(notes, fmt.Sprintf("%d strings clipped to %d bytes", n, clipLast))
			}
		},
	}
	var line []byte
	for _, step := range steps {
		step()
		r.Clipped = fmt.Sprintf("record of %d bytes (sha256 %x) summarised: %s", len(full)-1, sum, strings.Join(notes, "; "))
		var err error
		if line, err = marshalLine(r); err != nil {
			return nil, err
		}
		if len(line) <= limit {
			break
		}
	}
	// Past the last step only the fixed fields remain, each at most clipLast bytes and a
	// note: that fits any limit Open accepts.
	return line, nil
}

// clipRecordStrings clips every string of r longer than max bytes of JSON, and returns
// how many it clipped.
func clipRecordStrings(r *Record, max int) int {
	n := 0
	if r.Findings != nil {
		r.Findings = slices.Clone(r.Findings)
	}
	for _, f := range stringFields(r) {
		if c := clipJSON(*f, max); c != *f {
			*f, n = c, n+1
		}
	}
	if r.Args != nil {
		var args any
		args, n = clipValue(r.Args, max, n)
		r.Args = args.(map[string]any)
	}
	return n
}

// clipValue returns a copy of v, as redaction leaves it, with its long strings and keys
// clipped; count is increased by how many were.
func clipValue(v any, max, count int) (any, int) {
	switch v := v.(type) {
	case string:
		if c := clipJSON(v, max); c != v {
			return c, count + 1
		}
		return v, count
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			key := clipJSON(k, max)
			if key != k {
				count++
			}
			out[key], count = clipValue(v[k], max, count)
		}
		return out, count
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i], count = clipValue(e, max, count)
		}
		return out, count
	case []string:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = clipJSON(e, max)
			if out[i] != e {
				count++
			}
		}
		return out, count
	}
	return v, count
}

// shrinkArgs keeps, of r's arguments, those that fit budget bytes of JSON: the class's
// canonical arguments first, then the others by name. It returns how many it kept of
// how many there were.
func shrinkArgs(r *Record, budget int) (kept, all int) {
	if len(r.Args) == 0 {
		return 0, 0
	}
	order := slices.Sorted(maps.Keys(r.Args))
	first := call.ArgKeys[call.Class(r.Class)]
	slices.SortStableFunc(order, func(a, b string) int {
		return boolInt(!slices.Contains(first, a)) - boolInt(!slices.Contains(first, b))
	})
	out := map[string]any{}
	used := 0
	for _, k := range order {
		n := jsonSize(map[string]any{k: r.Args[k]})
		if used+n > budget {
			continue
		}
		out[k] = r.Args[k]
		used += n
	}
	kept, all = len(out), len(r.Args)
	r.Args = out
	return kept, all
}

// shrinkFindings keeps the first findings that fit budget bytes of JSON.
func shrinkFindings(r *Record, budget int) (kept, all int) {
	used := 0
	for i, f := range r.Findings {
		used += jsonSize(f)
		if used > budget {
			all = len(r.Findings)
			r.Findings = r.Findings[:i]
			return i, all
		}
	}
	return len(r.Findings), len(r.Findings)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// clipJSON returns s when its JSON encoding is at most max bytes; otherwise its longest
// prefix that leaves room for a note of its length and SHA-256, and the note, cut at a
// rune boundary. Sizes are counted as JSON, where a control character takes six bytes:
// the cap is on the line.
func clipJSON(s string, max int) string {
	if jsonStringLen(s) <= max {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	note := fmt.Sprintf("…[moat: %d bytes in all, sha256 %x]", len(s), sum)
	room := max - jsonStringLen(note)
	used, cut := 2, 0 // the quotes
	for cut < len(s) {
		r, size := utf8.DecodeRuneInString(s[cut:])
		w := jsonRuneLen(r, size)
		if used+w > room {
			break
		}
		used += w
		cut += size
	}
	return s[:cut] + note
}

// jsonStringLen bounds the length of s encoded as a JSON string, quotes included.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += jsonRuneLen(r, size)
		i += size
	}
	return n
}

// jsonRuneLen bounds the length of one rune (size bytes of a string) in a JSON string as
// encoding/json writes it without HTML escaping.
func jsonRuneLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6 // \ufffd
	case r == '"' || r == '\\':
		return 2
	case r < 0x20, r == '\u2028', r == '\u2029':
		return 6
	}
	return size
}
