package decode

import "strings"

// Echo returns what bash's builtin `echo ARGS...` prints, with the shell option xpg_echo
// off (bash's default). Leading words made only of a dash and the letters n, e and E are
// options, the rest are printed joined by single spaces: -n drops the final newline, -e
// turns on backslash escapes and -E turns them off again (the last one wins). Anything
// else, "--" and "-" included, is printed. The escapes are \a \b \e \E \f \n \r \t \v \\,
// \0NNN (up to three octal digits after the 0), \xHH, \uHHHH, \UHHHHHHHH and \c, which
// ends the output there, final newline included.
//
// Output beyond MaxOutput bytes is cut off. Like any argument word, each argument ends at
// a NUL byte.
func Echo(args []string) string {
	newline, escapes := true, false
	for len(args) > 0 && isEchoOption(args[0]) {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	var w buffer
	for i, arg := range args {
		if i > 0 {
			w.addByte(' ')
		}
		arg = cString(arg)
		if !escapes {
			w.add(arg)
			continue
		}
		for j := 0; j < len(arg); {
			if arg[j] != '\\' {
				w.addByte(arg[j])
				j++
				continue
			}
			var stop bool
			if j, stop = readEscape(&w, arg, j, echoEscapes); stop {
				return w.String()
			}
		}
		if w.full {
			break
		}
	}
	if newline {
		w.addByte('\n')
	}
	return w.String()
}

// isEchoOption reports whether bash's echo reads word as options.
func isEchoOption(word string) bool {
	return len(word) > 1 && word[0] == '-' && strings.Trim(word[1:], "neE") == ""
}
