package textedit

// Codex keeps its settings and MCP servers in TOML. moat needs no TOML library to edit
// them, only the spans. The reader understands the whole of TOML's syntax that can hide a
// header or a key (strings of the four kinds, multi-line arrays with comments, inline
// tables, dotted and quoted keys), so that a "[" or "#" inside a string is never taken for
// a header or a comment; it does not check what a full TOML parser would (duplicate keys,
// the exact grammar of dates and numbers), which concerns values moat does not touch.

import (
	"strings"
	"unicode/utf8"
)

// TOMLDoc is a TOML document as spans.
type TOMLDoc struct {
	Tables []TOMLTable
	KVs    []TOMLKV
}

// TOMLTable is a [table] or [[array.of.tables]] header.
type TOMLTable struct {
	Path       []string // decoded key parts
	Array      bool
	Start, End int // the header, brackets included
}

// TOMLKV is a key = value line.
type TOMLKV struct {
	Table     int      // index in Tables of the table it belongs to; -1 for the root
	Path      []string // the key's decoded parts (more than one for a dotted key)
	KeyStart  int
	LineStart int // where the key's line starts
	Val       *Value
}

type tomlParser struct {
	s   string
	pos int
}

// ParseTOML reads text. A mistake is a *SyntaxError.
func ParseTOML(text string) (*TOMLDoc, error) {
	p := &tomlParser{s: text}
	if strings.HasPrefix(text, "\uFEFF") {
		p.pos = len("\uFEFF")
	}
	doc := &TOMLDoc{}
	table := -1
	for {
		p.blanks()
		if p.pos >= len(p.s) {
			return doc, nil
		}
		switch c := p.s[p.pos]; {
		case c == '\n':
			p.pos++
		case c == '\r':
			if err := p.newline(); err != nil {
				return nil, err
			}
		case c == '#':
			if err := p.comment(); err != nil {
				return nil, err
			}
		case c == '[':
			t := TOMLTable{Start: p.pos}
			p.pos++
			if p.pos < len(p.s) && p.s[p.pos] == '[' {
				t.Array = true
				p.pos++
			}
			p.blanks()
			path, err := p.key()
			if err != nil {
				return nil, err
			}
			p.blanks()
			closing := "]"
			if t.Array {
				closing = "]]"
			}
			if !strings.HasPrefix(p.s[p.pos:], closing) {
				return nil, p.errorf("expected %q to close the table header", closing)
			}
			p.pos += len(closing)
			t.Path, t.End = path, p.pos
			doc.Tables = append(doc.Tables, t)
			table = len(doc.Tables) - 1
			if err := p.endOfLine(); err != nil {
				return nil, err
			}
		default:
			lineStart := strings.LastIndexByte(p.s[:p.pos], '\n') + 1
			kv, err := p.keyValue(0)
			if err != nil {
				return nil, err
			}
			kv.Table, kv.LineStart = table, lineStart
			doc.KVs = append(doc.KVs, kv)
			if err := p.endOfLine(); err != nil {
				return nil, err
			}
		}
	}
}

func (p *tomlParser) errorf(format string, args ...any) error {
	return syntaxError(p.s, p.pos, format, args...)
}

// blanks skips spaces and tabs.
func (p *tomlParser) blanks() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *tomlParser) newline() error {
	switch {
	case strings.HasPrefix(p.s[p.pos:], "\r\n"):
		p.pos += 2
	case strings.HasPrefix(p.s[p.pos:], "\n"):
		p.pos++
	default:
		return p.errorf("expected a new line")
	}
	return nil
}

// comment skips a comment up to, not including, the end of its line.
func (p *tomlParser) comment() error {
	for p.pos < len(p.s) && p.s[p.pos] != '\n' {
		if c := p.s[p.pos]; c == '\r' && !strings.HasPrefix(p.s[p.pos:], "\r\n") || c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			return p.errorf("control character in a comment")
		}
		p.pos++
	}
	return nil
}

// endOfLine skips what may follow a header or a value on its line: blanks, a comment,
// the line's end.
func (p *tomlParser) endOfLine() error {
	p.blanks()
	if p.pos < len(p.s) && p.s[p.pos] == '#' {
		if err := p.comment(); err != nil {
			return err
		}
	}
	if p.pos >= len(p.s) {
		return nil
	}
	if p.s[p.pos] != '\n' && p.s[p.pos] != '\r' {
		return p.errorf("expected the end of the line")
	}
	return p.newline()
}

// space skips what may lie between the elements of an array: blanks, comments and line
// ends.
func (p *tomlParser) space() error {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t':
			p.pos++
		case '\n', '\r':
			if err := p.newline(); err != nil {
				return err
			}
		case '#':
			if err := p.comment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// IsBareKey reports whether c may appear in a bare TOML key.
func IsBareKey(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// key reads a possibly dotted key and returns its decoded parts.
func (p *tomlParser) key() ([]string, error) {
	var parts []string
	for {
		start := p.pos
		switch {
		case p.pos < len(p.s) && (p.s[p.pos] == '"' || p.s[p.pos] == '\''):
			if strings.HasPrefix(p.s[p.pos:], `"""`) || strings.HasPrefix(p.s[p.pos:], "'''") {
				return nil, p.errorf("a key cannot be a multi-line string")
			}
			if err := p.str(); err != nil {
				return nil, err
			}
			k, ok := UnquoteTOML(p.s[start:p.pos])
			if !ok {
				p.pos = start
				return nil, p.errorf("invalid quoted key")
			}
			parts = append(parts, k)
		default:
			for p.pos < len(p.s) && IsBareKey(p.s[p.pos]) {
				p.pos++
			}
			if p.pos == start {
				return nil, p.errorf("expected a key")
			}
			parts = append(parts, p.s[start:p.pos])
		}
		save := p.pos
		p.blanks()
		if p.pos < len(p.s) && p.s[p.pos] == '.' {
			p.pos++
			p.blanks()
			continue
		}
		p.pos = save
		return parts, nil
	}
}

// keyValue reads key = value.
func (p *tomlParser) keyValue(depth int) (TOMLKV, error) {
	kv := TOMLKV{KeyStart: p.pos}
	path, err := p.key()
	if err != nil {
		return kv, err
	}
	p.blanks()
	if p.pos >= len(p.s) || p.s[p.pos] != '=' {
		return kv, p.errorf("expected '=' after the key %q", strings.Join(path, "."))
	}
	p.pos++
	p.blanks()
	v, err := p.value(depth)
	if err != nil {
		return kv, err
	}
	kv.Path, kv.Val = path, v
	return kv, nil
}

func (p *tomlParser) value(depth int) (*Value, error) {
	if depth > MaxDepth {
		return nil, p.errorf("values nested too deeply")
	}
	if p.pos >= len(p.s) {
		return nil, p.errorf("expected a value")
	}
	start := p.pos
	switch p.s[p.pos] {
	case '"', '\'':
		if err := p.str(); err != nil {
			return nil, err
		}
		return &Value{Kind: '"', Start: start, End: p.pos}, nil
	case '[':
		return p.array(depth)
	case '{':
		return p.inlineTable(depth)
	}
	// Numbers, booleans, dates and times: up to what ends a value. A date and a time
	// may be separated by a space, so blanks end it only when what follows them does.
	end := p.pos
	for p.pos < len(p.s) && strings.IndexByte(",]}#\r\n", p.s[p.pos]) < 0 {
		if c := p.s[p.pos]; c != ' ' && c != '\t' {
			if !IsBareKey(c) && c != '+' && c != '.' && c != ':' {
				break
			}
			end = p.pos + 1
		}
		p.pos++
	}
	p.pos = end
	if end == start {
		r, _ := utf8.DecodeRuneInString(p.s[start:])
		return nil, p.errorf("unexpected %q", r)
	}
	return &Value{Kind: 'v', Start: start, End: end}, nil
}

func (p *tomlParser) array(depth int) (*Value, error) {
	v := &Value{Kind: '[', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.s) {
			return nil, p.errorf("unterminated array")
		}
		if p.s[p.pos] == ']' {
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

// inlineTable reads { k = v, ... }, taking TOML 1.1's new lines, comments and trailing
// comma too, since Codex's parser may.
func (p *tomlParser) inlineTable(depth int) (*Value, error) {
	v := &Value{Kind: '{', Start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.s) {
			return nil, p.errorf("unterminated inline table")
		}
		if p.s[p.pos] == '}' {
			p.pos++
			v.End = p.pos
			return v, nil
		}
		kv, err := p.keyValue(depth + 1)
		if err != nil {
			return nil, err
		}
		v.Keys = append(v.Keys, strings.Join(kv.Path, "."))
		v.KeyStarts = append(v.KeyStarts, kv.KeyStart)
		v.Elems = append(v.Elems, kv.Val)
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
			return nil, p.errorf("expected ',' or '}' in an inline table")
		}
	}
}

// str skips a string of any of the four kinds, checking the escapes of basic strings.
func (p *tomlParser) str() error {
	start := p.pos
	q := p.s[p.pos]
	multi := strings.HasPrefix(p.s[p.pos:], strings.Repeat(string(q), 3))
	if multi {
		p.pos += 3
	} else {
		p.pos++
	}
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		switch {
		case c == q:
			if !multi {
				p.pos++
				return nil
			}
			n := 0
			for p.pos+n < len(p.s) && p.s[p.pos+n] == q {
				n++
			}
			if n < 3 {
				p.pos += n
				continue
			}
			if n > 5 {
				return p.errorf("too many quotes closing a multi-line string")
			}
			// Up to two quotes before the closing three belong to the string.
			p.pos += n
			return nil
		case c == '\\' && q == '"':
			if p.pos+1 >= len(p.s) {
				p.pos = start
				return p.errorf("unterminated string")
			}
			switch e := p.s[p.pos+1]; e {
			case 'b', 't', 'n', 'f', 'r', 'e', '"', '\\':
				p.pos += 2
			case 'u', 'U', 'x':
				n := hexDigits(e)
				if p.pos+2+n > len(p.s) || !IsHex(p.s[p.pos+2:p.pos+2+n]) {
					return p.errorf(`invalid \%c escape`, e)
				}
				if _, ok := UnquoteTOML(`"` + p.s[p.pos:p.pos+2+n] + `"`); !ok {
					return p.errorf("the escape %s is not a Unicode scalar value", p.s[p.pos:p.pos+2+n])
				}
				p.pos += 2 + n
			case ' ', '\t', '\r', '\n':
				if !multi {
					return p.errorf("invalid escape")
				}
				// A line-ending backslash: blanks, then the line's end.
				i := p.pos + 1
				for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t') {
					i++
				}
				if i < len(p.s) && p.s[i] == '\r' {
					i++
				}
				if i >= len(p.s) || p.s[i] != '\n' {
					return p.errorf("invalid escape")
				}
				p.pos = i + 1
			default:
				return p.errorf("invalid escape %q", p.s[p.pos:p.pos+2])
			}
		case c == '\n' || c == '\r':
			if !multi {
				p.pos = start
				return p.errorf("unterminated string")
			}
			if c == '\r' && !strings.HasPrefix(p.s[p.pos:], "\r\n") {
				return p.errorf("a carriage return without a new line")
			}
			p.pos++
		default:
			p.pos++
		}
	}
	p.pos = start
	return p.errorf("unterminated string")
}

// UnquoteTOML decodes a TOML string token of any of the four kinds.
func UnquoteTOML(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != raw[len(raw)-1] || raw[0] != '"' && raw[0] != '\'' {
		return "", false
	}
	q := raw[0]
	multi := len(raw) >= 6 && strings.HasPrefix(raw, strings.Repeat(string(q), 3)) && strings.HasSuffix(raw, strings.Repeat(string(q), 3))
	if multi {
		raw = raw[3 : len(raw)-3]
		// A new line right after the opening quotes is not part of the string.
		if strings.HasPrefix(raw, "\r\n") {
			raw = raw[2:]
		} else if strings.HasPrefix(raw, "\n") {
			raw = raw[1:]
		}
	} else {
		raw = raw[1 : len(raw)-1]
	}
	if q == '\'' || strings.IndexByte(raw, '\\') < 0 {
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
		switch e := raw[i]; e {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"', '\\':
			b.WriteByte(e)
		case 'u', 'U', 'x':
			n := hexDigits(e)
			if i+1+n > len(raw) || !IsHex(raw[i+1:i+1+n]) {
				return "", false
			}
			var r rune
			for _, h := range []byte(raw[i+1 : i+1+n]) {
				r = r<<4 | rune(hexVal(h))
			}
			if !utf8.ValidRune(r) {
				return "", false
			}
			b.WriteRune(r)
			i += n
		case ' ', '\t', '\r', '\n':
			if !multi {
				return "", false
			}
			// A line-ending backslash eats the white space and new lines that follow.
			for i+1 < len(raw) && strings.IndexByte(" \t\r\n", raw[i+1]) >= 0 {
				i++
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// hexDigits is how many hex digits follow a \u, \U or \x escape.
func hexDigits(e byte) int {
	switch e {
	case 'u':
		return 4
	case 'U':
		return 8
	}
	return 2
}
func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// SkipTOMLSpace returns where the blanks, comments and line ends that start at text[pos]
// end: what may lie between the elements of an array.
func SkipTOMLSpace(text string, pos int) int {
	p := &tomlParser{s: text, pos: pos}
	_ = p.space() // a malformed comment ends the space; the caller's parse reports it
	return p.pos
}
