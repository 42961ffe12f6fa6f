package shell

import (
	"bytes"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/shell/decode"
	"mvdan.cc/sh/v3/syntax"
)

// arg is one argument of a command after the shell's expansions.
type arg struct {
	lit     string // what the program receives; the word's source text when dynamic
	pat     string // when glob: lit as a glob pattern, with its quoted metacharacters escaped
	glob    bool   // the shell would expand lit as a pattern
	hidden  bool   // when glob: its wildcards match a leading dot (find's paths)
	dynamic bool   // the value is only known at run time
	word    *syntax.Word
}

// Limits on what one line may expand to, so that a short line cannot make the analysis
// build a huge one (`x=$x$x` repeated, `{a,b}{a,b}…`, a long value split many times).
// Past them, words are dynamic, which is always a safe answer.
const (
	maxBraceFields = 256 // fields one word's brace expansion may produce
	// maxLineBraceFields bounds the fields brace expansion may produce in a whole line,
	// nested code included. A field made by braces costs several times a plain word to
	// build, and a line of 64 KiB of `{a,b}{c,d}…` words cost ten times its parse;
	// `mkdir -p src/{a,b}/{x,y}` makes four.
	maxLineBraceFields = 1024
	argCost            = 64 // budget charged per field, besides its bytes
)

// fieldBuf accumulates one field of a word being expanded.
type fieldBuf struct {
	lit, pat []byte
	active   bool // holds an unquoted glob metacharacter
	exists   bool // is a field even if empty: `""` is one, an unquoted empty `$x` is none
}

func (f *fieldBuf) reset() {
	f.lit, f.pat = f.lit[:0], f.pat[:0]
	f.active, f.exists = false, false
}

// quoted adds text that the shell takes literally: quoted, escaped, or produced by a tilde.
func (f *fieldBuf) quoted(s string) {
	f.exists = true
	f.lit = append(f.lit, s...)
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			f.pat = append(f.pat, '\\')
		}
		f.pat = append(f.pat, s[i])
	}
}

// unquoted adds one character that the shell may still expand as a pattern.
func (f *fieldBuf) unquoted(c byte) {
	f.exists = true
	f.lit = append(f.lit, c)
	f.pat = append(f.pat, c)
	if c == '*' || c == '?' || c == '[' {
		f.active = true
	}
}

// expand appends the arguments that word w expands to: none, one, or several (brace
// expansion, field splitting). A word whose value is only known at run time becomes one
// dynamic argument holding its source text. Variables are resolved only when vars is set.
func (a *analyzer) expand(dst []arg, w *syntax.Word, vars bool) []arg {
	if x, ok := plainWord(w); ok {
		return append(dst, x)
	}
	n := len(dst)
	dst, ok := a.expandWord(dst, w, vars)
	if ok {
		return dst
	}
	x := arg{dynamic: true, word: w}
	if vars {
		x.lit = a.source(w)
	}
	return append(dst[:n], x)
}

// plainWord handles the common words that need no expansion without allocating.
func plainWord(w *syntax.Word) (arg, bool) {
	if len(w.Parts) != 1 {
		return arg{}, false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		v := p.Value
		if v == "" || v[0] == '~' || strings.ContainsAny(v, `\{`) || strings.Contains(v, "=~") {
			return arg{}, false
		}
		x := arg{lit: v, word: w}
		if isPattern(v) {
			x.glob, x.pat = true, v
		}
		return x, true
	case *syntax.SglQuoted:
		if !p.Dollar {
			return arg{lit: p.Value, word: w}, true
		}
	case *syntax.DblQuoted:
		switch len(p.Parts) {
		case 0:
			return arg{word: w}, true
		case 1:
			if l, ok := p.Parts[0].(*syntax.Lit); ok && !strings.Contains(l.Value, `\`) {
				return arg{lit: l.Value, word: w}, true
			}
		}
	}
	return arg{}, false
}

func (a *analyzer) expandWord(dst []arg, w *syntax.Word, vars bool) ([]arg, bool) {
	if a.budget <= 0 {
		return dst, false // the line has produced all the text it may: the rest is unknown
	}
	if hasBrace(w.Parts) {
		if a.sh.braceFields >= maxLineBraceFields {
			return dst, false // checked first: splitting the word is what costs
		}
		cp := *w // SplitBraces replaces the word's parts; the tree must stay as parsed
		if syntax.SplitBraces(&cp) {
			alts, ok := a.braceAlternatives(cp.Parts)
			if a.sh.braceFields += len(alts); !ok || a.sh.braceFields > maxLineBraceFields {
				return dst, false
			}
			for _, alt := range alts {
				if dst, ok = a.expandParts(dst, alt, w, vars); !ok {
					return dst, false
				}
			}
			return dst, true
		}
	}
	return a.expandParts(dst, w.Parts, w, vars)
}

func hasBrace(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// braceAlternatives expands the brace lists in parts ({a,b}), giving one list of parts per
// word the shell would produce. Sequences ({1..5}) are not expanded yet.
func (a *analyzer) braceAlternatives(parts []syntax.WordPart) ([][]syntax.WordPart, bool) {
	alts := [][]syntax.WordPart{nil}
	for _, p := range parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range alts {
				alts[i] = append(alts[i], p)
			}
			continue
		}
		if be.Sequence {
			return nil, false
		}
		var opts [][]syntax.WordPart
		for _, el := range be.Elems {
			sub, ok := a.braceAlternatives(el.Parts)
			if !ok {
				return nil, false
			}
			opts = append(opts, sub...)
			if len(opts) > maxBraceFields {
				return nil, false
			}
		}
		n := len(alts) * len(opts)
		if n > maxBraceFields || !a.spend(n*argCost) {
			return nil, false
		}
		next := make([][]syntax.WordPart, 0, n)
		for _, x := range alts {
			for _, o := range opts {
				next = append(next, slices.Concat(x, o))
			}
		}
		alts = next
	}
	for i, alt := range alts {
		alts[i] = joinLits(alt)
	}
	return alts, true
}

// joinLits merges adjacent literals, so that a tilde-prefix split by brace expansion
// (`~{a,b}` gives `~a`) is seen whole, as the shell sees it.
func joinLits(parts []syntax.WordPart) []syntax.WordPart {
	out := parts[:0:0]
	for _, p := range parts {
		l, ok := p.(*syntax.Lit)
		if ok && len(out) > 0 {
			if prev, ok := out[len(out)-1].(*syntax.Lit); ok {
				out[len(out)-1] = &syntax.Lit{Value: prev.Value + l.Value}
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// expandParts expands one word given as parts: tilde, quotes, escapes and variables, then
// field splitting of unquoted expansions. It reports false when any part is only known at
// run time.
func (a *analyzer) expandParts(dst []arg, parts []syntax.WordPart, w *syntax.Word, vars bool) ([]arg, bool) {
	f := &a.field
	f.reset()
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !a.lit(f, p.Value, i == 0, i == len(parts)-1, vars, false) {
				return dst, false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				f.quoted(ansiC(p.Value))
			} else {
				f.quoted(p.Value)
			}
		case *syntax.DblQuoted:
			if !a.dquoted(f, p, vars) {
				return dst, false
			}
		case *syntax.ParamExp, *syntax.CmdSubst:
			v, ok := a.expansion(p, vars)
			if !ok {
				return dst, false
			}
			if dst, ok = a.split(dst, f, v, w); !ok {
				return dst, false
			}
		default:
			// Other command substitutions, process substitution, arithmetic, extended
			// globs.
			return dst, false
		}
	}
	return a.flush(dst, f, w)
}

// lit adds an unquoted literal: escapes are removed, and a tilde-prefix is expanded at the
// start of the word and, in an assignment, after each colon. A word that reads as an
// assignment (NAME=VALUE) is one for tilde expansion, wherever it is: bash expands
// dd of=~/.bashrc and make PREFIX=~/x as it expands X=~/x (not --prefix=~/x).
func (a *analyzer) lit(f *fieldBuf, s string, first, last, vars, assign bool) bool {
	start := first
	if n := assignmentName(s); first && !assign && n > 0 {
		for _, c := range []byte(s[:n+1]) {
			f.unquoted(c)
		}
		s, start, assign = s[n+1:], true, true
	}
	for i := 0; i < len(s); {
		c := s[i]
		if start && c == '~' {
			n, ok := a.tilde(f, s[i:], last, vars, assign)
			if !ok {
				return false
			}
			if n > 0 {
				i += n
				start = false
				continue
			}
		}
		start = assign && c == ':'
		switch {
		case c == '\\' && i+1 < len(s):
			f.quoted(s[i+1 : i+2])
			i += 2
		case c == '\\':
			f.quoted(`\`) // a trailing backslash is literal
			i++
		default:
			f.unquoted(c)
			i++
		}
	}
	return true
}

// assignmentName returns the length of the NAME of a word that starts NAME= (a letter or
// underscore, then letters, digits and underscores), else 0.
func assignmentName(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			return i
		case c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return 0
		}
	}
	return 0
}

// tilde expands the tilde-prefix at the start of s: `~` alone or before a slash (or, in an
// assignment, a colon) is $HOME. It returns how many bytes it consumed: 0 when the tilde is
// literal (quoted text follows it in the same word). Other prefixes (~user, ~+) are only
// known at run time.
func (a *analyzer) tilde(f *fieldBuf, s string, last, vars, assign bool) (int, bool) {
	stops := "/"
	if assign {
		stops = "/:"
	}
	end := strings.IndexAny(s, stops)
	if end < 0 {
		if !last {
			return 0, true
		}
		end = len(s)
	}
	if end == len("~root") && s[:end] == "~root" && vars {
		// Other users' homes are not known; root's is /root on every Linux.
		f.quoted("/root")
		return end, true
	}
	if end > 1 && vars && userName(s[1:end]) {
		// Another user's home is not known for sure, but homes are kept side by side:
		// beside $HOME (/home/bob, /Users/bob), or in /home when $HOME is root's. So what
		// a rule says of homes (/home/*/.ssh/id_*) holds for ~bob/.ssh/id_rsa.
		home, _ := a.st.get("HOME")
		if !home.known {
			return 0, false
		}
		homes := path.Dir(home.s)
		if homes == "/" || home.s == "/root" {
			homes = "/home"
		}
		f.quoted(path.Join(homes, s[1:end]))
		return end, true
	}
	if end != 1 || !vars {
		return 0, false
	}
	home, _ := a.st.get("HOME")
	if !home.known {
		return 0, false
	}
	f.quoted(home.s)
	return 1, true
}

// userName reports whether s is a login name as useradd takes it: a lower-case letter or
// underscore, then letters, digits, underscores, dashes and dots, ending in $ at most.
func userName(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case i > 0 && (c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c == '-' || c == '.'):
		case i > 0 && i == len(s)-1 && c == '$':
		default:
			return false
		}
	}
	return true
}

func (a *analyzer) dquoted(f *fieldBuf, q *syntax.DblQuoted, vars bool) bool {
	f.exists = true
	for _, p := range q.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			dquotedLit(f, p.Value)
		case *syntax.ParamExp, *syntax.CmdSubst:
			v, ok := a.expansion(p, vars)
			if !ok {
				return false
			}
			f.quoted(v)
		default:
			return false
		}
	}
	return true
}

// expansion returns the value of a parameter expansion or of a command substitution that
// staticSubst can evaluate.
func (a *analyzer) expansion(p syntax.WordPart, vars bool) (string, bool) {
	switch p := p.(type) {
	case *syntax.ParamExp:
		return a.param(p, vars)
	case *syntax.CmdSubst:
		return a.staticSubst(p, vars)
	}
	return "", false
}

// staticSubst returns what a command substitution prints when that is plain to see: $(echo
// WORDS), $(printf FORMAT ARGS), $(pwd) or $(mktemp …) (mktemp.go), with static words.
// The shell drops the trailing newlines. The command is still walked and decided as any other.
func (a *analyzer) staticSubst(cs *syntax.CmdSubst, vars bool) (string, bool) {
	if !vars {
		return "", false
	}
	if dir, ok := a.cdPwd(cs); ok {
		return dir, true
	}
	if len(cs.Stmts) != 1 {
		return "", false
	}
	st := cs.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Background || st.Negated || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return "", false
	}
	name := ce.Args[0].Lit()
	if name == "git" {
		return a.gitToplevel(ce.Args[1:])
	}
	if name != "echo" && name != "printf" && name != "pwd" && name != "mktemp" && name != "dirname" && name != "basename" {
		return "", false
	}
	for _, w := range ce.Args[1:] {
		if hasSubst(w) {
			// Evaluating nested substitutions here would evaluate each level once per
			// level above it; they are left to the walk.
			return "", false
		}
	}
	// The words are expanded with a field buffer of their own: the caller is building one.
	saved := a.field
	a.field = fieldBuf{}
	words := make([]string, 0, len(ce.Args)-1)
	static := true
	for _, w := range ce.Args[1:] {
		var out []arg
		out = a.expand(out, w, true)
		for _, x := range out {
			if x.dynamic {
				static = false
			}
			words = append(words, x.lit)
		}
	}
	a.field = saved
	if !static {
		return "", false
	}
	var text string
	switch name {
	case "echo":
		text = decode.Echo(words)
	case "printf":
		if len(words) == 0 {
			return "", false
		}
		if text, ok = decode.Printf(words[0], words[1:]); !ok {
			return "", false
		}
	case "pwd":
		cwd := a.cwd()
		if !cwd.known || len(words) > 0 {
			return "", false
		}
		text = cwd.path
	case "mktemp":
		if text, ok = a.mktempPath(words); !ok {
			return "", false
		}
	case "dirname", "basename":
		if len(words) != 1 || strings.HasPrefix(words[0], "-") {
			return "", false
		}
		text = path.Dir(words[0])
		if name == "basename" {
			text = path.Base(words[0])
		}
	}
	if len(text) > 4<<10 || !a.spend(len(text)) {
		// A long output is left unknown: it would be split and analysed twice over.
		return "", false
	}
	return strings.TrimRight(text, "\n"), true
}

// cdPwd is what $(cd DIR && pwd) (or cd DIR; pwd) prints: DIR, absolute, when it is
// known; DIR may itself hold $(dirname …), as in ROOT="$(cd "$(dirname "$0")/.." && pwd)".
func (a *analyzer) cdPwd(cs *syntax.CmdSubst) (string, bool) {
	var cd, pwd *syntax.Stmt
	switch len(cs.Stmts) {
	case 1:
		b, ok := cs.Stmts[0].Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.AndStmt {
			return "", false
		}
		cd, pwd = b.X, b.Y
	case 2:
		cd, pwd = cs.Stmts[0], cs.Stmts[1]
	default:
		return "", false
	}
	c, ok := cd.Cmd.(*syntax.CallExpr)
	p, ok2 := pwd.Cmd.(*syntax.CallExpr)
	if !ok || !ok2 || len(c.Args) != 2 || c.Args[0].Lit() != "cd" || len(p.Args) != 1 || p.Args[0].Lit() != "pwd" ||
		len(cd.Redirs) > 0 || len(pwd.Redirs) > 0 || len(c.Assigns) > 0 || len(p.Assigns) > 0 || !onlyDirnames(c.Args[1]) {
		return "", false
	}
	saved := a.field
	a.field = fieldBuf{}
	out := a.expand(nil, c.Args[1], true)
	a.field = saved
	if len(out) != 1 || out[0].dynamic || out[0].lit == "" || strings.HasPrefix(out[0].lit, "-") {
		return "", false
	}
	dir := out[0].lit
	if !path.IsAbs(dir) {
		cwd := a.cwd()
		if !cwd.known {
			return "", false
		}
		dir = path.Join(cwd.path, dir)
	}
	return path.Clean(dir), true
}

// onlyDirnames reports whether the substitutions in w, if any, are $(dirname WORD) or
// $(basename WORD) of words without substitutions: one level, evaluated once.
func onlyDirnames(w *syntax.Word) bool {
	ok := true
	syntax.Walk(w, func(n syntax.Node) bool {
		cs, is := n.(*syntax.CmdSubst)
		if !is {
			return ok
		}
		if len(cs.Stmts) != 1 {
			ok = false
			return false
		}
		ce, is := cs.Stmts[0].Cmd.(*syntax.CallExpr)
		if !is || len(ce.Args) != 2 || (ce.Args[0].Lit() != "dirname" && ce.Args[0].Lit() != "basename") || hasSubst(ce.Args[1]) {
			ok = false
		}
		return false
	})
	return ok
}

// gitToplevel is what git rev-parse --show-toplevel prints in the project: its root, the
// directory `cd "$(git rev-parse --show-toplevel)"` goes to. Elsewhere, or with other
// words, it is unknown.
func (a *analyzer) gitToplevel(words []*syntax.Word) (string, bool) {
	if len(words) != 2 || words[0].Lit() != "rev-parse" || words[1].Lit() != "--show-toplevel" {
		return "", false
	}
	root, cwd := a.projectRoot(), a.cwd()
	if root == "" || !cwd.known || !under(cwd.path, root) {
		return "", false
	}
	return root, true
}

// dquotedLit adds literal text from inside double quotes, where a backslash escapes only
// $ ` " \ and newline, and is kept before any other character.
func dquotedLit(f *fieldBuf, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				f.quoted(s[i+1 : i+2])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		f.quoted(s[i : i+1])
	}
}

// param resolves a plain $name or ${name}, and ${name:-word} or ${name-word} when name
// is known; any other parameter expansion is dynamic.
func (a *analyzer) param(p *syntax.ParamExp, vars bool) (string, bool) {
	if !vars {
		return "", false
	}
	if p.Exp != nil && (p.Exp.Op == syntax.ErrorUnsetOrNull || p.Exp.Op == syntax.ErrorUnset) {
		// ${ROOT:?}: the value, when it is known (bash stops the command where it is not).
		q := *p
		q.Exp = nil
		if !plainParam(&q) {
			return "", false
		}
		v, _ := a.st.get(p.Param.Value)
		if !v.known || v.s == "" && p.Exp.Op == syntax.ErrorUnsetOrNull {
			return "", false
		}
		return v.s, true
	}
	if p.Exp != nil && (p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.DefaultUnset) {
		q := *p
		q.Exp = nil
		if !plainParam(&q) {
			return "", false
		}
		v, _ := a.st.get(p.Param.Value)
		if !v.known {
			return "", false
		}
		if v.s != "" || p.Exp.Op == syntax.DefaultUnset {
			return v.s, true
		}
		if p.Exp.Word == nil {
			return "", true
		}
		// Only a literal default: expanding a word here would reuse the field being built.
		if lit := p.Exp.Word.Lit(); lit != "" && !strings.ContainsAny(lit, "\\~") {
			return lit, true
		}
		return "", false
	}
	if p.Param != nil && p.Param.Value == "BASH_SOURCE" && bashSourceFirst(p) {
		// ${BASH_SOURCE[0]} is the file running, $0 when it is run by name.
		v, _ := a.st.get("0")
		return v.s, v.known
	}
	if !plainParam(p) {
		return "", false
	}
	v, _ := a.st.get(p.Param.Value)
	return v.s, v.known
}

// bashSourceFirst reports whether p is $BASH_SOURCE or ${BASH_SOURCE[0]}, and nothing more.
func bashSourceFirst(p *syntax.ParamExp) bool {
	q := *p
	if q.Index != nil {
		w, ok := q.Index.(*syntax.Word)
		if !ok || w.Lit() != "0" {
			return false
		}
		q.Index = nil
	}
	return plainParam(&q)
}

func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && p.NestedParam == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil
}

// split adds the value of an unquoted expansion, which the shell splits into fields at IFS
// characters and then expands as a pattern.
func (a *analyzer) split(dst []arg, f *fieldBuf, v string, w *syntax.Word) ([]arg, bool) {
	if !a.spend(len(v)) {
		return dst, false
	}
	ifs, _ := a.st.get("IFS")
	if !ifs.known || strings.Trim(ifs.s, " \t\n") != "" {
		// An IFS with other characters splits in ways not modelled (empty fields).
		return dst, false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if strings.IndexByte(ifs.s, c) < 0 {
			f.unquoted(c)
			continue
		}
		if f.exists {
			var ok bool
			if dst, ok = a.flush(dst, f, w); !ok {
				return dst, false
			}
		}
	}
	return dst, true
}

func (a *analyzer) flush(dst []arg, f *fieldBuf, w *syntax.Word) ([]arg, bool) {
	if !f.exists {
		return dst, true
	}
	if !a.spend(len(f.lit) + len(f.pat) + argCost) {
		return dst, false
	}
	x := arg{lit: string(f.lit), word: w}
	if f.active {
		if pat := string(f.pat); isPattern(pat) {
			x.glob, x.pat = true, pat
		}
	}
	f.reset()
	return append(dst, x), true
}

// assignValue expands the value of an assignment: like a word, but without field splitting
// or pattern expansion, and with tilde expansion after each colon too (PATH=~/bin:~/go/bin).
func (a *analyzer) assignValue(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	f := &a.field
	f.reset()
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !a.lit(f, p.Value, i == 0, i == len(w.Parts)-1, true, true) {
				return "", false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				f.quoted(ansiC(p.Value))
			} else {
				f.quoted(p.Value)
			}
		case *syntax.DblQuoted:
			if !a.dquoted(f, p, true) {
				return "", false
			}
		case *syntax.ParamExp:
			v, ok := a.param(p, true)
			if !ok {
				return "", false
			}
			f.quoted(v)
		case *syntax.CmdSubst:
			// x=$(mktemp): an assignment does not split fields, as if quoted. Other
			// substitutions stay unknown here (x=$(echo rm); $x is a dynamic command).
			if !isMktemp(p) {
				return "", false
			}
			v, ok := a.staticSubst(p, true)
			if !ok {
				return "", false
			}
			f.quoted(v)
		default:
			return "", false
		}
	}
	if !a.spend(len(f.lit) + argCost) {
		return "", false
	}
	return string(f.lit), true
}

// isPattern reports whether s, read as a glob pattern (backslash escapes), holds a
// metacharacter: * or ?, or a bracket expression [...] that is closed.
func isPattern(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			j := i + 1
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				j++
			}
			if j < len(s) && s[j] == ']' {
				j++ // a ] first in the set is a member, not the end
			}
			for ; j < len(s); j++ {
				if s[j] == '\\' {
					j++
				} else if s[j] == ']' {
					return true
				}
			}
		}
	}
	return false
}

// ansiC decodes the body of a $'...' string. Like bash, it ends the string at a NUL
// ($'rm\0 -rf' is "rm"), and keeps a backslash before a character it does not know.
func ansiC(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b = append(b, c)
			continue
		}
		i++
		c = s[i]
		switch c {
		case 'a':
			b = append(b, '\a')
		case 'b':
			b = append(b, '\b')
		case 'e', 'E':
			b = append(b, 0x1b)
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'v':
			b = append(b, '\v')
		case '\\', '\'', '"', '?':
			b = append(b, c)
		case 'x', 'u', 'U':
			width := 2
			switch c {
			case 'u':
				width = 4
			case 'U':
				width = 8
			}
			n, v := digits(s[i+1:], 16, width)
			if n == 0 {
				b = append(b, '\\', c)
				continue
			}
			if c == 'x' {
				b = append(b, byte(v))
			} else {
				b = utf8.AppendRune(b, rune(v))
			}
			i += n
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, v := digits(s[i:], 8, 3)
			b = append(b, byte(v))
			i += n - 1
		case 'c':
			if i+1 == len(s) {
				b = append(b, '\\', c)
				continue
			}
			i++
			b = append(b, s[i]&0x1f)
		default:
			b = append(b, '\\', c)
		}
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// digits parses up to max digits of the base at the start of s.
func digits(s string, base, max int) (n int, v uint32) {
	for n < max && n < len(s) {
		d := digitValue(s[n])
		if d >= base {
			break
		}
		v = v*uint32(base) + uint32(d)
		n++
	}
	return n, v
}

func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return 99
}

// source returns a node's source text, for dynamic words and evidence: the bytes of the
// line it was parsed from, or, when its position is not usable, the node printed anew.
func (a *analyzer) source(n syntax.Node) string {
	if !hasSpan(n) {
		return ""
	}
	start, end := n.Pos(), n.End()
	if start.IsValid() && end.IsValid() && start.Offset() <= end.Offset() && end.Offset() <= uint(len(a.line)) {
		return a.line[start.Offset():end.Offset()]
	}
	if a.printer == nil {
		a.printer = syntax.NewPrinter()
	}
	var b strings.Builder
	if err := a.printer.Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}

// hasSpan reports whether n's Pos and End can be computed: they index the parts of words,
// so a word with none has no position.
func hasSpan(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Word:
		return len(n.Parts) > 0
	case *syntax.Assign:
		if n.Value != nil && len(n.Value.Parts) == 0 {
			return false
		}
		return n.Name != nil || n.Value != nil
	}
	return true
}

// spend takes n from the line's expansion budget, reporting false when it is exhausted.
func (a *analyzer) spend(n int) bool {
	if n > a.budget {
		a.budget = 0
		return false
	}
	a.budget -= n
	return true
}

// hasSubst reports whether a word holds a command or process substitution.
func hasSubst(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return true
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q.(type) {
				case *syntax.CmdSubst, *syntax.ProcSubst:
					return true
				}
			}
		}
	}
	return false
}
