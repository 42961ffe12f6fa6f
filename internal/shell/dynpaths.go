package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// placeOfDynamic returns the directory a path only partly known until run time is in: the
// word's literal start up to its last slash, with the variables whose values are known put
// in (~/.ssh/$KEY is in ~/.ssh, "$HOME/.aws/$F" in ~/.aws, /tmp/test-$$ in /tmp). "" when
// the word starts with what is not known, or spells no directory.
func (a *analyzer) placeOfDynamic(w *syntax.Word, cwd dir) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	param := func(pe *syntax.ParamExp) bool {
		v, ok := knownParam(a, pe)
		b.WriteString(v)
		return ok
	}
parts:
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s := p.Value
			if i == 0 && (s == "~" || strings.HasPrefix(s, "~/")) {
				home, _ := a.st.get("HOME")
				if !home.known {
					return ""
				}
				s = home.s + s[1:]
			}
			if k := strings.IndexAny(s, `\*?[`); k >= 0 {
				b.WriteString(s[:k])
				break parts // an escape or a pattern: the literal part ends here
			}
			b.WriteString(s)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					if strings.ContainsRune(q.Value, '\\') {
						break parts
					}
					b.WriteString(q.Value)
				case *syntax.ParamExp:
					if !param(q) {
						break parts
					}
				default:
					break parts
				}
			}
		case *syntax.ParamExp:
			if !param(p) {
				break parts
			}
		default:
			break parts
		}
	}
	prefix := b.String()
	i := strings.LastIndexByte(prefix, '/')
	if i < 0 {
		return ""
	}
	d := prefix[:i]
	if d == "" {
		d = "/"
	}
	abs, ok, opaque := a.resolve(d, cwd)
	if !ok || opaque {
		return ""
	}
	return abs
}

// namesLeaf reports whether what is computed in the word w names a file directly in the
// directory its literal start spells: no slash follows it (~/.aws/$F, ~/.aws/${P}_creds,
// but not ~/.config/$APP/settings.json, whose file is settings.json wherever $APP leads).
func (a *analyzer) namesLeaf(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	computed := false
	slash := func(s string) {
		if computed && strings.Contains(s, "/") {
			computed = false
		}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			slash(p.Value)
		case *syntax.SglQuoted:
			slash(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					slash(l.Value)
				} else if v, ok := knownParam(a, q); ok {
					slash(v)
				} else {
					computed = true
				}
			}
		default:
			if v, ok := knownParam(a, p); ok {
				slash(v)
			} else {
				computed = true
			}
		}
	}
	return computed
}

// knownParam returns the value of a plain $NAME whose value the line knows.
func knownParam(a *analyzer, p syntax.WordPart) (string, bool) {
	pe, ok := p.(*syntax.ParamExp)
	if !ok || pe.Param == nil || pe.Exp != nil || pe.Repl != nil || pe.Slice != nil || pe.Index != nil || pe.Names != 0 || pe.Excl || pe.Length || pe.Width {
		return "", false
	}
	v, _ := a.st.get(pe.Param.Value)
	return v.s, v.known
}

// heldPlace reports whether every file in the directory d holds credentials or is one of
// moat's or an agent's protected files: ~/.ssh, ~/.aws, ~/.config/moat. A name no rule
// spells stands for the file a variable names there.
func (a *analyzer) heldPlace(d string) bool {
	entry := strings.TrimSuffix(d, "/") + "/\x00entry"
	env := &a.sh.env
	return env.Sensitive != nil && env.Sensitive(call.Access{Kind: call.Read, Path: entry}) ||
		env.Protected != nil && env.Protected(call.Access{Kind: call.Write, Path: entry})
}
