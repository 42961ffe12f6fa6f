package textedit

import (
	"fmt"
	"strings"
)

// Value is a parsed JSON or TOML value and where it lies in the text: text[Start:End].
// Both readers build Values, so that one splicing code serves both formats.
// Strings and scalars keep only their span; they are decoded when moat needs them, since
// a settings file like ~/.claude.json holds megabytes of history moat never looks at.
type Value struct {
	Kind       byte // '{' object or inline table, '[' array, '"' string, 'v' any other scalar
	Start, End int
	Keys       []string // objects: the members' keys, decoded
	KeyStarts  []int    // objects: where each member's key starts
	Elems      []*Value // objects: the members' values; arrays: the elements
}

// Member returns the value of the last Member named key (the one JSON.parse keeps), and
// how many members have that key.
func (v *Value) Member(key string) (*Value, int) {
	var found *Value
	n := 0
	for i, k := range v.Keys {
		if k == key {
			found = v.Elems[i]
			n++
		}
	}
	return found, n
}

// MaxDepth bounds nesting, so that a hostile file cannot exhaust the stack.
const MaxDepth = 512

// SyntaxError says where text stops being JSON or TOML moat can read.
type SyntaxError struct {
	Offset    int // bytes from the start of the text
	Line, Col int // 1-based; Col counts bytes, as Go's own parsers do
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// syntaxError is a *SyntaxError at text[pos] (clamped to the text).
func syntaxError(text string, pos int, format string, args ...any) error {
	pos = max(0, min(pos, len(text)))
	return &SyntaxError{
		Offset: pos,
		Line:   strings.Count(text[:pos], "\n") + 1,
		Col:    pos - strings.LastIndexByte(text[:pos], '\n'),
		Msg:    fmt.Sprintf(format, args...),
	}
}

// IsHex reports whether s is made of hexadecimal digits only.
func IsHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Quote writes s as a double-quoted string that is valid JSON and valid TOML alike:
// quotes, backslashes and control characters are escaped and nothing else, so that the
// paths and names moat writes stay readable.
func Quote(s string) string { return quote(s, true) }

// QuoteJSON writes s as a double-quoted JSON string the way serde_json does, which is
// what Codex hashes: like Quote, but DEL (0x7f), which JSON allows bare, is left as it is.
func QuoteJSON(s string) string { return quote(s, false) }

func quote(s string, escapeDEL bool) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f && escapeDEL {
				const hex = "0123456789abcdef"
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&15])
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
