// Package strictjson rejects JSON documents that two JSON parsers could read differently.
package strictjson

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits bound the documents Check accepts. A zero or negative field means its default.
type Limits struct {
	MaxDepth int // nesting of arrays and objects; default 128
	MaxBytes int // length of the whole document; default 16 MiB
}

const (
	defaultMaxDepth = 128
	defaultMaxBytes = 16 << 20
)

// Error describes why Check rejected a document. Offset is the byte offset of the problem.
type Error struct {
	Offset int64
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

// Check returns nil only if data is exactly one JSON value (RFC 8259), optionally surrounded
// by whitespace, in which every string is valid UTF-8 once its escapes are decoded, no
// object has two keys that are equal or equal under Unicode case folding, and nesting and
// size stay within lim. Such a document means the same thing to every conforming parser,
// whether it keeps the first or the last of two duplicate keys, matches field names with or
// without regard to case, or replaces invalid text. Numbers are checked for syntax only.
// Any other document gets an *Error.
func Check(data []byte, lim Limits) error {
	maxBytes := lim.MaxBytes
	if maxBytes <= 0 {
		maxBytes = defaultMaxBytes
	}
	if len(data) > maxBytes {
		return &Error{Offset: int64(maxBytes), Msg: fmt.Sprintf("document is %d bytes, over the limit of %d", len(data), maxBytes)}
	}
	// Typical documents fit in these buffers, so the scan allocates once, here.
	buf := new(struct {
		stack  [16]frame
		keys   [32]key
		folded [64]byte
	})
	c := checker{data: data, maxDepth: lim.MaxDepth, stack: buf.stack[:0], keys: buf.keys[:0], folded: buf.folded[:0]}
	if c.maxDepth <= 0 {
		c.maxDepth = defaultMaxDepth
	}
	return c.run()
}

// checker scans a document once, keeping a stack of open containers and, for each open
// object, the keys seen so far.
type checker struct {
	data     []byte
	maxDepth int
	stack    []frame
	keys     []key // the keys of every open object, innermost last
	folded   []byte
	seed     maphash.Seed
	seeded   bool
}

type frame struct {
	object bool
	keys   int // where this object's keys start in checker.keys
	// byHash indexes a large object's keys by hash, pointing at the latest key with that
	// hash; key.prev chains to the earlier ones. Small objects are scanned instead.
	byHash map[uint64]int
}

// key is a key of an open object. Only its hash and offset are kept: the text is decoded
// again only when two hashes agree, which almost always means a real duplicate.
type key struct {
	hash uint64
	off  int
	prev int // previous key of the same object with the same hash, or -1
}

// linearKeys is how many keys an object may have before duplicate detection switches
// from scanning its hashes to a map.
const linearKeys = 16

func (c *checker) errorf(off int, format string, args ...any) error {
	return &Error{Offset: int64(off), Msg: fmt.Sprintf(format, args...)}
}

func (c *checker) run() error {
	data := c.data
	i := skipSpace(data, 0)
	if i == len(data) {
		return c.errorf(i, "empty document")
	}
	for {
		// A value starts at i.
		var err error
		if i >= len(data) {
			return c.errorf(i, "unexpected end of document, expecting a value")
		}
		switch b := data[i]; {
		case b == '{' || b == '[':
			if len(c.stack) >= c.maxDepth {
				return c.errorf(i, "nesting is deeper than the limit of %d", c.maxDepth)
			}
			c.stack = append(c.stack, frame{object: b == '{', keys: len(c.keys)})
			i = skipSpace(data, i+1)
			if i < len(data) && (b == '{' && data[i] == '}' || b == '[' && data[i] == ']') {
				i = c.pop(i)
				break
			}
			if b == '{' {
				if i, err = c.member(i, "'}'"); err != nil {
					return err
				}
			}
			continue
		case b == '"':
			if i, err = c.str(i, false); err != nil {
				return err
			}
		case b == '-' || '0' <= b && b <= '9':
			if i, err = c.number(i); err != nil {
				return err
			}
		case b == 't':
			i, err = c.literal(i, "true")
		case b == 'f':
			i, err = c.literal(i, "false")
		case b == 'n':
			i, err = c.literal(i, "null")
		default:
			return c.errorf(i, "%s where a value should start", describe(data, i))
		}
		if err != nil {
			return err
		}

		// A value ended just before i: close containers until another value is due.
		for {
			i = skipSpace(data, i)
			if len(c.stack) == 0 {
				if i != len(data) {
					return c.errorf(i, "%s after the end of the document", describe(data, i))
				}
				return nil
			}
			top := &c.stack[len(c.stack)-1]
			closer, what := byte(']'), "array"
			if top.object {
				closer, what = '}', "object"
			}
			if i >= len(data) {
				return c.errorf(i, "unexpected end of document inside an %s", what)
			}
			if data[i] == closer {
				i = c.pop(i)
				continue
			}
			if data[i] != ',' {
				return c.errorf(i, "%s after an %s element, expecting ',' or '%c'", describe(data, i), what, closer)
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == closer {
				return c.errorf(i, "trailing comma before '%c'", closer)
			}
			if top.object {
				if i, err = c.member(i, "a key"); err != nil {
					return err
				}
			}
			break
		}
	}
}

// pop closes the container whose closing bracket is at i.
func (c *checker) pop(i int) int {
	top := c.stack[len(c.stack)-1]
	c.keys = c.keys[:top.keys]
	c.stack = c.stack[:len(c.stack)-1]
	return i + 1
}

// member checks the key and colon of an object member starting at i and returns where its
// value starts. want says what else could have been there, for the error message.
func (c *checker) member(i int, want string) (int, error) {
	if i >= len(c.data) || c.data[i] != '"' {
		if i >= len(c.data) {
			return 0, c.errorf(i, "unexpected end of document inside an object")
		}
		return 0, c.errorf(i, "%s in an object, expecting a string key or %s", describe(c.data, i), want)
	}
	end, err := c.str(i, true)
	if err != nil {
		return 0, err
	}
	if err := c.addKey(i); err != nil {
		return 0, err
	}
	j := skipSpace(c.data, end)
	if j >= len(c.data) || c.data[j] != ':' {
		if j >= len(c.data) {
			return 0, c.errorf(j, "unexpected end of document after an object key")
		}
		return 0, c.errorf(j, "%s after an object key, expecting ':'", describe(c.data, j))
	}
	return skipSpace(c.data, j+1), nil
}

// addKey records the key at off, whose case-folded form is in c.folded, and fails if the
// innermost object already has it.
func (c *checker) addKey(off int) error {
	if !c.seeded {
		// A per-call random seed keeps crafted collisions from making lookups quadratic.
		c.seed, c.seeded = maphash.MakeSeed(), true
	}
	h := maphash.Bytes(c.seed, c.folded)
	top := &c.stack[len(c.stack)-1]
	n := len(c.keys) - top.keys
	prev := -1
	if top.byHash == nil && n < linearKeys {
		for k := top.keys; k < len(c.keys); k++ {
			if c.keys[k].hash == h {
				if err := c.compareKeys(c.keys[k].off, off); err != nil {
					return err
				}
			}
		}
	} else {
		if top.byHash == nil {
			top.byHash = make(map[uint64]int, 2*n)
			for k := top.keys; k < len(c.keys); k++ {
				c.keys[k].prev = -1
				if p, ok := top.byHash[c.keys[k].hash]; ok {
					c.keys[k].prev = p
				}
				top.byHash[c.keys[k].hash] = k
			}
		}
		if p, ok := top.byHash[h]; ok {
			prev = p
			for k := p; k >= 0; k = c.keys[k].prev {
				if err := c.compareKeys(c.keys[k].off, off); err != nil {
					return err
				}
			}
		}
		top.byHash[h] = len(c.keys)
	}
	c.keys = append(c.keys, key{hash: h, off: off, prev: prev})
	return nil
}

// compareKeys fails if the keys at a and b (both already validated) are equal or equal
// under case folding; otherwise their hashes merely collided.
func (c *checker) compareKeys(a, b int) error {
	first, second := decodeKey(c.data, a), decodeKey(c.data, b)
	switch {
	case first == second:
		return c.errorf(b, "duplicate key %s", quoteKey(second))
	case strings.EqualFold(first, second):
		return c.errorf(b, "key %s differs from an earlier key %s only in letter case", quoteKey(second), quoteKey(first))
	}
	return nil
}

// quoteKey quotes a key for a message, shortening a long one.
func quoteKey(s string) string {
	const max = 64
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", s[:cut])
}

// stringSafe reports whether a string can contain b without a closer look: printable
// ASCII other than '"' and '\\'.
func stringSafe(b byte) bool {
	return 0x20 <= b && b < utf8.RuneSelf && b != '"' && b != '\\'
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// skipSafe returns the end of the run of stringSafe bytes starting at j. It tests eight
// bytes at a time with the bit tricks for "has a byte less than n" and "has a zero byte",
// which answer exactly whether any byte qualifies as long as no byte has its top bit set,
// and such bytes stop the fast loop anyway.
func skipSafe(data []byte, j int) int {
	for j+8 <= len(data) {
		x := binary.LittleEndian.Uint64(data[j:])
		q, s := x^(lsb*'"'), x^(lsb*'\\')
		if ((x-lsb*0x20)&^x|(q-lsb)&^q|(s-lsb)&^s|x)&msb != 0 {
			break
		}
		j += 8
	}
	for j < len(data) && stringSafe(data[j]) {
		j++
	}
	return j
}

// str checks the string whose opening quote is at i and returns the offset after its
// closing quote. For a key it also leaves the key's case-folded form in c.folded.
func (c *checker) str(i int, isKey bool) (int, error) {
	data := c.data
	if isKey {
		c.folded = c.folded[:0]
	}
	j := i + 1
	for {
		start := j
		j = skipSafe(data, j)
		if isKey {
			for _, b := range data[start:j] {
				if 'a' <= b && b <= 'z' {
					b -= 'a' - 'A'
				}
				c.folded = append(c.folded, b)
			}
		}
		if j >= len(data) {
			return 0, c.errorf(i, "unterminated string")
		}
		switch b := data[j]; {
		case b == '"':
			return j + 1, nil
		case b == '\\':
			r, next, err := c.escape(j)
			if err != nil {
				return 0, err
			}
			if isKey {
				c.folded = utf8.AppendRune(c.folded, foldRune(r))
			}
			j = next
		case b < 0x20:
			return 0, c.errorf(j, "control character U+%04X in a string (it must be escaped)", b)
		default:
			r, w := utf8.DecodeRune(data[j:])
			if r == utf8.RuneError && w == 1 {
				return 0, c.errorf(j, "invalid UTF-8 in a string")
			}
			if isKey {
				c.folded = utf8.AppendRune(c.folded, foldRune(r))
			}
			j += w
		}
	}
}

// escape decodes the escape sequence at i, joining a UTF-16 surrogate pair.
func (c *checker) escape(i int) (rune, int, error) {
	data := c.data
	if i+1 >= len(data) {
		return 0, 0, c.errorf(i, "unterminated string")
	}
	switch data[i+1] {
	case '"':
		return '"', i + 2, nil
	case '\\':
		return '\\', i + 2, nil
	case '/':
		return '/', i + 2, nil
	case 'b':
		return '\b', i + 2, nil
	case 'f':
		return '\f', i + 2, nil
	case 'n':
		return '\n', i + 2, nil
	case 'r':
		return '\r', i + 2, nil
	case 't':
		return '\t', i + 2, nil
	case 'u':
		r, ok := hex4(data, i+2)
		if !ok {
			return 0, 0, c.errorf(i, "invalid \\u escape (it needs four hex digits)")
		}
		switch {
		case 0xDC00 <= r && r <= 0xDFFF:
			return 0, 0, c.errorf(i, "escape \\u%04x is a lone low surrogate (invalid UTF-16)", r)
		case 0xD800 <= r && r <= 0xDBFF:
			lo, ok := rune(0), false
			if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
				lo, ok = hex4(data, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return 0, 0, c.errorf(i, "escape \\u%04x is a lone high surrogate (no low surrogate follows it; invalid UTF-16)", r)
			}
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), i + 12, nil
		}
		return r, i + 6, nil
	}
	return 0, 0, c.errorf(i, "invalid escape %s in a string", describeEscape(data, i))
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, b := range data[i : i+4] {
		switch {
		case '0' <= b && b <= '9':
			b -= '0'
		case 'a' <= b && b <= 'f':
			b -= 'a' - 10
		case 'A' <= b && b <= 'F':
			b -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(b)
	}
	return r, true
}

// foldRune maps r to the smallest rune of its simple case folding orbit, so that two keys
// are equal under strings.EqualFold exactly when their folded forms are equal.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// decodeKey returns the text of the validated string whose opening quote is at i.
func decodeKey(data []byte, i int) string {
	var b strings.Builder
	for j := i + 1; data[j] != '"'; {
		if data[j] != '\\' {
			b.WriteByte(data[j])
			j++
			continue
		}
		c := checker{data: data}
		r, next, _ := c.escape(j)
		b.WriteRune(r)
		j = next
	}
	return b.String()
}

// number checks the number starting at i: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *checker) number(i int) (int, error) {
	data := c.data
	j := i
	if data[j] == '-' {
		j++
	}
	switch {
	case j < len(data) && data[j] == '0':
		j++
	case j < len(data) && '1' <= data[j] && data[j] <= '9':
		j = digits(data, j)
	default:
		return 0, c.errorf(i, "invalid number (a digit must follow '-')")
	}
	if j < len(data) && data[j] == '.' {
		k := digits(data, j+1)
		if k == j+1 {
			return 0, c.errorf(i, "invalid number (a digit must follow '.')")
		}
		j = k
	}
	if j < len(data) && (data[j] == 'e' || data[j] == 'E') {
		j++
		if j < len(data) && (data[j] == '+' || data[j] == '-') {
			j++
		}
		k := digits(data, j)
		if k == j {
			return 0, c.errorf(i, "invalid number (a digit must follow the exponent)")
		}
		j = k
	}
	if j < len(data) && (isAlnum(data[j]) || data[j] == '.' || data[j] == '+' || data[j] == '-') {
		return 0, c.errorf(i, "invalid number")
	}
	return j, nil
}

func digits(data []byte, j int) int {
	for j < len(data) && '0' <= data[j] && data[j] <= '9' {
		j++
	}
	return j
}

func isAlnum(b byte) bool {
	return '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func (c *checker) literal(i int, word string) (int, error) {
	end := i + len(word)
	if end > len(c.data) || string(c.data[i:end]) != word || end < len(c.data) && isAlnum(c.data[end]) {
		return 0, c.errorf(i, "invalid literal (expecting %s)", word)
	}
	return end, nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// describe names the byte at i for a message, without echoing raw control or non-ASCII
// bytes.
func describe(data []byte, i int) string {
	if i >= len(data) {
		return "end of document"
	}
	b := data[i]
	if 0x20 < b && b < 0x7f {
		return fmt.Sprintf("unexpected %q", b)
	}
	return fmt.Sprintf("unexpected byte 0x%02X", b)
}

func describeEscape(data []byte, i int) string {
	if i+1 < len(data) && 0x20 < data[i+1] && data[i+1] < 0x7f {
		return fmt.Sprintf(`"\%c"`, data[i+1])
	}
	return "'\\' followed by a control or non-ASCII byte"
}
