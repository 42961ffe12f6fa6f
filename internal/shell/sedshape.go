package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A sed script with values only known at run time in it (sed -i "s/VERSION/$VERSION/"
// file) is read by its shape: each value of the environment stands for data, and the
// script is judged as the commands its literal text writes, when every value is data to
// sed (a pattern, a replacement, an address, a text inserted). A value in the place of a
// command, a flag or a file name (s/x/y/$FLAGS, $SCRIPT, w $F) may make sed run or write
// anything, and a value the line computed (a command's output) is the line's, not the
// user's: either is code moat cannot read.

// shapeMark stands for a value only known at run time in a sed script's shape.
const shapeMark = 0

// sedShape returns the text of the word w with each variable of the environment replaced
// by shapeMark, or false when the word holds anything else only known at run time (a
// command substitution, a variable the line computed or read, an expansion with
// operators).
func (a *analyzer) sedShape(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	param := func(pe *syntax.ParamExp) bool {
		if pe.Param == nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil ||
			pe.Names != 0 || pe.Excl || pe.Length || pe.Width || a.computedHere(pe) {
			return false
		}
		if v, _ := a.st.get(pe.Param.Value); v.known {
			b.WriteString(v.s)
		} else {
			b.WriteByte(shapeMark)
		}
		return true
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					b.WriteString(q.Value)
				case *syntax.ParamExp:
					if !param(q) {
						return "", false
					}
				default:
					return "", false
				}
			}
		case *syntax.ParamExp:
			if !param(p) {
				return "", false
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// computedHere reports whether the variable a parameter expansion reads was set on this
// line to what the line does not know (x=$(ls), read f), rather than by the environment
// or a loop over written words.
func (a *analyzer) computedHere(pe *syntax.ParamExp) bool {
	if pe.Param == nil {
		return true
	}
	name := pe.Param.Value
	if len(a.varSubsts[name]) > 0 {
		return true
	}
	_, bound := a.st.latest[name]
	return bound && !a.loopVars[name]
}

// sedShapeData reports whether every shapeMark of a sed script's shape stands where sed
// takes it as data: in the pattern or the replacement of an s or y command, in an
// address's regular expression, or in the text of a, i and c. It reads the script as
// sedScript does.
func sedShapeData(s string) bool {
	marked := func(t string) bool { return strings.IndexByte(t, shapeMark) >= 0 }
	for i := 0; i < len(s); {
		c := s[i]
		if c == shapeMark || c == '\\' && i+1 < len(s) && s[i+1] == shapeMark {
			return false // a command, a line number or an address's delimiter chosen at run time
		}
		if next, skipped := skipSedAddress(s, i); skipped {
			i = next
			continue
		}
		i++
		switch c {
		case '#', 'a', 'i', 'c':
			i = sedTextEnd(s, i)
		case ':', 'b', 't', 'T', 'q', 'Q', 'l', 'L', 'v':
			start := i
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				i++
			}
			if marked(s[start:i]) {
				return false
			}
		case 'r', 'R', 'w', 'W', 'e':
			arg, next := sedLine(s, i)
			if marked(arg) {
				return false // a file or a command named at run time
			}
			i = next
		case 's', 'y':
			if i >= len(s) || s[i] == shapeMark || s[i] == '\\' || s[i] == '\n' {
				return i >= len(s)
			}
			delim := s[i]
			_, rest := cutDelimited(s[i+1:], delim)
			_, rest = cutDelimited(rest, delim)
			i = len(s) - len(rest)
			if c == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				if s[i] == shapeMark {
					return false // a flag chosen at run time: e runs, w writes
				}
				if s[i] == 'w' {
					arg, next := sedLine(s, i+1)
					if marked(arg) {
						return false
					}
					i = next
					break
				}
				i++
			}
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		default:
			return false
		}
	}
	return true
}
