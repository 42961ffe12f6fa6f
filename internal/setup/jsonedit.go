package setup

import (
	"errors"
	"fmt"
	"strings"
)

// The agents' settings files are edited in place, as text: what moat adds is spliced in
// and what it removes is cut out, so every byte moat does not touch (the user's other
// settings, their order, spacing and comments) stays as it was. A small parser finds
// where each value starts and ends; it accepts JSON with // and /* */ comments (some
// agents' settings allow them) and trailing commas.

// node is a parsed JSON value and where it lies in the text.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for numbers and literals
	start, end int  // the value's bytes: text[start:end]
	keys       []string
	keyStarts  []int   // where each member's key starts (objects)
	elems      []*node // members' values (objects) or elements (arrays)
}

// member returns the value of key in an object node, or nil.
func (n *node) member(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.elems[i]
		}
	}
	return nil
}

type jsonParser struct {
	s   string
	pos int
}

// parseJSON parses text, which must hold one value (an empty text is an empty object).
func parseJSON(text string) (*node, error) {
	p := &jsonParser{s: text}
	p.space()
	if p.pos == len(p.s) {
		return nil, nil
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.s) {
		return nil, p.errorf("unexpected text after the JSON value")
	}
	return n, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	p.pos = min(p.pos, len(p.s))
	line := strings.Count(p.s[:p.pos], "\n") + 1
	col := p.pos - strings.LastIndexByte(p.s[:p.pos], '\n')
	return fmt.Errorf("line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *jsonParser) space() {
	for p.pos < len(p.s) {
		switch c := p.s[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case strings.HasPrefix(p.s[p.pos:], "//"):
			if i := strings.IndexByte(p.s[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.s)
			}
		case strings.HasPrefix(p.s[p.pos:], "/*"):
			if i := strings.Index(p.s[p.pos+2:], "*/"); i >= 0 {
				p.pos += i + 4
			} else {
				p.pos = len(p.s)
			}
		default:
			return
		}
	}
}

func (p *jsonParser) value() (*node, error) {
	if p.pos >= len(p.s) {
		return nil, p.errorf("unexpected end of the file")
	}
	switch c := p.s[p.pos]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		start := p.pos
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.pos}, nil
	default:
		start := p.pos
		for p.pos < len(p.s) && strings.IndexByte(",]} \t\r\n/", p.s[p.pos]) < 0 {
			p.pos++
		}
		if p.pos == start {
			return nil, p.errorf("unexpected %q", c)
		}
		return &node{kind: 'v', start: start, end: p.pos}, nil
	}
}

// str reads a string and returns its content (escapes are kept as written: keys that
// matter here are plain ASCII).
func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '\\':
			p.pos = min(p.pos+2, len(p.s))
		case '"':
			p.pos++
			return p.s[start+1 : p.pos-1], nil
		default:
			p.pos++
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *jsonParser) object() (*node, error) {
	n := &node{kind: '{', start: p.pos}
	p.pos++
	for {
		p.space()
		if p.pos >= len(p.s) {
			return nil, p.errorf("unterminated object")
		}
		if p.s[p.pos] == '}' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if p.s[p.pos] != '"' {
			return nil, p.errorf("expected a key")
		}
		keyStart := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, p.errorf("expected ':' after key %q", key)
		}
		p.pos++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.keys, n.keyStarts, n.elems = append(n.keys, key), append(n.keyStarts, keyStart), append(n.elems, v)
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == ',' {
			p.pos++
		}
	}
}

func (p *jsonParser) array() (*node, error) {
	n := &node{kind: '[', start: p.pos}
	p.pos++
	for {
		p.space()
		if p.pos >= len(p.s) {
			return nil, p.errorf("unterminated array")
		}
		if p.s[p.pos] == ']' {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == ',' {
			p.pos++
		}
	}
}

// indentOf returns the white space that starts the line holding s[pos].
func indentOf(s string, pos int) string {
	lineStart := strings.LastIndexByte(s[:pos], '\n') + 1
	i := lineStart
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[lineStart:i]
}

// unitIndent guesses the file's indentation step: that of its first indented line, or
// two spaces.
func unitIndent(s string) string {
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

// appendMember returns text with "key": value added as the last member of the object
// n. value is JSON text; its lines after the first are indented to fit.
func appendMember(text string, n *node, key, value string) string {
	return appendItem(text, n, fmt.Sprintf("%q: %s", key, value))
}

// appendElement returns text with value added as the last element of the array n.
func appendElement(text string, n *node, value string) string {
	return appendItem(text, n, value)
}

// appendItem inserts item before the closing bracket of the object or array n, after a
// comma if n has members, on its own line indented one step deeper than n's line.
func appendItem(text string, n *node, item string) string {
	base := indentOf(text, n.start)
	inner := base + unitIndent(text)
	item = strings.ReplaceAll(item, "\n", "\n"+inner)
	closing := n.end - 1
	if len(n.elems) == 0 {
		return text[:n.start+1] + "\n" + inner + item + "\n" + base + text[closing:]
	}
	last := n.elems[len(n.elems)-1]
	// After the last member, keeping a trailing comma or comment where it is.
	insertAt := last.end
	rest := text[insertAt:closing]
	if trimmed := strings.TrimSpace(rest); strings.HasPrefix(trimmed, ",") {
		insertAt += strings.Index(rest, ",") + 1
		return text[:insertAt] + "\n" + inner + item + "," + text[insertAt:]
	}
	return text[:insertAt] + ",\n" + inner + item + text[insertAt:]
}

// itemStart is where the i-th member (its key) or element of n starts.
func itemStart(n *node, i int) int {
	if n.kind == '{' {
		return n.keyStarts[i]
	}
	return n.elems[i].start
}

// removeItem returns text without the i-th member or element of n, with the separator
// that went with it: the comma before it, or for the first item the comma after it.
func removeItem(text string, n *node, i int) string {
	start, end := itemStart(n, i), n.elems[i].end
	switch {
	case len(n.elems) == 1:
		// The only item: the container becomes empty, on one line.
		return text[:n.start+1] + text[n.end-1:]
	case i > 0:
		return text[:n.elems[i-1].end] + text[end:]
	default:
		return text[:start] + text[itemStart(n, 1):]
	}
}

var errNotObject = errors.New("the settings file does not hold a JSON object")
