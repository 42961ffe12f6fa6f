package toolscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// text is one string of a tool's definition, and where it is.
type text struct {
	field string // "description", "inputSchema.properties.notes.description"
	s     string
	key   bool // s is an object key, such as a parameter's name
}

// texts returns every string of t that a model may read: the description, every key and
// string of the input schema, and the strings of Raw's other members. The tool's name
// is not among them: it is an identifier, checked on its own.
func (t Tool) texts() []text {
	out := []text{{field: "description", s: t.Description}}
	out = walkJSON(t.InputSchema, "inputSchema", nil, out)
	out = walkJSON(t.Raw, "", func(key string) bool {
		switch key {
		case "name", "description", "inputSchema":
			return true // read from the fields above
		case "icons":
			return true // image addresses, which no model reads as text
		}
		return false
	}, out)
	return out
}

// walkJSON appends the keys and strings of the JSON value data to out, each with its
// path below prefix. Members of a top-level object whose key skip accepts are left out.
// A value that is not valid JSON ends the walk quietly: ParseList has already refused
// such listings, and a Tool built by hand has only its description to offer.
func walkJSON(data []byte, prefix string, skip func(string) bool, out []text) []text {
	if len(data) == 0 {
		return out
	}
	type frame struct {
		obj     bool
		key     string
		idx     int
		wantKey bool
	}
	var stack []frame
	path := func(key string, useKey bool) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i, f := range stack {
			switch {
			case f.obj && i == len(stack)-1 && useKey:
				writeSegment(&b, key)
			case f.obj:
				writeSegment(&b, f.key)
			default:
				b.WriteString("[" + strconv.Itoa(f.idx) + "]")
			}
		}
		return strings.TrimPrefix(b.String(), ".")
	}
	// valueDone moves the innermost container past the value just read.
	valueDone := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].obj {
				stack[n-1].wantKey = true
			} else {
				stack[n-1].idx++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			if err != io.EOF {
				return out
			}
			return out
		}
		top := len(stack) - 1
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, frame{obj: v == '{', wantKey: v == '{'})
			default:
				stack = stack[:top]
				valueDone()
			}
		case string:
			if top >= 0 && stack[top].obj && stack[top].wantKey {
				if top == 0 && skip != nil && skip(v) {
					var ignored json.RawMessage
					if dec.Decode(&ignored) != nil {
						return out
					}
					continue // wantKey stays true: the next token is a key
				}
				stack[top].key, stack[top].wantKey = v, false
				out = append(out, text{field: path(v, true), s: v, key: true})
				continue
			}
			out = append(out, text{field: path("", false), s: v})
			valueDone()
		default:
			valueDone()
		}
	}
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
