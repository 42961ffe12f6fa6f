package shell

import (
	"regexp"
	"strconv"
	"strings"
)

// An in-place edit by sed -i of a file on disk is judged by the file it leaves, as an
// agent's edit tool is (internal/engine/planted.go): its replacement alone is a fragment
// of a TOML table, a JSON object or a YAML mapping, which read as shell code is nonsense
// ("version = 1.2.1" runs a program named version) and read as the file's format misses
// the table it lands in ([tool.poe.tasks]' test = "curl … | sh"). sedApply runs the
// scripts moat can follow exactly: substitutions, with line-number and pattern
// addresses, in GNU sed's basic or extended syntax, and deletions of the lines such an
// address selects. Anything else (appends, hold space, a backreference in a pattern, case
// conversion, a script file) is not emulated, and the caller reads the edit's inserted
// text as before.

// maxSedLines bounds the file an edit is applied to; a larger one is read by the edit's
// inserted text.
const maxSedLines = 20000

// sedSubst is one s or d command of a script, with its address.
type sedSubst struct {
	del      bool           // d: the line is deleted, and the next one read
	addrLine int            // a line number address; 0 for none
	addrLast bool           // the $ address
	addrRE   *regexp.Regexp // a /re/ address
	re       *regexp.Regexp
	repl     string
	global   bool
	nth      int  // the match to replace (s///2); 0 is the first
	print    bool // p: the line is printed again, into the file under -i
}

// sedApply returns the text sed with args leaves in a file that held text, and whether
// moat can tell it: false for a script it does not emulate, and for one whose every
// substitution does not change some line (a pattern moat might read otherwise than sed,
// whose edit is then not taken to be a no-op).
func sedApply(args []string, text string) (string, bool) {
	scripts, extended, ok := sedScripts(args)
	if !ok {
		return "", false
	}
	var subs []sedSubst
	for _, sc := range scripts {
		s, ok := parseSedScript(sc, extended)
		if !ok {
			return "", false
		}
		subs = append(subs, s...)
	}
	if len(subs) == 0 || strings.Count(text, "\n") > maxSedLines {
		return "", false
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	changed := make([]bool, len(subs))
	var out strings.Builder
	for n, line := range lines {
		body, nl := strings.CutSuffix(line, "\n")
		var extra []string
		deleted := false
		for k, s := range subs {
			if !s.applies(n+1, n == len(lines)-1, body) {
				continue
			}
			if s.del {
				changed[k], deleted = true, true
				break
			}
			if after, did := s.apply(body); did {
				changed[k] = changed[k] || after != body
				body = after
				if s.print {
					extra = append(extra, body)
				}
			}
		}
		for _, e := range extra {
			out.WriteString(e + "\n")
		}
		if deleted {
			continue
		}
		out.WriteString(body)
		if nl {
			out.WriteByte('\n')
		}
	}
	for _, c := range changed {
		if !c {
			return "", false
		}
	}
	return out.String(), true
}

// sedScripts returns the scripts of sed's arguments and whether they are extended
// regular expressions; false for an option that changes what sed leaves in the file in
// a way sedApply does not follow (-n, -z, -s with several files is fine, -f FILE).
func sedScripts(args []string) (scripts []string, extended, ok bool) {
	operand := false
	for j := 0; j < len(args); j++ {
		x := args[j]
		switch {
		case x == "--":
			operand = true
			if len(scripts) == 0 && j+1 < len(args) {
				scripts = append(scripts, args[j+1])
			}
			return scripts, extended, len(scripts) > 0
		case x == "-e" || x == "--expression":
			if j+1 >= len(args) {
				return nil, false, false
			}
			scripts = append(scripts, args[j+1])
			j++
		case strings.HasPrefix(x, "--expression="):
			scripts = append(scripts, x[len("--expression="):])
		case x == "--regexp-extended":
			extended = true
		case x == "--posix" || x == "--separate" || x == "--unbuffered" || x == "--follow-symlinks" ||
			x == "--binary" || x == "--debug" || x == "--sandbox" || strings.HasPrefix(x, "--in-place"):
		case x == "-i" && j+1 < len(args) && args[j+1] == "":
			j++ // BSD sed's -i '': no backup
		case strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && len(x) > 1:
			// A bundle of -E, -r, -s, -u, -b, and -i, whose rest is a backup suffix
			// (GNU's -i.bak, and -ie, which is -i with the suffix e).
			for k := 1; k < len(x); k++ {
				switch x[k] {
				case 'E', 'r':
					extended = true
				case 's', 'u', 'b':
				case 'i':
					k = len(x)
				default:
					return nil, false, false // -n, -z, -f FILE, -l N and anything unknown
				}
			}
		case strings.HasPrefix(x, "--"):
			return nil, false, false
		case !operand:
			operand = true
			if len(scripts) == 0 {
				scripts = append(scripts, x)
			}
		}
	}
	return scripts, extended, len(scripts) > 0
}

// parseSedScript reads a script made only of s and d commands, each with at most one
// address (a line number, $ or /re/), separated by ; or newlines.
func parseSedScript(sc string, extended bool) ([]sedSubst, bool) {
	var out []sedSubst
	i := 0
	for i < len(sc) {
		c := sc[i]
		if c == ';' || c == '\n' || c == ' ' || c == '\t' {
			i++
			continue
		}
		var s sedSubst
		switch {
		case c >= '0' && c <= '9':
			j := i
			for j < len(sc) && sc[j] >= '0' && sc[j] <= '9' {
				j++
			}
			n, err := strconv.Atoi(sc[i:j])
			if err != nil || n == 0 {
				return nil, false
			}
			s.addrLine, i = n, j
		case c == '$':
			s.addrLast = true
			i++
		case c == '/' || c == '\\':
			d := byte('/')
			if c == '\\' {
				if i+1 >= len(sc) {
					return nil, false
				}
				d, i = sc[i+1], i+1
			}
			parts, n := delimited(sc[i+1:], d, 1)
			if len(parts) != 1 {
				return nil, false
			}
			re, ok := sedRegexp(parts[0], d, extended, false)
			if !ok {
				return nil, false
			}
			s.addrRE, i = re, i+1+n
		}
		for i < len(sc) && (sc[i] == ' ' || sc[i] == '\t') {
			i++
		}
		if i < len(sc) && sc[i] == 'd' {
			// d, alone up to the next command: the addressed line goes.
			j := i + 1
			for j < len(sc) && (sc[j] == ' ' || sc[j] == '\t') {
				j++
			}
			if j < len(sc) && sc[j] != ';' && sc[j] != '\n' {
				return nil, false
			}
			s.del = true
			out = append(out, s)
			i = j
			continue
		}
		if i+1 >= len(sc) || sc[i] != 's' {
			return nil, false // a range, a negation, a command other than s or d
		}
		d := sc[i+1]
		if d == '\\' || d == '\n' || d == ' ' {
			return nil, false
		}
		parts, n := delimited(sc[i+2:], d, 2)
		if len(parts) != 2 {
			return nil, false
		}
		i += 2 + n
		insensitive := false
		for i < len(sc) && sc[i] != ';' && sc[i] != '\n' && sc[i] != '}' {
			f := sc[i]
			switch {
			case f == 'g':
				s.global = true
			case f == 'p':
				s.print = true
			case f == 'I' || f == 'i':
				insensitive = true
			case f >= '1' && f <= '9':
				j := i
				for j < len(sc) && sc[j] >= '0' && sc[j] <= '9' {
					j++
				}
				k, err := strconv.Atoi(sc[i:j])
				if err != nil {
					return nil, false
				}
				s.nth, i = k-1, j-1
			case f == ' ' || f == '\t':
			default:
				return nil, false // e, w FILE, m, M: not followed
			}
			i++
		}
		re, ok := sedRegexp(parts[0], d, extended, insensitive)
		if !ok {
			return nil, false
		}
		repl, ok := sedReplacement(parts[1], d)
		if !ok {
			return nil, false
		}
		s.re, s.repl = re, repl
		out = append(out, s)
	}
	return out, len(out) > 0
}

// applies reports whether the substitution's address selects line n (1-based).
func (s sedSubst) applies(n int, last bool, body string) bool {
	switch {
	case s.addrLine > 0:
		return n == s.addrLine
	case s.addrLast:
		return last
	case s.addrRE != nil:
		return s.addrRE.MatchString(body)
	}
	return true
}

// apply substitutes in one line, reporting whether the pattern matched.
func (s sedSubst) apply(line string) (string, bool) {
	matches := s.re.FindAllStringSubmatchIndex(line, -1)
	if len(matches) <= s.nth {
		return line, false
	}
	var b strings.Builder
	prev := 0
	for k, m := range matches {
		if k < s.nth || k > s.nth && !s.global {
			continue
		}
		b.WriteString(line[prev:m[0]])
		b.WriteString(expandSedReplacement(s.repl, line, m))
		prev = m[1]
	}
	b.WriteString(line[prev:])
	return b.String(), true
}

// Replacement text marks: sedReplacement turns & and \N into these bytes, which a line of
// text does not hold, so that expansion is one pass.
const (
	sedWhole = '\x00'
	sedGroup = '\x01' // followed by the group's digit
)

// sedReplacement reads a replacement: & is the match, \1…\9 its groups, \n a newline,
// \& and \\ themselves; case conversion (\U, \L…) is not followed.
func sedReplacement(r string, d byte) (string, bool) {
	if strings.ContainsAny(r, "\x00\x01") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c == '&':
			b.WriteByte(sedWhole)
		case c == '\\' && i+1 < len(r):
			i++
			switch e := r[i]; {
			case e >= '1' && e <= '9':
				b.WriteByte(sedGroup)
				b.WriteByte(e)
			case e == 'n':
				b.WriteByte('\n')
			case e == 't':
				b.WriteByte('\t')
			case strings.IndexByte("ULulE", e) >= 0 && e != d:
				return "", false
			default:
				b.WriteByte(e)
			}
		case c == '\\':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// expandSedReplacement fills in a replacement read by sedReplacement for the match m of
// line.
func expandSedReplacement(repl, line string, m []int) string {
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		switch repl[i] {
		case sedWhole:
			b.WriteString(line[m[0]:m[1]])
		case sedGroup:
			i++
			if g := int(repl[i] - '0'); 2*g+1 < len(m) && m[2*g] >= 0 {
				b.WriteString(line[m[2*g]:m[2*g+1]])
			}
		default:
			b.WriteByte(repl[i])
		}
	}
	return b.String()
}

// sedRegexp translates a sed pattern into Go's syntax: in a basic one \( \) \{ \} \+ \?
// \| are the operators and ( ) { } + ? | are themselves; \< and \> are word boundaries.
// A backreference, which Go's regular expressions do not have, is not followed.
func sedRegexp(p string, d byte, extended, insensitive bool) (*regexp.Regexp, bool) {
	var b strings.Builder
	if insensitive {
		b.WriteString("(?i)")
	}
	atStart := true // where * is literal in a basic expression, and ^ an anchor
	for i := 0; i < len(p); i++ {
		c := p[i]
		start := atStart
		atStart = false
		switch {
		case c == '\\' && i+1 < len(p):
			i++
			e := p[i]
			switch {
			case e == d:
				b.WriteString(regexp.QuoteMeta(string(e)))
			case e >= '1' && e <= '9':
				return nil, false
			case e == '<' || e == '>':
				b.WriteString(`\b`)
			case e == 'n':
				b.WriteString(`\n`)
			case e == 't':
				b.WriteString(`\t`)
			case strings.IndexByte("wWsSbB", e) >= 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case !extended && strings.IndexByte("(){}+?|", e) >= 0:
				b.WriteByte(e)
				atStart = e == '(' || e == '|'
			case strings.IndexByte("`'", e) >= 0:
				return nil, false
			default:
				b.WriteString(regexp.QuoteMeta(string(e)))
			}
		case c == '\\':
			return nil, false
		case c == '[':
			j := bracketEnd(p, i)
			if j < 0 {
				return nil, false
			}
			// A backslash is itself in a POSIX bracket expression.
			b.WriteString(strings.ReplaceAll(p[i:j+1], `\`, `\\`))
			i = j
		case !extended && strings.IndexByte("(){}+?|", c) >= 0:
			b.WriteString(regexp.QuoteMeta(string(c)))
		case c == '*' && start && !extended:
			b.WriteString(`\*`)
		case c == '^' && !start && !extended:
			b.WriteString(`\^`)
		case c == '$' && !extended && i+1 < len(p) && !strings.HasPrefix(p[i+1:], `\)`) && !strings.HasPrefix(p[i+1:], `\|`):
			b.WriteString(`\$`)
		case c == '^':
			b.WriteByte(c)
			atStart = true
		case extended && (c == '(' || c == '|'):
			b.WriteByte(c)
			atStart = true
		default:
			b.WriteByte(c)
		}
	}
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, false
	}
	re.Longest() // POSIX: the leftmost longest match
	return re, true
}

// bracketEnd returns the index of the ] that closes the bracket expression opening at
// p[i], or -1: a ] first in it ([]a], [^]a]) is itself, and [:class:] holds its own.
func bracketEnd(p string, i int) int {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		switch {
		case p[j] == '[' && j+1 < len(p) && strings.IndexByte(":.=", p[j+1]) >= 0:
			end := strings.Index(p[j+2:], string(p[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += end + 3
		case p[j] == ']':
			return j
		}
	}
	return -1
}
