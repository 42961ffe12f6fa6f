package oneliner

import "strings"

// What a command line's code does is judged as one: in a line, code that reads a key and
// code that posts are the same few statements. A source file is larger, and the same two
// calls in two functions of a module (a logger that writes to a stream, a settings
// loader that lists the environment) are unrelated. Units cuts a program's source into
// pieces of at most a few kilobytes of whole top-level statements, each judged alone.

const (
	// unitBytes is the size units grow to: top-level statements are gathered until their
	// text reaches it.
	unitBytes = 4 << 10
	// headerBytes bounds the module's one-line top-level statements (imports and
	// constants) that come before each unit, so that a name a unit uses is known there.
	headerBytes = 2 << 10
)

// Units returns the pieces of a program's source in language lang to judge one by one:
// whole top-level statements, gathered up to a few kilobytes, each after the module's
// imports and one-line constants. Source of a language whose statements it cannot tell
// apart, or no larger than one unit, is one piece. Documentation the language itself
// skips (Perl's POD, Ruby's =begin/=end, what follows __END__) is left out.
func Units(lang Lang, code string) []string {
	code = withoutDocs(lang, code)
	if len(code) <= unitBytes || !unitLang(lang) {
		return []string{code}
	}
	stmts := topLevel(lang, code)
	if len(stmts) < 2 {
		return []string{code}
	}
	var header strings.Builder
	for _, s := range stmts {
		if header.Len()+len(s) > headerBytes {
			break
		}
		if oneLine := !strings.Contains(strings.TrimRight(s, "\n"), "\n"); oneLine && declares(s) {
			header.WriteString(s)
		}
	}
	var units []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			units = append(units, header.String()+cur.String())
			cur.Reset()
		}
	}
	for _, s := range stmts {
		if cur.Len() > 0 && cur.Len()+len(s) > unitBytes {
			flush()
		}
		cur.WriteString(s)
	}
	flush()
	return units
}

// unitLang reports whether lang's top-level statements begin at the start of a line.
func unitLang(lang Lang) bool {
	switch lang {
	case Python, Node, Ruby, PHP, Perl:
		return true
	}
	return false
}

// topLevel cuts code into its top-level statements: each begins with a line that starts
// at the left margin, is not inside a multi-line string, and does not go on with the
// statement before it (a closing bracket, Python's else/except, Ruby's end). Blank lines
// and comments go with the statement after them.
func topLevel(lang Lang, code string) []string {
	var stmts []string
	start, inString := 0, byte(0)
	pos := 0
	for pos < len(code) {
		end := strings.IndexByte(code[pos:], '\n')
		next := len(code)
		if end >= 0 {
			next = pos + end + 1
		}
		line := code[pos:next]
		if inString == 0 && pos > start && startsStatement(lang, line) && !continues(code[start:pos]) {
			stmts = append(stmts, code[start:pos])
			start = pos
		}
		inString = stringAfter(lang, line, inString)
		pos = next
	}
	return append(stmts, code[start:])
}

// startsStatement reports whether line, at the left margin, begins a statement of its own.
func startsStatement(lang Lang, line string) bool {
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '\n' || line[0] == '\r' {
		return false
	}
	switch line[0] {
	case '}', ')', ']', '.', ',', '+', '-', '*', '/', '&', '|', '?', ':', '=', '<', '>':
		return false
	}
	word := line
	if i := strings.IndexAny(line, " \t:({;\n"); i >= 0 {
		word = line[:i]
	}
	switch lang {
	case Python:
		switch word {
		case "else", "elif", "except", "finally", "case":
			return false
		}
	case Ruby:
		switch word {
		case "end", "else", "elsif", "rescue", "ensure", "when", "in":
			return false
		}
	}
	return true
}

// continues reports whether a statement's text ends in the middle of an expression: an
// open bracket or a trailing operator or backslash carries it onto the next line.
func continues(stmt string) bool {
	s := strings.TrimRight(stmt, " \t\r\n")
	if s == "" {
		return false
	}
	switch s[len(s)-1] {
	case '\\', '(', '[', '{', ',', '=', '+', '-', '*', '/', '&', '|', '.', '?', ':':
		return true
	}
	return false
}

// stringAfter returns the multi-line string that is open after line: a Python triple
// quote, a JavaScript template, a Ruby or Perl here-document is not followed, which makes
// a line of it at the margin look like a statement; that costs only where a unit ends.
func stringAfter(lang Lang, line string, open byte) byte {
	switch lang {
	case Python:
		for _, q := range []string{`"""`, `'''`} {
			if open != 0 && open != q[0] {
				continue
			}
			if strings.Count(line, q)%2 == 1 {
				if open == 0 {
					open = q[0]
				} else {
					open = 0
				}
			}
		}
	case Node:
		if strings.Count(line, "`")%2 == 1 {
			if open == 0 {
				open = '`'
			} else {
				open = 0
			}
		}
	}
	return open
}

// declares reports whether a one-line top-level statement names something later code
// uses: an import, or a constant or variable set.
func declares(stmt string) bool {
	for _, w := range []string{"import ", "from ", "require", "use ", "const ", "let ", "var ", "my ", "our "} {
		if strings.HasPrefix(stmt, w) || w == "require" && strings.Contains(stmt, w) {
			return true
		}
	}
	eq := strings.IndexByte(stmt, '=')
	return eq > 0 && !strings.ContainsAny(stmt[:eq], "(\"'`") && (eq+1 >= len(stmt) || stmt[eq+1] != '=')
}

// withoutDocs blanks, in Perl and Ruby, the documentation the interpreter skips: POD
// blocks (a line =word where a statement may start, to =cut), Ruby's =begin … =end, and
// everything after a line __END__ (or Perl's __DATA__). Lines are kept, empty.
func withoutDocs(lang Lang, code string) string {
	if lang != Perl && lang != Ruby || !strings.Contains(code, "\n=") && !strings.HasPrefix(code, "=") && !strings.Contains(code, "__END__") && !strings.Contains(code, "__DATA__") {
		return code
	}
	var b strings.Builder
	inDoc := false
	stmtEnded := true // the code before the line ends a statement
	for line := range strings.Lines(code) {
		text := strings.TrimRight(line, "\r\n")
		switch {
		case inDoc:
			if lang == Perl && strings.HasPrefix(text, "=cut") || lang == Ruby && strings.HasPrefix(text, "=end") {
				inDoc = false
			}
			b.WriteByte('\n')
			continue
		case text == "__END__" || lang == Perl && text == "__DATA__":
			return b.String()
		case stmtEnded && len(text) > 1 && text[0] == '=' && isIdent(text[1]) && (lang == Perl || strings.HasPrefix(text, "=begin")):
			inDoc = !(lang == Perl && strings.HasPrefix(text, "=cut"))
			b.WriteByte('\n')
			continue
		}
		b.WriteString(line)
		if t := strings.TrimSpace(text); t != "" && !strings.HasPrefix(t, "#") {
			stmtEnded = strings.HasSuffix(t, ";") || strings.HasSuffix(t, "}") || lang == Ruby
		}
	}
	return b.String()
}
