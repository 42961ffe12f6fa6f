package toolscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/strictjson"
)

// Tool is one tool of a tools/list result.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage // nil when the tool has none
	// Raw is the tool object exactly as the server listed it, or nil. Inspect reads the
	// strings of its other members too (title, annotations, outputSchema, _meta): a
	// client may show any of them to the model.
	Raw json.RawMessage
}

// ParseList returns the tools of a tools/list result object, each with Raw holding its
// bytes as listed. The result must pass strictjson's checks: a listing that two JSON
// parsers read differently (two "description" keys, say) could show the model one tool
// and moat another. Every tool must be an object with a string name.
func ParseList(result []byte) ([]Tool, error) {
	l, err := splitList(result)
	if err != nil {
		return nil, err
	}
	tools := make([]Tool, 0, len(l.elems))
	for i, e := range l.elems {
		t, err := parseTool(result[e.lo:e.hi])
		if err != nil {
			return nil, fmt.Errorf("tools/list result: tools[%d] at byte %d: %w", i, e.lo, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// parseTool reads one tool object whose JSON is already known to be strict.
func parseTool(raw []byte) (Tool, error) {
	// A map, not a struct: encoding/json matches struct fields ignoring case, and a tool
	// whose only name is under "NAME" has no name for any other client.
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Tool{}, errors.New("not an object")
	}
	t := Tool{Raw: json.RawMessage(raw)}
	name, ok := m["name"]
	if !ok || len(name) == 0 || name[0] != '"' {
		return Tool{}, errors.New("name is missing or not a string")
	}
	if err := json.Unmarshal(name, &t.Name); err != nil {
		return Tool{}, fmt.Errorf("name: %w", err)
	}
	if d, ok := m["description"]; ok && string(d) != "null" {
		if len(d) == 0 || d[0] != '"' {
			return Tool{}, fmt.Errorf("tool %q: description is not a string", t.Name)
		}
		if err := json.Unmarshal(d, &t.Description); err != nil {
			return Tool{}, fmt.Errorf("tool %q: description: %w", t.Name, err)
		}
	}
	if s, ok := m["inputSchema"]; ok && string(s) != "null" {
		t.InputSchema = s
	}
	return t, nil
}

// span is the half-open byte range [lo, hi).
type span struct{ lo, hi int }

// list is where a tools/list result keeps its tools: the array's brackets and each
// element, as byte offsets into the result.
type list struct {
	open, close int // offsets of '[' and ']'
	elems       []span
}

// splitList checks result strictly and finds its tools array and elements without
// decoding them.
func splitList(result []byte) (list, error) {
	if err := strictjson.Check(result, strictjson.Limits{}); err != nil {
		return list{}, fmt.Errorf("tools/list result: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(result))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return list{}, errors.New("tools/list result: not an object")
	}
	var l list
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return list{}, fmt.Errorf("tools/list result: %w", err)
		}
		if key, _ := tok.(string); key != "tools" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return list{}, fmt.Errorf("tools/list result: %w", err)
			}
			continue
		}
		found = true
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return list{}, errors.New("tools/list result: tools is not an array")
		}
		l.open = int(dec.InputOffset()) - 1
		for dec.More() {
			var elem json.RawMessage
			if err := dec.Decode(&elem); err != nil {
				return list{}, fmt.Errorf("tools/list result: tools[%d]: %w", len(l.elems), err)
			}
			hi := int(dec.InputOffset())
			lo := hi - len(elem)
			if elem[0] != '{' {
				return list{}, fmt.Errorf("tools/list result: tools[%d] at byte %d: not an object", len(l.elems), lo)
			}
			l.elems = append(l.elems, span{lo, hi})
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return list{}, fmt.Errorf("tools/list result: %w", err)
		}
		l.close = int(dec.InputOffset()) - 1
	}
	if !found {
		return list{}, errors.New("tools/list result: no tools array")
	}
	return l, nil
}

// walk calls visit for every string of t that a model may read: the description, every
// key and string of the input schema, and the keys and strings of Raw's other members.
// The tool's name is not among them: it is an identifier, checked on its own.
func (t Tool) walk(visit func(w *where, s string, key bool)) {
	w := &where{}
	visit(w, t.Description, false)
	walkJSON(t.InputSchema, "inputSchema", nil, w, visit)
	walkJSON(t.Raw, "", func(key string) bool {
		switch key {
		case "name", "description", "inputSchema":
			return true // read from the fields above
		case "icons":
			return true // image addresses, which no model reads as text
		}
		return false
	}, w, visit)
}

// where is the position of a string in a tool's definition, kept as segments so that
// the dotted field is only rendered for the few strings that are reported.
type where struct {
	prefix string
	segs   []segment
}

// segment is one step of a path: an object member or an array index.
type segment struct {
	key   string
	index int // -1 for a member
}

// field renders the path: "description", "inputSchema.properties.notes.description",
// "inputSchema.properties.mode.enum[2]".
func (w *where) field() string {
	if w.prefix == "" && len(w.segs) == 0 {
		return "description"
	}
	var b strings.Builder
	b.WriteString(w.prefix)
	for _, s := range w.segs {
		if s.index >= 0 {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		} else {
			writeSegment(&b, s.key)
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

// param returns the parameter whose documentation the string is part of: notes for
// inputSchema.properties.notes.description or .enum[1], or "".
func (w *where) param() string {
	if w.prefix != "inputSchema" {
		return ""
	}
	for j := len(w.segs) - 3; j >= 0; j-- {
		s := w.segs[j]
		if s.index < 0 && s.key == "properties" && w.segs[j+1].index < 0 && w.segs[j+2].index < 0 {
			// Only the members of the parameter's own schema, and the items of an
			// array member, document it.
			for _, rest := range w.segs[j+3:] {
				if rest.index < 0 {
					return ""
				}
			}
			return w.segs[j+1].key
		}
	}
	return ""
}

// maxWalkDepth bounds the nesting walkJSON follows. ParseList's strict check already
// allows no more than 128 levels; a Tool built by hand could hold anything.
const maxWalkDepth = 256

// walkJSON calls visit for the keys and strings of the JSON value data, each at its
// path below prefix. Members of a top-level object whose key skip accepts are left
// out. Malformed JSON ends the walk quietly: ParseList has already refused such
// listings, and a Tool built by hand has only its description to offer.
func walkJSON(data []byte, prefix string, skip func(string) bool, w *where, visit func(*where, string, bool)) {
	if len(data) == 0 {
		return
	}
	*w = where{prefix: prefix, segs: w.segs[:0]}
	j := &jsonWalk{data: data, w: w, visit: visit, skip: skip}
	j.value(0, false)
	*w = where{segs: w.segs[:0]}
}

// jsonWalk is a small reader of JSON that was already checked, or that may be invalid
// and is then abandoned: it keeps no token it does not hand to visit.
type jsonWalk struct {
	data  []byte
	i     int
	bad   bool
	w     *where
	visit func(*where, string, bool)
	skip  func(string) bool
}

func (j *jsonWalk) ws() {
	for j.i < len(j.data) {
		switch j.data[j.i] {
		case ' ', '\t', '\n', '\r':
			j.i++
		default:
			return
		}
	}
}

// value reads one value; mute reads without visiting.
func (j *jsonWalk) value(depth int, mute bool) {
	j.ws()
	if j.bad || j.i >= len(j.data) || depth > maxWalkDepth {
		j.bad = true
		return
	}
	switch c := j.data[j.i]; {
	case c == '{':
		j.object(depth, mute)
	case c == '[':
		j.array(depth, mute)
	case c == '"':
		s, ok := j.str()
		if !ok {
			return
		}
		if !mute {
			j.visit(j.w, s, false)
		}
	default:
		start := j.i
		for j.i < len(j.data) && strings.IndexByte("+-.0123456789eEtruefalsn", j.data[j.i]) >= 0 {
			j.i++
		}
		if j.i == start {
			j.bad = true
		}
	}
}

func (j *jsonWalk) object(depth int, mute bool) {
	j.i++ // {
	j.ws()
	if j.i < len(j.data) && j.data[j.i] == '}' {
		j.i++
		return
	}
	for !j.bad {
		j.ws()
		if j.i >= len(j.data) || j.data[j.i] != '"' {
			j.bad = true
			return
		}
		key, ok := j.str()
		if !ok {
			return
		}
		skip := depth == 0 && j.skip != nil && j.skip(key)
		j.w.segs = append(j.w.segs, segment{key: key, index: -1})
		if !mute && !skip {
			j.visit(j.w, key, true)
		}
		j.ws()
		if j.i >= len(j.data) || j.data[j.i] != ':' {
			j.bad = true
			return
		}
		j.i++
		j.value(depth+1, mute || skip)
		j.w.segs = j.w.segs[:len(j.w.segs)-1]
		if !j.next('}') {
			return
		}
	}
}

func (j *jsonWalk) array(depth int, mute bool) {
	j.i++ // [
	j.ws()
	if j.i < len(j.data) && j.data[j.i] == ']' {
		j.i++
		return
	}
	for n := 0; !j.bad; n++ {
		j.w.segs = append(j.w.segs, segment{index: n})
		j.value(depth+1, mute)
		j.w.segs = j.w.segs[:len(j.w.segs)-1]
		if !j.next(']') {
			return
		}
	}
}

// next reads the ',' between two members or elements, and reports whether another
// follows; it reads the closing bracket otherwise.
func (j *jsonWalk) next(closing byte) bool {
	j.ws()
	if j.bad || j.i >= len(j.data) {
		j.bad = true
		return false
	}
	switch j.data[j.i] {
	case ',':
		j.i++
		return true
	case closing:
		j.i++
		return false
	}
	j.bad = true
	return false
}

// str reads a string token; one with escapes is decoded by encoding/json.
func (j *jsonWalk) str() (string, bool) {
	start := j.i
	escaped := false
	for j.i++; j.i < len(j.data); j.i++ {
		switch j.data[j.i] {
		case '\\':
			escaped = true
			j.i++
		case '"':
			j.i++
			if !escaped {
				return string(j.data[start+1 : j.i-1]), true
			}
			var s string
			if err := json.Unmarshal(j.data[start:j.i], &s); err != nil {
				j.bad = true
				return "", false
			}
			return s, true
		}
	}
	j.bad = true
	return "", false
}

// writeSegment appends one key to a field path: .name when it reads as an identifier,
// ["quoted"] otherwise, cut short so that a key cannot flood the evidence.
func writeSegment(b *strings.Builder, key string) {
	plain := key != ""
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c == '_' || c == '-' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			plain = false
			break
		}
	}
	if plain && len(key) <= 64 {
		b.WriteString("." + key)
		return
	}
	if len(key) > 40 {
		key = key[:runeStart(key, 40)] + "…"
	}
	b.WriteString("[" + strconv.Quote(key) + "]")
}

// runeStart moves i back to the start of the rune that contains s[i].
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
