package planted

import (
	"strings"
)

// jenkinsCode finds the shell steps of a Jenkinsfile (declarative or scripted Groovy):
// sh 'CMD', sh "CMD", sh with a triple-quoted string, sh(script: 'CMD', …) and
// sh label: 'x', script: 'CMD'. A Groovy expression interpolated into a double-quoted
// string ("${env.X}", "$x") becomes a variable whose value is unknown; \$ is the shell's
// own $. A step whose script is not a string literal (a variable, a method call) is
// opaque. The text is read once: the scan resumes after each step's literal, and a
// literal that never ends ends it.
func jenkinsCode(text string, x *extraction) {
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], "sh")
		if j < 0 {
			return
		}
		at := i + j
		i = at + 2
		if at > 0 && !strings.ContainsRune(" \t\r\n{;(", rune(text[at-1])) || i < len(text) && groovyIdent(text[i]) {
			continue // part of a name (bash, deploy.sh, shell)
		}
		rest := strings.TrimLeft(text[i:], " \t")
		parens := strings.HasPrefix(rest, "(")
		if parens {
			rest = strings.TrimLeft(rest[1:], " \t\r\n")
		}
		base := len(text) - len(rest)
		step := groovyStepScript(rest)
		switch {
		case step.unterminated:
			x.opaque("sh step", "a Jenkins sh step whose string never ends")
			return
		case step.ok:
			x.shell("sh step (Jenkins runs it)", step.script)
			i = base + step.end
		case step.named || parens || variableArg(rest) && !inComment(text, at):
			x.opaque("sh step", "a Jenkins sh step whose script is not written out")
		}
	}
}

// variableArg reports whether an sh step's argument is one name (sh cmd, sh env.SCRIPT),
// the end of the statement after it: a script held in a variable.
func variableArg(s string) bool {
	n := 0
	for n < len(s) && (groovyIdent(s[n]) || s[n] == '.' || s[n] == '$') {
		n++
	}
	if n == 0 || '0' <= s[0] && s[0] <= '9' {
		return false
	}
	rest := strings.TrimLeft(s[n:], " \t\r")
	return rest == "" || rest[0] == '\n' || rest[0] == ';' || rest[0] == '}'
}

// inComment reports whether the byte at of text is on a line comment or a block
// comment's line (//, /*, *).
func inComment(text string, at int) bool {
	line := strings.TrimLeft(text[strings.LastIndexByte(text[:at], '\n')+1:at], " \t")
	return strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "*")
}

// shStep is what groovyStepScript read of an sh step's arguments.
type shStep struct {
	script string
	end    int  // where the script's literal ends in the text read
	ok     bool // the script is a string literal
	// named says script: was there, so that a step was meant even when its value is not
	// a literal; unterminated that a literal began and never ended.
	named, unterminated bool
}

// maxNamedArgs bounds how far after sh a step's script: argument is looked for.
const maxNamedArgs = 400

// groovyStepScript reads an sh step's arguments: the first string literal, or the one
// after script:.
func groovyStepScript(s string) shStep {
	v, found, open := groovyLiteral(s)
	if open {
		return shStep{unterminated: true}
	}
	if found {
		if after := strings.TrimLeft(s[len(v.raw):], " \t"); !strings.HasPrefix(after, ":") {
			return shStep{script: v.text, end: len(v.raw), ok: true}
		}
	}
	// Named arguments: label: '…', script: '…', returnStdout: true.
	k := strings.Index(s[:min(len(s), maxNamedArgs)], "script:")
	if k < 0 {
		return shStep{}
	}
	value := strings.TrimLeft(s[k+len("script:"):], " \t\r\n")
	v, found, open = groovyLiteral(value)
	switch {
	case open:
		return shStep{unterminated: true}
	case !found:
		return shStep{named: true}
	}
	return shStep{script: v.text, end: len(s) - len(value) + len(v.raw), ok: true, named: true}
}

// groovyString is a string literal read from Groovy source: raw is the literal as
// written, text its value, with interpolations made shell variables.
type groovyString struct {
	raw, text string
}

// groovyLiteral reads the Groovy string literal at the start of s. open reports one that
// starts there and never ends (a one-quote string cut by the end of its line).
func groovyLiteral(s string) (lit groovyString, found, open bool) {
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if !strings.HasPrefix(s, q) {
			continue
		}
		var b strings.Builder
		interpolates := q[0] == '"'
		for i := len(q); i < len(s); i++ {
			c := s[i]
			switch {
			case strings.HasPrefix(s[i:], q):
				return groovyString{raw: s[:i+len(q)], text: b.String()}, true, false
			case len(q) == 1 && c == '\n':
				return groovyString{}, false, true // a one-line string cut by the line: no Groovy
			case c == '\\' && i+1 < len(s):
				i++
				if s[i] != '\n' { // a backslash at the end of a line continues the literal
					b.WriteByte(escaped(s[i]))
				}
			case interpolates && c == '$' && i+1 < len(s) && (s[i+1] == '{' || groovyIdentStart(s[i+1])):
				b.WriteString("${GROOVY_EXPRESSION}")
				if s[i+1] == '{' {
					end := strings.IndexByte(s[i:], '}')
					if end < 0 {
						return groovyString{}, false, true
					}
					i += end
					continue
				}
				for i+1 < len(s) && (groovyIdent(s[i+1]) || s[i+1] == '.') {
					i++
				}
			default:
				b.WriteByte(c)
			}
		}
		return groovyString{}, false, true
	}
	return groovyString{}, false, false
}

func groovyIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func groovyIdent(c byte) bool { return groovyIdentStart(c) || '0' <= c && c <= '9' }
