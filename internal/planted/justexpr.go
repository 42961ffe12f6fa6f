package planted

import (
	"slices"
	"strings"
	"unicode"
)

// A justfile's values are expressions: strings joined with + and /, variables, function
// calls and if … else …. _cargo := "cargo" + if tc != "" { " +" + tc } else { "" } names
// the program cargo whichever branch is taken, and a recipe line that runs {{ _cargo }}
// runs cargo; read as one unknown value, it was a program computed at run time. Values
// are evaluated to the texts they may take (one per branch, at most
// maxJustAlternatives), what moat cannot know being a shell variable ${NAME}.

// maxJustAlternatives bounds the texts one expression, and one recipe line, is taken to
// have; beyond it the value is unknown.
const maxJustAlternatives = 4

// justEval evaluates a just expression to the texts it may have. It reports false for
// text it cannot read as an expression.
func justEval(expr string, vars map[string][]string) ([]string, bool) {
	p := &justParser{s: expr, vars: vars}
	vals, ok := p.expr()
	p.space()
	if !ok || p.i != len(p.s) {
		return nil, false
	}
	return vals, true
}

type justParser struct {
	s    string
	i    int
	vars map[string][]string
}

func (p *justParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// eat consumes tok, after blanks, and reports whether it was there.
func (p *justParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

// expr: if COND { EXPR } else { EXPR } | else if …, or values joined by + and /.
func (p *justParser) expr() ([]string, bool) {
	p.space()
	if p.keyword("if") {
		if !p.condition() || !p.eat("{") {
			return nil, false
		}
		then, ok := p.expr()
		if !ok || !p.eat("}") || !p.eat("else") {
			return nil, false
		}
		var other []string
		p.space()
		if p.keyword("if") {
			p.i -= len("if")
			other, ok = p.expr()
		} else if p.eat("{") {
			other, ok = p.expr()
			ok = ok && p.eat("}")
		} else {
			return nil, false
		}
		if !ok {
			return nil, false
		}
		return alternatives(append(then, other...))
	}
	vals, ok := p.value()
	for ok {
		switch {
		case p.eat("+"):
			next, ok2 := p.value()
			if !ok2 {
				return nil, false
			}
			vals, ok = product(vals, next, "")
		case p.eat("/"):
			next, ok2 := p.value()
			if !ok2 {
				return nil, false
			}
			vals, ok = product(vals, next, "/")
		default:
			return vals, true
		}
	}
	return nil, false
}

// condition reads A == B, A != B, A =~ B, joined by && or ||; its value does not matter,
// both branches being taken.
func (p *justParser) condition() bool {
	for {
		if _, ok := p.value(); !ok {
			return false
		}
		for p.eat("+") || p.eat("/") {
			if _, ok := p.value(); !ok {
				return false
			}
		}
		if !p.eat("==") && !p.eat("!=") && !p.eat("=~") {
			return false
		}
		if _, ok := p.value(); !ok {
			return false
		}
		for p.eat("+") || p.eat("/") {
			if _, ok := p.value(); !ok {
				return false
			}
		}
		if !p.eat("&&") && !p.eat("||") {
			return true
		}
	}
}

// keyword consumes the word w when it stands alone.
func (p *justParser) keyword(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	end := p.i + len(w)
	if end < len(p.s) && justNameByte(p.s[end]) {
		return false
	}
	p.i = end
	return true
}

// value: a string, a variable, a function call, a backtick, or ( EXPR ).
func (p *justParser) value() ([]string, bool) {
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '"' || c == '\'':
		s, ok := p.str()
		return []string{s}, ok
	case c == '`':
		end := strings.IndexByte(p.s[p.i+1:], '`')
		if end < 0 {
			return nil, false
		}
		p.i += end + 2
		return []string{"${JUST_BACKTICK}"}, true // its command is found apart
	case c == '(':
		p.i++
		vals, ok := p.expr()
		return vals, ok && p.eat(")")
	case p.keyword("if"):
		// "cargo" + if … { … } else { … }: the if takes the rest of the expression.
		p.i -= len("if")
		return p.expr()
	case justNameByte(c) && !('0' <= c && c <= '9'):
		start := p.i
		for p.i < len(p.s) && justNameByte(p.s[p.i]) {
			p.i++
		}
		name := p.s[start:p.i]
		if p.eat("(") {
			return p.call(name)
		}
		if v, ok := p.vars[name]; ok {
			return v, true
		}
		// A recipe's parameter, or a variable set outside the file.
		return []string{"${" + shellName(name) + "}"}, true
	}
	return nil, false
}

// call evaluates a function call, after its opening bracket.
func (p *justParser) call(name string) ([]string, bool) {
	var args [][]string
	if !p.eat(")") {
		for {
			a, ok := p.expr()
			if !ok {
				return nil, false
			}
			args = append(args, a)
			if p.eat(")") {
				break
			}
			if !p.eat(",") {
				return nil, false
			}
		}
	}
	switch name {
	case "just_executable":
		return []string{"just"}, true
	case "justfile_directory", "source_directory":
		// The directory of the file, where its recipes run.
		return []string{"."}, true
	case "env_var", "env", "env_var_or_default":
		if len(args) > 0 && len(args[0]) == 1 && justLiteralName(args[0][0]) {
			return []string{"${" + shellName(args[0][0]) + "}"}, true
		}
	case "join":
		if len(args) == 0 {
			return nil, false
		}
		vals := args[0]
		for _, a := range args[1:] {
			var ok bool
			if vals, ok = product(vals, a, "/"); !ok {
				return nil, false
			}
		}
		return vals, true
	case "quote":
		if len(args) == 1 {
			out := make([]string, len(args[0]))
			for i, v := range args[0] {
				out[i] = "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
			}
			return out, true
		}
	}
	return []string{"${JUST_" + strings.ToUpper(shellName(name)) + "}"}, true
}

// str reads a string literal: '…' as written, "…" with its escapes, and their tripled
// forms, whose lines just strips of their common indentation (kept here: blanks do not
// change what runs).
func (p *justParser) str() (string, bool) {
	q := p.s[p.i : p.i+1]
	if strings.HasPrefix(p.s[p.i:], q+q+q) {
		q = q + q + q
	}
	p.i += len(q)
	if q[0] == '\'' {
		end := strings.Index(p.s[p.i:], q)
		if end < 0 {
			return "", false
		}
		s := p.s[p.i : p.i+end]
		p.i += end + len(q)
		return s, true
	}
	var b strings.Builder
	for p.i < len(p.s) {
		if strings.HasPrefix(p.s[p.i:], q) {
			p.i += len(q)
			return b.String(), true
		}
		c := p.s[p.i]
		if c == '\\' && p.i+1 < len(p.s) {
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\n':
				// A backslash at the end of a line joins the next.
			default:
				b.WriteByte(e)
			}
			p.i++
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	return "", false
}

// product joins every text of a with every text of b, by sep; false beyond
// maxJustAlternatives.
func product(a, b []string, sep string) ([]string, bool) {
	if len(a)*len(b) > maxJustAlternatives {
		return nil, false
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+sep+y)
		}
	}
	return alternatives(out)
}

// alternatives drops repeated texts; false beyond maxJustAlternatives.
func alternatives(vals []string) ([]string, bool) {
	out := vals[:0:0]
	for _, v := range vals {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, len(out) <= maxJustAlternatives
}

func justNameByte(c byte) bool {
	return c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// justLiteralName reports whether s is a plain environment variable name.
func justLiteralName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
