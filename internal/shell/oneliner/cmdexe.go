package oneliner

import (
	"strings"
)

// cmd.exe's command lines (cmd /c LINE) are read as the PowerShell that does the same:
// its built-in commands become the cmdlets the PowerShell reader knows (rd /s becomes
// Remove-Item -Recurse, type becomes Get-Content, set without arguments prints the
// environment), if and for run the command they hold, start and call run theirs, and
// any other command is a program, which the shell analysis judges. %VAR% and !VAR! are
// environment variables, whose values are known only at run time.

// maxCmdStatements bounds the statements of one command line that are read; the rest
// stands as one opaque statement.
const maxCmdStatements = 256

// maxCmdNest bounds the commands held in commands (if, for, start, call, else branches)
// that are read; deeper ones stand as code moat did not read.
const maxCmdNest = 8

// CmdToPowerShell returns the PowerShell code that does what the cmd.exe command line
// does, for the PowerShell reader.
func CmdToPowerShell(line string) string {
	var b strings.Builder
	for i, st := range cmdStatements(line) {
		if i == maxCmdStatements {
			b.WriteString("\nInvoke-Expression $env:MOAT_UNREAD_CMD")
			break
		}
		ps := cmdStatement(cmdWords(st.text), 0)
		if ps == "" {
			continue
		}
		if b.Len() > 0 {
			if st.piped {
				b.WriteString(" | ")
			} else {
				b.WriteByte('\n')
			}
		}
		b.WriteString(ps)
	}
	return b.String()
}

// cmdStmt is a statement of a cmd.exe line, and whether the one before pipes into it.
type cmdStmt struct {
	text  string
	piped bool
}

// cmdStatements splits a command line at &, &&, || and |, outside double quotes; ^
// escapes the character after it. A pipe's stages stay a pipeline, so that what flows
// through it is followed (curl … | sh). Parentheses group commands (if's and for's
// bodies): cmdStatement reads through them.
func cmdStatements(line string) []cmdStmt {
	var sts []cmdStmt
	var b strings.Builder
	quoted, piped := false, false
	flush := func(next bool) {
		if s := strings.TrimSpace(b.String()); s != "" {
			sts = append(sts, cmdStmt{text: s, piped: piped})
		}
		piped = next
		b.Reset()
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '"':
			quoted = !quoted
			b.WriteByte(c)
		case quoted:
			b.WriteByte(c)
		case c == '^' && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		case c == '|' && i+1 < len(line) && line[i+1] == '|', c == '&' && i+1 < len(line) && line[i+1] == '&':
			flush(false)
			i++
		case c == '|':
			flush(true)
		case c == '&' || c == '\n' || c == '\r':
			flush(false)
		default:
			b.WriteByte(c)
		}
	}
	flush(false)
	return sts
}

// cmdWord is a word of a statement: its text without quotes, whether it was quoted, and
// a redirection it is (">", ">>", "2>", "<").
type cmdWord struct {
	text     string
	quoted   bool
	redirect string
}

// cmdWords splits a statement into words at spaces and tabs outside double quotes, with
// redirections apart (>file, 2>nul, >>log).
func cmdWords(st string) []cmdWord {
	var words []cmdWord
	var b strings.Builder
	quoted, wasQuoted := false, false
	redirect := ""
	flush := func() {
		if b.Len() > 0 || wasQuoted {
			words = append(words, cmdWord{text: b.String(), quoted: wasQuoted, redirect: redirect})
			redirect = ""
		}
		b.Reset()
		wasQuoted = false
	}
	for i := 0; i < len(st); i++ {
		c := st[i]
		switch {
		case c == '"':
			quoted, wasQuoted = !quoted, true
		case quoted:
			b.WriteByte(c)
		case c == ' ' || c == '\t':
			flush()
		case c == '>' || c == '<':
			r := string(c)
			if b.Len() == 1 && (b.String() == "1" || b.String() == "2") {
				r = b.String() + r
				b.Reset()
			}
			flush()
			if c == '>' && i+1 < len(st) && st[i+1] == '>' {
				r += ">"
				i++
			}
			if i+1 < len(st) && st[i+1] == '&' {
				i += 2 // 2>&1: a stream joined to another, no file
				continue
			}
			redirect = r
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return words
}

// psQuote writes a word as a PowerShell string: in single quotes, unless it holds cmd.exe
// variables, which become PowerShell's environment variables in a double-quoted string.
func psQuote(w string) string {
	// The user's profile is the home directory; Windows separates the names of a path
	// with backslashes.
	for _, home := range []string{"%USERPROFILE%", "%HOMEDRIVE%%HOMEPATH%", "%HOMEPATH%", "%HOME%"} {
		if len(w) >= len(home) && strings.EqualFold(w[:len(home)], home) {
			w = "~" + strings.ReplaceAll(w[len(home):], "\\", "/")
			break
		}
	}
	if strings.ContainsAny(w, "%!") {
		var b strings.Builder
		b.WriteByte('"')
		for i := 0; i < len(w); i++ {
			c := w[i]
			if c == '%' || c == '!' {
				if end := strings.IndexByte(w[i+1:], c); end > 0 && cmdVarName(w[i+1:i+1+end]) {
					b.WriteString("$env:" + strings.ReplaceAll(w[i+1:i+1+end], " ", "_"))
					i += end + 1
					continue
				}
				if c == '%' && i+1 < len(w) && (w[i+1] == '%' || isLetter(w[i+1])) {
					// A for loop's variable (%i, %%i): its values are computed.
					b.WriteString("$env:FOR_VARIABLE")
					i++
					if w[i] == '%' && i+1 < len(w) {
						i++
					}
					continue
				}
			}
			if c == '"' || c == '`' || c == '$' {
				b.WriteByte('`')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
		return b.String()
	}
	return "'" + strings.ReplaceAll(w, "'", "''") + "'"
}

func cmdVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '(' || c == ')' || c == ':' || c == '~' || c == ',' || c == '-' || c == '=') {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// cmdStatement translates one statement's words; depth bounds the commands that hold
// commands (if, for, start, call).
func cmdStatement(words []cmdWord, depth int) string {
	words = ungroup(words)
	for i, w := range words {
		if i > 0 && !w.quoted && w.redirect == "" && strings.EqualFold(w.text, "else") {
			// if … (A) else (B): each branch may run.
			if depth >= maxCmdNest {
				return "Invoke-Expression $env:MOAT_UNREAD_CMD"
			}
			return strings.Trim(cmdStatement(words[:i], depth+1)+"; "+cmdStatement(words[i+1:], depth+1), "; ")
		}
	}
	var args, redirects []string
	var flags []string
	name := ""
	for _, w := range words {
		switch {
		case w.redirect != "":
			target := w.text
			if strings.EqualFold(target, "nul") {
				target = "$null"
			} else {
				target = psQuote(target)
			}
			redirects = append(redirects, w.redirect+" "+target)
		case name == "" && !w.quoted:
			name = strings.ToLower(strings.TrimPrefix(w.text, "@"))
			if strings.HasPrefix(name, "rem") && (len(name) == 3 || name[3] == '.') || strings.HasPrefix(name, "::") {
				return ""
			}
			// dir/s, cd.., echo.: the command's name ends where a switch or a dot begins.
			if i := strings.IndexAny(name, "/."); i > 0 && cmdBuiltin(name[:i]) {
				rest := name[i:]
				name = name[:i]
				// del/s/q: each switch on its own.
				for sw := range strings.SplitSeq(strings.TrimPrefix(rest, "/"), "/") {
					if sw != "" && rest[0] == '/' {
						flags = append(flags, "/"+sw)
						args = append(args, "/"+sw)
					}
				}
			}
			name = strings.TrimSuffix(name, ".exe")
		case name == "" && w.quoted:
			name = w.text // a program named by a quoted path
		case !w.quoted && len(w.text) >= 2 && w.text[0] == '/':
			flags = append(flags, strings.ToLower(w.text))
			args = append(args, w.text)
		default:
			args = append(args, w.text)
		}
	}
	if name == "" {
		return ""
	}
	ops := operands(words, name)
	tail := ""
	if len(redirects) > 0 {
		tail = " " + strings.Join(redirects, " ")
	}
	has := func(f string) bool {
		for _, x := range flags {
			if x == f || strings.HasPrefix(x, f+":") {
				return true
			}
		}
		return false
	}
	each := func(cmdlet string, extra string) string {
		var out []string
		for _, p := range ops {
			out = append(out, cmdlet+extra+" -Path "+psQuote(p)+tail)
		}
		if len(out) == 0 {
			return cmdlet + extra + tail
		}
		return strings.Join(out, "; ")
	}
	switch name {
	case "rd", "rmdir":
		extra := ""
		if has("/s") {
			extra = " -Recurse"
		}
		return each("Remove-Item -Force", extra)
	case "del", "erase":
		extra := ""
		if has("/s") {
			extra = " -Recurse"
		}
		return each("Remove-Item -Force", extra)
	case "type", "more":
		return each("Get-Content", "")
	case "dir", "tree":
		return each("Get-ChildItem", "")
	case "md", "mkdir":
		return each("New-Item -ItemType Directory", "")
	case "cd", "chdir", "pushd":
		if len(ops) == 0 {
			return "Get-Location"
		}
		return "Set-Location -Path " + psQuote(ops[0])
	case "popd":
		return "Pop-Location"
	case "copy", "xcopy":
		if len(ops) < 2 {
			return each("Get-Content", "") // copy FILE: onto itself, or to the console
		}
		extra := ""
		if has("/s") || has("/e") {
			extra = " -Recurse"
		}
		var out []string
		for _, src := range ops[:len(ops)-1] {
			for _, s := range strings.Split(src, "+") {
				if s != "" {
					out = append(out, "Copy-Item"+extra+" -Path "+psQuote(s)+" -Destination "+psQuote(ops[len(ops)-1]))
				}
			}
		}
		return strings.Join(out, "; ")
	case "robocopy":
		if len(ops) < 2 {
			return "Write-Output 'robocopy'"
		}
		src, dst := psQuote(ops[0]), psQuote(ops[1])
		switch {
		case has("/mov") || has("/move"):
			return "Move-Item -Path " + src + " -Destination " + dst
		case has("/mir") || has("/purge"):
			// A mirror deletes what the destination holds that the source does not.
			return "Remove-Item -Recurse -Force -Path " + dst + "; Copy-Item -Recurse -Path " + src + " -Destination " + dst
		}
		return "Copy-Item -Recurse -Path " + src + " -Destination " + dst
	case "move":
		if len(ops) < 2 {
			return ""
		}
		return "Move-Item -Path " + psQuote(ops[0]) + " -Destination " + psQuote(ops[len(ops)-1])
	case "ren", "rename":
		if len(ops) < 2 {
			return ""
		}
		return "Rename-Item -Path " + psQuote(ops[0]) + " -NewName " + psQuote(ops[1])
	case "echo":
		return "Write-Output " + psQuote(strings.Join(args, " ")) + tail
	case "set":
		rest := strings.TrimSpace(strings.Join(args, " "))
		switch {
		case rest == "" || !strings.Contains(rest, "=") && !has("/a") && !has("/p"):
			// set, set PREFIX: prints the environment's variables.
			return "Get-ChildItem env:" + tail
		case has("/a") || has("/p"):
			return ""
		}
		k, v, _ := strings.Cut(strings.Trim(rest, "\""), "=")
		return "$env:" + strings.ReplaceAll(strings.TrimSpace(k), " ", "_") + " = " + psQuote(v)
	case "format":
		if len(ops) > 0 {
			return "Format-Volume -DriveLetter " + psQuote(strings.TrimSuffix(ops[0], ":"))
		}
	case "cls", "ver", "title", "color", "exit", "pause", "chcp", "vol", "path", "prompt", "setlocal", "endlocal",
		"verify", "time", "date", "goto", "shift", "break", "where", "whoami", "hostname", "ipconfig", "findstr", "find",
		"sort", "fc", "comp", "clip", "tasklist", "systeminfo", "timeout", "choice", "ping":
		if name == "findstr" || name == "find" || name == "sort" || name == "fc" || name == "comp" {
			return each("Get-Content", "")
		}
		return "Write-Output " + psQuote(name)
	case "start", "call", "if", "for":
		if depth >= maxCmdNest {
			return "Invoke-Expression $env:MOAT_UNREAD_CMD"
		}
		inner := innerCommand(name, words)
		if inner == nil {
			return ""
		}
		return cmdStatement(inner, depth+1)
	}
	// A program: its words as they are. A batch file named without a path is looked for
	// in the current directory first: it is ./NAME.
	if (strings.HasSuffix(name, ".bat") || strings.HasSuffix(name, ".cmd")) && !strings.ContainsAny(name, "/\\:") {
		name = "./" + name
	}
	parts := []string{psQuote(name)}
	if !strings.ContainsAny(name, " '\"%!") {
		parts[0] = name
	}
	for _, a := range args {
		parts = append(parts, psQuote(a))
	}
	if parts[0] != name {
		parts[0] = "& " + parts[0]
	}
	return strings.Join(parts, " ") + tail
}

// ungroup reads through the parentheses that group commands: ( and ) at a word's ends
// are no part of it.
func ungroup(words []cmdWord) []cmdWord {
	out := words[:0:0]
	for _, w := range words {
		if !w.quoted && w.redirect == "" {
			w.text = strings.TrimRight(strings.TrimLeft(w.text, "("), ")")
			if w.text == "" {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

// cmdBuiltin reports the built-in commands whose name a switch or a dot may follow with no
// space (dir/s, cd.., echo.).
func cmdBuiltin(name string) bool {
	switch name {
	case "dir", "cd", "chdir", "echo", "md", "mkdir", "rd", "rmdir", "del", "erase", "type", "copy", "xcopy", "move", "cls":
		return true
	}
	return false
}

// operands are a statement's words after its name that are neither switches nor
// redirections.
func operands(words []cmdWord, name string) []string {
	var ops []string
	seenName := false
	for _, w := range words {
		switch {
		case w.redirect != "":
		case !seenName:
			seenName = true
		case !w.quoted && len(w.text) >= 2 && w.text[0] == '/':
		default:
			ops = append(ops, w.text)
		}
	}
	return ops
}

// innerCommand returns the command a statement runs in turn: start's after its switches
// and title, call's after it (a label is no command), if's after its condition, for's
// after do. nil when there is none.
func innerCommand(name string, words []cmdWord) []cmdWord {
	rest := words[1:]
	skipSwitches := func() {
		for len(rest) > 0 && !rest[0].quoted && strings.HasPrefix(rest[0].text, "/") {
			sw := strings.ToLower(rest[0].text)
			rest = rest[1:]
			if sw == "/d" && len(rest) > 0 {
				rest = rest[1:] // start /d DIR
			}
		}
	}
	switch name {
	case "start":
		skipSwitches()
		if len(rest) > 1 && rest[0].quoted {
			rest = rest[1:] // the window's title
		}
		skipSwitches()
	case "call":
		if len(rest) > 0 && strings.HasPrefix(rest[0].text, ":") {
			return nil
		}
	case "if":
		for len(rest) > 0 {
			w := strings.ToLower(rest[0].text)
			switch {
			case w == "/i" || w == "not":
				rest = rest[1:]
			case w == "exist" || w == "defined" || w == "errorlevel" || w == "cmdextversion":
				if len(rest) < 2 {
					return nil
				}
				rest = rest[2:]
				return rest
			default:
				// "a"=="b" or a op b: the condition is three words, or one with ==.
				if strings.Contains(rest[0].text, "==") {
					return rest[1:]
				}
				if len(rest) >= 3 {
					return rest[3:]
				}
				return nil
			}
		}
		return nil
	case "for":
		for i, w := range rest {
			if !w.quoted && strings.EqualFold(w.text, "do") {
				return rest[i+1:]
			}
		}
		return nil
	}
	if len(rest) == 0 {
		return nil
	}
	return rest
}
