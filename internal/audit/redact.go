package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// redactRecord returns a copy of r in which every string has been through red: the
// fields that came from the agent (Tool, MCP, Event, Session, Cwd, Reason, each finding's
// Evidence, and everything in Args: keys, strings and numbers, at any depth), and those
// moat makes itself too (Agent, Class, Rule, Policy, Answer, finding ids), since some of
// them are built from what the agent sent (an MCP tool's name, a policy's path) and a
// field left out is a field a secret can reach the log through. r's maps and slices are
// not modified.
func redactRecord(r Record, red Redactor) Record {
	if vf, ok := red.(valueFinder); ok {
		red = everywhere(r, red, vf)
	}
	if r.Findings != nil {
		r.Findings = slices.Clone(r.Findings) // the fields below are written through
	}
	for _, f := range stringFields(&r) {
		*f = red.RedactString(*f)
	}
	if r.Args != nil {
		r.Args = redactMap(r.Args, red)
	}
	return r
}

// stringFields points at every string field of r, its findings' included; Args, a tree,
// is walked apart.
func stringFields(r *Record) []*string {
	fs := []*string{&r.Agent, &r.Session, &r.Event, &r.Class, &r.Tool, &r.MCP, &r.Cwd, &r.Answer, &r.Rule, &r.Reason, &r.Policy}
	for i := range r.Findings {
		f := &r.Findings[i]
		fs = append(fs, &f.ID, &f.Category, &f.Taxonomy, &f.Evidence)
	}
	return fs
}

// redactMap copies m with its keys and values redacted. When redaction makes two keys
// equal, the later ones (in sorted order of the original keys) get a "#2", "#3"… suffix so
// that no value is lost.
func redactMap[V any](m map[string]V, red Redactor) map[string]any {
	out := make(map[string]any, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		key := red.RedactString(k)
		for n := 2; ; n++ {
			if _, taken := out[key]; !taken {
				break
			}
			key = red.RedactString(k) + "#" + strconv.Itoa(n)
		}
		out[key] = redactValue(m[k], red)
	}
	return out
}

// redactValue returns a redacted copy of v. Values of types JSON decoding produces are
// walked directly; anything else is first converted to what encoding/json would write for
// it, so that no string can hide inside a struct or a typed map.
func redactValue(v any, red Redactor) any {
	switch v := v.(type) {
	case nil, bool:
		return v
	case string:
		return clip(red.RedactString(v))
	case json.Number:
		// Numbers are redacted through their text, since a detector may match digits (a
		// card number); a masked number is recorded as a string.
		if s := red.RedactString(string(v)); s != string(v) {
			return s
		}
		return v
	case map[string]any:
		return redactMap(v, red)
	case map[string]string:
		return redactMap(v, red)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e, red)
		}
		return out
	case []string:
		out := make([]string, len(v))
		for i, e := range v {
			out[i] = clip(red.RedactString(e))
		}
		return out
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Keep the record: a value that cannot be encoded is replaced, never dropped with it.
		return fmt.Sprintf("!unencodable %T", v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return fmt.Sprintf("!unencodable %T", v)
	}
	if n, ok := generic.(json.Number); ok {
		if s := red.RedactString(string(n)); s != string(n) {
			return s
		}
		return v // an unchanged number keeps its Go type
	}
	return redactValue(generic, red)
}

// Arguments longer than maxArgBytes (a file written whole, a long patch) are recorded by
// their first keptArgBytes and a note of their length and digest: the log is for what was
// decided and why, and a copy of every file an agent writes would make it a second,
// unbounded store of the user's data.
const (
	maxArgBytes  = 8 << 10
	keptArgBytes = 2 << 10
)

// clip shortens an argument string (already redacted) longer than maxArgBytes, cutting at
// a UTF-8 boundary. The digest lets a reader check a file against what the agent wrote.
func clip(s string) string {
	if len(s) <= maxArgBytes {
		return s
	}
	cut := keptArgBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s%s%d bytes in all, sha256 %x]", s[:cut], ClipMark, len(s), sum)
}

// Marks the log writes in place of what it does not keep, for readers that must tell a
// value from what is left of it (moat fix, which must not write a rule matching a mark).
const (
	// Mask replaces a secret value found in one field wherever else it appears; the
	// Redactor's own masks are its own (scan.MaskPrefix).
	Mask = "[REDACTED]"
	// ClipMark follows the start of a clipped argument, before its size and digest.
	ClipMark = "…[moat: "
)

// valueFinder is implemented by redactors that can list the secret values they would
// mask in a string.
type valueFinder interface {
	SecretValues(string) []string
}

// minPropagated is the shortest secret value masked wherever it appears: shorter ones
// would also mask ordinary words.
const minPropagated = 8

// everywhere returns a redactor that also masks, in every string of the record, the
// secret values found anywhere in it: a token detected in a command (where its context
// shows it is one) is masked in an argument that holds it bare, where nothing shows it.
func everywhere(r Record, red Redactor, vf valueFinder) Redactor {
	var values []string
	collect := func(s string) {
		for _, v := range vf.SecretValues(s) {
			if len(v) >= minPropagated {
				values = append(values, v)
			}
		}
	}
	for _, f := range stringFields(&r) {
		collect(*f)
	}
	walkRecordStrings(r.Args, collect)
	if len(values) == 0 {
		return red
	}
	// Longest first, so that a value containing another is masked whole.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	values = slices.Compact(values)
	pairs := make([]string, 0, 2*len(values))
	for _, v := range values {
		pairs = append(pairs, v, Mask)
	}
	return propagated{red, strings.NewReplacer(pairs...)}
}

type propagated struct {
	Redactor
	values *strings.Replacer
}

func (p propagated) RedactString(s string) string {
	return p.values.Replace(p.Redactor.RedactString(s))
}

// walkRecordStrings calls fn with every key and string value in v, at any depth, and
// with the text of values of other types as encoding/json would write them.
func walkRecordStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case nil, bool:
	case string:
		fn(v)
	case json.Number:
		fn(string(v))
	case map[string]any:
		for k, x := range v {
			fn(k)
			walkRecordStrings(x, fn)
		}
	case []any:
		for _, x := range v {
			walkRecordStrings(x, fn)
		}
	default:
		if b, err := json.Marshal(v); err == nil {
			fn(string(b))
		}
	}
}

// RedactArgs returns a copy of a call's arguments redacted as a record's are: what a
// record of the call would hold (secrets masked, long strings clipped), for state kept
// beside the log that must hold no more than it does.
func RedactArgs(args map[string]any, red Redactor) map[string]any {
	return redactRecord(Record{Args: args}, red).Args
}
