package textedit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

type jsonParser struct {
	s   string
	pos int
}

// ParseJSON parses text, which must hold one value: the JSON with comments that agents
// keep their settings in. An empty text (white space and comments only) gives a nil value
// and no error. A mistake is a *SyntaxError.
//
// It is strict where a loose reading could corrupt a file moat splices into: members and
// elements must be separated by commas, literals must be literals and comments must be
// closed. What it accepts beyond JSON is what the agents' own JSONC parsers accept: // and
// /* */ comments, trailing commas and a leading byte order mark.
func ParseJSON(text string) (*Value, error) {
	p := &jsonParser{s: text}
	if strings.HasPrefix(text, "\uFEFF") {
		p.pos = len("\uFEFF")
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos == len(p.s) {
		return nil, nil
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(p.s) {
		return nil, p.errorf("unexpected text after the JSON value")
	}
	return v, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return syntaxError(p.s, p.pos, format, args...)
}

// SkipJSONSpace returns where the white space and comments that start at text[pos] end.
func SkipJSONSpace(text string, pos int) int {
	p := &jsonParser{s: text, pos: pos}
	p.space() // an unclosed comment runs to the end
	return p.pos
}

// space skips white space and comments.
func (p *jsonParser) space() error {
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
			i := strings.Index(p.s[p.pos+2:], "*/")
			if i < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

func (p *jsonParser) value(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.errorf("values nested too deeply")
	}
	if p.pos >= len(p.s) {
		return nil, p.errorf("unexpected end of the file")
	}
	switch c := p.s[p.pos]; c {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		start := p.pos
		if err := p.str(); err != nil {
			return nil, err
		}
		return &Value{Kind: '"', Start: start, End: p.pos}, nil
	default:
		start := p.pos
		for p.pos < len(p.s) && strings.IndexByte(",]}: \t\r\n/\"{[", p.s[p.pos]) < 0 {
			p.pos++
		}
		if !isJSONLiteral(p.s[start:p.pos]) {
			p.pos = start
			if start < len(p.s) {
				r, _ := utf8.DecodeRuneInString(p.s[start:])
				return nil, p.errorf("unexpected %q", r)
			}
			return nil, p.errorf("unexpected end of the file")
		}
		return &Value{Kind: 'v', Start: start, End: p.pos}, nil
	}
}

// isJSONLiteral reports whether s is true, false, null or a JSON number.
func isJSONLiteral(s string) bool {
	switch s {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	i := 0
	if s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// str skips a string, checking its escapes, so that decoding it later cannot fail.
func (p *jsonParser) str() error {
	start := p.pos
	p.pos++
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case '\\':
			if p.pos+1 >= len(p.s) {
				p.pos = start
				return p.errorf("unterminated string")
			}
			switch p.s[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				if p.pos+6 > len(p.s) || !IsHex(p.s[p.pos+2:p.pos+6]) {
					return p.errorf(`invalid \u escape`)
				}
				p.pos += 6
			default:
				return p.errorf("invalid escape %q", p.s[p.pos:p.pos+2])
			}
		case '"':
			p.pos++
			return nil
		case '\n':
			// A string cannot span lines; saying so here points at the real mistake (a
			// missing quote) instead of at the end of the file.
			p.pos = start
			return p.errorf("unterminated string")
		default:
			p.pos++
		}
	}
	p.pos = start
	return p.errorf("unterminated string")
}

func (p *jsonParser) object(depth int) (*Value, error) {
	v := &Value{Kind: '{', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			// An empty object, or a trailing comma.
			p.pos++
			v.End = p.pos
			return v, nil
		}
		if p.pos >= len(p.s) || p.s[p.pos] != '"' {
			return nil, p.errorf("expected a key in quotes")
		}
		keyStart := p.pos
		if err := p.str(); err != nil {
			return nil, err
		}
		key, _ := UnquoteJSON(p.s[keyStart:p.pos])
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, p.errorf("expected ':' after the key %q", key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		m, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Keys, v.KeyStarts, v.Elems = append(v.Keys, key), append(v.KeyStarts, keyStart), append(v.Elems, m)
		if err := p.space(); err != nil {
			return nil, err
		}
		switch {
		case p.pos < len(p.s) && p.s[p.pos] == ',':
			p.pos++
		case p.pos < len(p.s) && p.s[p.pos] == '}':
			p.pos++
			v.End = p.pos
			return v, nil
		default:
			return nil, p.errorf("expected ',' or '}' after the member %q", key)
		}
	}
}

func (p *jsonParser) array(depth int) (*Value, error) {
	v := &Value{Kind: '[', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.s) && p.s[p.pos] == ']' {
			p.pos++
			v.End = p.pos
			return v, nil
		}
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Elems = append(v.Elems, e)
		if err := p.space(); err != nil {
			return nil, err
		}
		switch {
		case p.pos < len(p.s) && p.s[p.pos] == ',':
			p.pos++
		case p.pos < len(p.s) && p.s[p.pos] == ']':
			p.pos++
			v.End = p.pos
			return v, nil
		default:
			return nil, p.errorf("expected ',' or ']' after an element")
		}
	}
}

// UnquoteJSON decodes a JSON string token (quotes included). The parser has checked its
// escapes; ok is false only for text that is not a string token. Raw control characters,
// which strict JSON forbids, are kept: some editors' JSONC parsers let them through, and
// a name is a name.
func UnquoteJSON(raw string) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	raw = raw[1 : len(raw)-1]
	if strings.IndexByte(raw, '\\') < 0 {
		return raw, true
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(raw) {
			return "", false
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			b.WriteByte(raw[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n, ok := jsonRune(raw[i+1:])
			if !ok {
				return "", false
			}
			b.WriteRune(r)
			i += n
		default:
			return "", false
		}
	}
	return b.String(), true
}

// jsonRune decodes the hex digits after \u, and a low surrogate's \uXXXX after a high
// one, returning the rune and how many bytes it used.
func jsonRune(s string) (rune, int, bool) {
	hex4 := func(s string) (rune, bool) {
		if len(s) < 4 || !IsHex(s[:4]) {
			return 0, false
		}
		r, err := strconv.ParseUint(s[:4], 16, 32)
		return rune(r), err == nil
	}
	r, ok := hex4(s)
	if !ok {
		return 0, 0, false
	}
	if 0xD800 <= r && r < 0xDC00 && len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo, ok := hex4(s[6:]); ok && 0xDC00 <= lo && lo < 0xE000 {
			return (r-0xD800)<<10 | (lo - 0xDC00) + 0x10000, 10, true
		}
	}
	if 0xD800 <= r && r < 0xE000 {
		return utf8.RuneError, 4, true
	}
	return r, 4, true
}
