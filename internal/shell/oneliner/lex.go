package oneliner

import (
	"slices"
	"strings"
)

// A lexer just precise enough for constant folding (fold.go): names, string literals with
// their interpolated parts, brackets and operators. Everything else passes through as
// text, so that folding never hides code from the patterns: a token it does not
// understand is copied to the folded text unchanged.

type tokKind uint8

const (
	tSpace  tokKind = iota
	tName           // a name, dotted (os.path.join) or with a sigil ($x, @x, %ENV)
	tString         // a string literal or a Ruby symbol; parts holds its pieces
	tNumber
	tPunct
)

type token struct {
	kind tokKind
	text string // as written
	// parts of a string: literal text, or (code=true) an interpolated expression.
	parts []strPart
	// static says the string interpolates nothing (its value is parts[0] or "").
	static bool
}

type strPart struct {
	text string
	code bool
}

func (t token) value() string {
	if len(t.parts) == 0 {
		return ""
	}
	return t.parts[0].text
}

// maxTokens bounds the tokens folded: code with more is not read (it is opaque).
const maxTokens = 1 << 14

// lex splits code into tokens; ok is false when the code has more than maxTokens.
func lex(lang Lang, code string) ([]token, bool) {
	var toks []token
	dotted := lang == Python || lang == Node || lang == Ruby || lang == Lua || lang == Go
	sigils := lang == Perl || lang == PHP || lang == Ruby
	for i := 0; i < len(code); {
		if len(toks) >= maxTokens {
			return nil, false
		}
		c := code[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			for i < len(code) && strings.IndexByte(" \t\n\r", code[i]) >= 0 {
				i++
			}
			toks = append(toks, token{kind: tSpace, text: code[start:i]})
		case lang == Python && isPyPrefix(code, i):
			j := i
			for j < len(code) && !isQuote(code[j]) {
				j++
			}
			prefix := strings.ToLower(code[i:j])
			t, n := lexString(lang, code[i:], j-i, strings.Contains(prefix, "f"), strings.Contains(prefix, "r"))
			toks = append(toks, t)
			i += n
		case isQuote(c) || c == '`' && (lang == Node || lang == Go):
			// Go's `…` is a raw string: no escapes, no interpolation.
			t, n := lexString(lang, code[i:], 0, lang == Node && c == '`', lang == Go && c == '`')
			toks = append(toks, t)
			i += n
		case c == ':' && lang == Ruby && i+1 < len(code) && isIdent(code[i+1]) && (i == 0 || !isNameByte(code[i-1]) && code[i-1] != ':'):
			j := i + 1
			for j < len(code) && isNameByte(code[j]) {
				j++
			}
			if j < len(code) && (code[j] == '?' || code[j] == '!') {
				j++
			}
			toks = append(toks, token{kind: tString, text: code[i:j], parts: []strPart{{text: code[i+1 : j]}}, static: true})
			i = j
		case isIdent(c) || sigils && (c == '$' || c == '@' || c == '%') && i+1 < len(code) && (isIdent(code[i+1]) || c == '@' && code[i+1] == '@'):
			j := i + 1
			for j < len(code) && (isNameByte(code[j]) || code[j] == '@' && j == i+1) {
				j++
			}
			for j+1 < len(code) {
				switch {
				case dotted && code[j] == '.' && isIdent(code[j+1]):
					j++
				case (lang == Ruby || lang == Perl) && code[j] == ':' && code[j+1] == ':' && j+2 < len(code) && isIdent(code[j+2]):
					j += 2
				default:
					goto done
				}
				for j < len(code) && isNameByte(code[j]) {
					j++
				}
			}
		done:
			toks = append(toks, token{kind: tName, text: code[i:j]})
			i = j
		case c >= '0' && c <= '9':
			for i < len(code) && (isNameByte(code[i]) || code[i] == '.') {
				i++
			}
			toks = append(toks, token{kind: tNumber, text: code[start:i]})
		default:
			n := 1
			for _, op := range []string{"+=", ".=", "..", "::", "=>", "==", "->", "//", "**", "<<", "||", "&&", "!=", "=~"} {
				if strings.HasPrefix(code[i:], op) {
					n = 2
					break
				}
			}
			if lang == Go && strings.HasPrefix(code[i:], ":=") {
				n = 2 // Go's short declaration
			}
			toks = append(toks, token{kind: tPunct, text: code[i : i+n]})
			i += n
		}
	}
	return toks, true
}

func isNameByte(c byte) bool { return isIdent(c) || c >= '0' && c <= '9' }

// isPyPrefix reports whether a Python string prefix (r, b, f, u, rb, fr…) starts at i.
func isPyPrefix(code string, i int) bool {
	if i > 0 && isNameByte(code[i-1]) {
		return false
	}
	for j := i; j < len(code) && j < i+3; j++ {
		if isQuote(code[j]) {
			return j > i
		}
		if strings.IndexByte("rbufRBUF", code[j]) < 0 {
			return false
		}
	}
	return false
}

// lexString reads the literal whose quote is at s[at]: its pieces, with the interpolated
// expressions of f-strings, template literals, Ruby's #{…} and the $names of Perl and PHP
// apart. It returns the token and the bytes read.
func lexString(lang Lang, s string, at int, template, raw bool) (token, int) {
	if len(s) > maxLiteral {
		s = s[:maxLiteral]
	}
	q := s[at]
	triple := lang == Python && strings.HasPrefix(s[at:], strings.Repeat(string(q), 3))
	i := at + 1
	if triple {
		i = at + 3
	}
	interp := template || q == '"' && (lang == Ruby || lang == Perl || lang == PHP)
	var parts []strPart
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 || len(parts) == 0 {
			parts = append(parts, strPart{text: b.String()})
		}
		b.Reset()
	}
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && !raw && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'x':
				if i+2 < len(s) {
					if v, ok := hexByte(s[i+1], s[i+2]); ok {
						b.WriteByte(v)
						i += 2
						break
					}
				}
				b.WriteByte('x')
			default:
				b.WriteByte(s[i])
			}
			i++
		case c == q && (!triple || strings.HasPrefix(s[i:], strings.Repeat(string(q), 3))):
			n := i + 1
			if triple {
				n = i + 3
			}
			if b.Len() > 0 || len(parts) == 0 {
				flush()
			}
			return token{kind: tString, text: s[:n], parts: parts, static: len(parts) == 1 && !parts[0].code}, n
		case interp && lang == Python && c == '{':
			if i+1 < len(s) && s[i+1] == '{' {
				b.WriteByte('{')
				i += 2
				continue
			}
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return token{kind: tPunct, text: s[:1]}, 1
			}
			if b.Len() > 0 {
				flush()
			}
			parts = append(parts, strPart{text: s[i+1 : i+end], code: true})
			i += end + 1
		case interp && (lang == Node && c == '$' || lang == Ruby && c == '#') && i+1 < len(s) && s[i+1] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return token{kind: tPunct, text: s[:1]}, 1
			}
			if b.Len() > 0 {
				flush()
			}
			parts = append(parts, strPart{text: s[i+2 : i+end], code: true})
			i += end + 1
		case interp && (lang == Perl || lang == PHP) && (c == '$' || c == '@' && lang == Perl) && i+1 < len(s) && (isIdent(s[i+1]) || s[i+1] == '{'):
			// "$x", "${x}", "$ENV{HOME}", "{$x}" (PHP), "@x" (Perl).
			j := i + 1
			if s[j] == '{' {
				end := strings.IndexByte(s[j:], '}')
				if end < 0 {
					return token{kind: tPunct, text: s[:1]}, 1
				}
				j += end + 1
			} else {
				for j < len(s) && isNameByte(s[j]) {
					j++
				}
				if j < len(s) && (s[j] == '{' || s[j] == '[') {
					closer := map[byte]byte{'{': '}', '[': ']'}[s[j]]
					if end := strings.IndexByte(s[j:], closer); end > 0 {
						j += end + 1
					}
				}
			}
			if b.Len() > 0 {
				flush()
			}
			expr := s[i:j]
			if lang == PHP && i > 0 && s[i-1] == '{' && j < len(s) && s[j] == '}' {
				j++
			}
			parts = append(parts, strPart{text: expr, code: true})
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	// Unterminated: a lone quote, as the patterns read it.
	return token{kind: tPunct, text: s[at : at+1]}, at + 1
}

func hexByte(a, b byte) (byte, bool) {
	h := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		case 'A' <= c && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	x, ok1 := h(a)
	y, ok2 := h(b)
	return x<<4 | y, ok1 && ok2
}

// brackets returns, for each opening bracket token, the index of its closing one (-1 when
// unclosed), in one pass.
func brackets(toks []token) []int {
	match := make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		match[i] = -1
		if t.kind != tPunct || len(t.text) != 1 {
			continue
		}
		switch t.text[0] {
		case '(', '[', '{':
			stack = append(stack, i)
		case ')', ']', '}':
			if len(stack) > 0 {
				match[stack[len(stack)-1]] = i
				stack = stack[:len(stack)-1]
			}
		}
	}
	return match
}

// span is a stretch of code, [start, end).
type span struct{ start, end int }

// stringSpans returns where code's string literals are; nil when it has too many tokens
// to lex (then no match is taken for a string's text).
func stringSpans(lang Lang, code string) []span {
	toks, ok := lex(lang, code)
	if !ok {
		return nil
	}
	var out []span
	at := 0
	for _, t := range toks {
		if t.kind == tString {
			out = append(out, span{at, at + len(t.text)})
		}
		at += len(t.text)
	}
	return out
}

// spanAt returns the span of spans, in order, that holds offset i.
func spanAt(spans []span, i int) (span, bool) {
	k, found := slices.BinarySearchFunc(spans, i, func(s span, i int) int {
		switch {
		case s.end <= i:
			return -1
		case s.start > i:
			return 1
		}
		return 0
	})
	if !found {
		return span{}, false
	}
	return spans[k], true
}
