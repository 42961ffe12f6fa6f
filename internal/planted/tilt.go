package planted

import (
	"regexp"
	"strings"
	"sync"
)

// tiltCalls finds the Tiltfile calls that run commands on this machine.
var tiltCalls = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(local|local_resource|custom_build)\s*\(`)
})

// tiltCode: a Tiltfile is Starlark that tilt runs at every `tilt up`. local(CMD) runs CMD
// then and there; local_resource's cmd and serve_cmd run as the resource updates and
// serves, custom_build's command as the image builds. A string is a command line for
// the shell, a list the words of one command; anything computed is a command moat cannot
// read.
func tiltCode(text string, x *extraction) {
	for _, m := range tiltCalls().FindAllStringSubmatchIndex(text, -1) {
		fn, at := text[m[2]:m[3]], m[1]
		if m[2] > 0 && text[m[2]-1] == '.' {
			continue // a method of another object: os.local is not tilt's
		}
		if fn == "local" {
			i := skipBlanks(text, at)
			if v, found := keywordArg(text[i:min(len(text), i+16)], "command"); found {
				i += v // local(command='…')
			}
			tiltCommand(text, i, "local() (tilt runs it at every tilt up)", x)
			continue
		}
		end, ok := pythonCallEnd(text, at)
		if !ok {
			x.opaque(fn+"()", "a call moat cannot read to its end: "+snippet(text, m[0]))
			continue
		}
		for _, kw := range []string{"cmd", "serve_cmd", "command"} {
			if v, found := keywordArg(text[at:end], kw); found {
				tiltCommand(text[at:end], v, fn+" "+kw+" (tilt runs it)", x)
			}
		}
	}
}

// tiltCommand reads the command at i: a string literal (a shell line), or a list of
// string literals (the words of one command).
func tiltCommand(text string, i int, where string, x *extraction) {
	if s, _, ok := pythonString(text, i); ok {
		x.shell(where, s)
		return
	}
	if i < len(text) && text[i] == '[' {
		var words []string
		j := skipBlanks(text, i+1)
		for j < len(text) && text[j] != ']' {
			w, end, ok := pythonString(text, j)
			if !ok {
				x.opaque(where, "a command with a word computed at run time: "+snippet(text, i))
				return
			}
			words = append(words, shellQuote(w))
			j = skipBlanks(text, end)
			if j < len(text) && text[j] == ',' {
				j = skipBlanks(text, j+1)
			}
		}
		if j < len(text) {
			x.shell(where, strings.Join(words, " "))
			return
		}
	}
	x.opaque(where, "a command computed at run time: "+snippet(text, i))
}

// pythonCallEnd returns the offset of the closing parenthesis of a call whose arguments
// start at i.
func pythonCallEnd(text string, i int) (int, bool) {
	for {
		i = skipBlanks(text, i)
		if i >= len(text) {
			return 0, false
		}
		if text[i] == ')' {
			return i, true
		}
		end, ok := pythonArgEnd(text, i)
		if !ok || end <= i {
			return 0, false
		}
		i = end
		if i < len(text) && text[i] == ',' {
			i++
		}
	}
}

// keywordArg returns the offset in args of the value of the keyword argument name=.
func keywordArg(args, name string) (int, bool) {
	for i := 0; ; {
		k := strings.Index(args[i:], name)
		if k < 0 {
			return 0, false
		}
		k += i
		j := skipBlanks(args, k+len(name))
		if (k == 0 || !isIdentByte(args[k-1])) && j < len(args) && args[j] == '=' && (j+1 >= len(args) || args[j+1] != '=') {
			return skipBlanks(args, j+1), true
		}
		i = k + len(name)
	}
}

func skipBlanks(text string, i int) int {
	for i < len(text) && strings.IndexByte(" \t\r\n", text[i]) >= 0 {
		i++
	}
	return i
}
