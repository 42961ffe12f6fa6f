package planted

import (
	"strings"
)

// cmakeCode finds the commands a CMakeLists.txt (or a *.cmake file it includes) runs:
// execute_process(COMMAND …), which runs whenever cmake configures the project, and
// add_custom_command / add_custom_target (COMMAND …), which run when the project builds.
// Each COMMAND's words are one command line, up to the next keyword of the call. A
// variable the file sets (set, find_program) is expanded; CMake's own variables for
// programs and directories stand for what they name; a generator expression naming a
// target of the project is the program the project builds. A program named by any other
// variable is a command moat cannot read.
func cmakeCode(text string, x *extraction) {
	vars := map[string]string{}
	calls := cmakeCalls(text)
	for _, c := range calls {
		switch c.name {
		case "set":
			if len(c.args) >= 2 {
				vars[c.args[0]] = strings.Join(c.args[1:], ";")
			}
		case "find_program":
			// find_program(VAR name1 [name2…] [NAMES …] …): the first name stands for
			// the program found, less a version (clang++-HEAD, g++-13, gcov-latest are
			// clang++, g++, gcov).
			if len(c.args) >= 2 {
				name := c.args[1]
				if name == "NAMES" && len(c.args) >= 3 {
					name = c.args[2]
				}
				vars[c.args[0]] = unversioned(name)
			}
		}
	}
	for _, c := range calls {
		switch c.name {
		case "execute_process", "add_custom_command", "add_custom_target":
		default:
			continue
		}
		where := c.name + " (cmake runs it when it configures the project)"
		if c.name != "execute_process" {
			where = c.name + " (the build runs it)"
		}
		for i := 0; i < len(c.args); i++ {
			if c.args[i] != "COMMAND" {
				continue
			}
			var words []string
			for i++; i < len(c.args) && (c.quoted[i] || !cmakeKeyword(c.args[i])); i++ {
				// execute_process runs its words with no shell: each is one argument.
				word := c.quoted[i] || c.name == "execute_process"
				words = append(words, cmakeShellWord(cmakeExpand(c.args[i], vars), word))
			}
			i--
			if len(words) == 0 {
				continue
			}
			x.shell(where, strings.Join(words, " "))
		}
	}
}

// cmakeCall is one command invocation of a CMake file, with its arguments unquoted, and
// for each whether it was written quoted ("…" or [[…]]): one that was not reaches the
// build's shell as written (a \; in it a command separator there).
type cmakeCall struct {
	name   string
	args   []string
	quoted []bool
}

// maxCMakeCalls bounds the calls read from one file.
const maxCMakeCalls = 4096

// cmakeCalls splits a CMake file into its command invocations: NAME(ARGS…), arguments
// separated by blanks, quoted ("…") or bracketed ([[…]]), comments (#…) skipped.
func cmakeCalls(text string) []cmakeCall {
	var calls []cmakeCall
	i := 0
	for i < len(text) && len(calls) < maxCMakeCalls {
		switch c := text[i]; {
		case c == '#':
			i = cmakeSkipComment(text, i)
			continue
		case isCMakeIdent(c):
			j := i
			for j < len(text) && isCMakeIdent(text[j]) {
				j++
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && text[k] == '(' {
				args, quoted, end := cmakeArgs(text, k+1)
				calls = append(calls, cmakeCall{name: strings.ToLower(text[i:j]), args: args, quoted: quoted})
				i = end
				continue
			}
			i = j
			continue
		}
		i++
	}
	return calls
}

// cmakeArgs reads the arguments of a call from text[i:], after its opening parenthesis,
// and returns them, whether each was quoted, and the offset past the closing one.
func cmakeArgs(text string, i int) ([]string, []bool, int) {
	var args []string
	var quoted []bool
	depth := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ')':
			if depth == 0 {
				return args, quoted, i + 1
			}
			depth--
			i++
		case c == '(':
			depth++
			i++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			i = cmakeSkipComment(text, i)
		case c == '"':
			arg, j := cmakeUnescape(text, i+1, "\"")
			args, quoted = append(args, arg), append(quoted, true)
			i = j + 1
		case c == '[' && strings.HasPrefix(text[i:], "[["):
			end := strings.Index(text[i+2:], "]]")
			if end < 0 {
				return append(args, text[i+2:]), append(quoted, true), len(text)
			}
			args, quoted = append(args, text[i+2:i+2+end]), append(quoted, true)
			i += end + 4
		default:
			// An unquoted argument, whose escapes CMake takes off too: \; is a semicolon
			// (COMMAND for f in x\; do …).
			arg, j := cmakeUnescape(text, i, " \t\r\n()#\"")
			args, quoted = append(args, arg), append(quoted, false)
			i = j
		}
	}
	return args, quoted, len(text)
}

// unversioned is a program's name without a version suffix: -HEAD, -latest, -13, -3.12.
func unversioned(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return name
	}
	switch v := name[i+1:]; {
	case v == "HEAD" || v == "latest" || v != "" && strings.Trim(v, "0123456789.") == "":
		return name[:i]
	}
	return name
}

// cmakeUnescape reads an argument's text from i up to the first of the bytes in stop,
// taking its escapes off (\t \n \r what they say, \X the character X), and returns it
// with the offset of that byte.
func cmakeUnescape(text string, i int, stop string) (string, int) {
	var b strings.Builder
	for i < len(text) && strings.IndexByte(stop, text[i]) < 0 {
		if text[i] == '\\' && i+1 < len(text) {
			b.WriteByte(cmakeEscape(text[i+1]))
			i += 2
			continue
		}
		b.WriteByte(text[i])
		i++
	}
	return b.String(), i
}

// cmakeEscape is the character an escape sequence \c stands for.
func cmakeEscape(c byte) byte {
	switch c {
	case 't':
		return '\t'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	}
	return c
}

func cmakeSkipComment(text string, i int) int {
	if strings.HasPrefix(text[i:], "#[[") {
		if end := strings.Index(text[i:], "]]"); end >= 0 {
			return i + end + 2
		}
		return len(text)
	}
	if end := strings.IndexByte(text[i:], '\n'); end >= 0 {
		return i + end + 1
	}
	return len(text)
}

func isCMakeIdent(c byte) bool {
	return c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// cmakeKeyword reports whether an argument is one of the keywords that end a COMMAND's
// words in execute_process, add_custom_command and add_custom_target.
func cmakeKeyword(a string) bool {
	switch a {
	case "COMMAND", "WORKING_DIRECTORY", "TIMEOUT", "RESULT_VARIABLE", "RESULTS_VARIABLE",
		"OUTPUT_VARIABLE", "ERROR_VARIABLE", "INPUT_FILE", "OUTPUT_FILE", "ERROR_FILE",
		"OUTPUT_QUIET", "ERROR_QUIET", "COMMAND_ECHO", "OUTPUT_STRIP_TRAILING_WHITESPACE",
		"ERROR_STRIP_TRAILING_WHITESPACE", "ENCODING", "ECHO_OUTPUT_VARIABLE",
		"ECHO_ERROR_VARIABLE", "COMMAND_ERROR_IS_FATAL", "OUTPUT", "DEPENDS", "BYPRODUCTS",
		"MAIN_DEPENDENCY", "IMPLICIT_DEPENDS", "COMMENT", "DEPFILE", "JOB_POOL", "JOB_SERVER_AWARE",
		"VERBATIM", "APPEND", "USES_TERMINAL", "COMMAND_EXPAND_LISTS", "DEPENDS_EXPLICIT_ONLY",
		"CODEGEN", "SOURCES", "ALL", "TARGET", "PRE_BUILD", "PRE_LINK", "POST_BUILD":
		return true
	}
	return false
}

// cmakeShellWord is a word cmakeExpand gave as the build's shell sees it: a quoted one
// as one shell word, an unquoted one as written; each value moat does not know (a
// variable left as $NAME, a generator expression $<…>) a shell variable in it, whose
// value is unknown.
func cmakeShellWord(w string, quoted bool) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-") == "" {
		return w
	}
	var b strings.Builder
	if quoted {
		b.WriteByte('"')
	}
	for i := 0; i < len(w); {
		switch {
		case strings.HasPrefix(w[i:], "$<"):
			// A generator expression, nested ones included, up to its closing >.
			depth, j := 0, i
			for ; j < len(w); j++ {
				if strings.HasPrefix(w[j:], "$<") {
					depth++
					j++
				} else if w[j] == '>' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			b.WriteString("${CMAKE_GENEX}")
			i = j + 1
		case w[i] == '$' && i+1 < len(w) && isCMakeIdent(w[i+1]):
			j := i + 1
			for j < len(w) && isCMakeIdent(w[j]) {
				j++
			}
			b.WriteString("${" + w[i+1:j] + "}")
			i = j
		default:
			if quoted && strings.IndexByte("\\\"$`", w[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(w[i])
			i++
		}
	}
	if quoted {
		b.WriteByte('"')
	}
	return b.String()
}

// cmakeExpand replaces the variables of a word: the file's own, CMake's for programs and
// directories, and $<TARGET_FILE:t> (a program the project builds). Another variable is
// left as a shell variable of the same name, unknown.
func cmakeExpand(w string, vars map[string]string) string {
	for n := 0; n < maxExpansion && strings.Contains(w, "${"); n++ {
		i := strings.Index(w, "${")
		j := strings.IndexByte(w[i:], '}')
		if j < 0 {
			break
		}
		name := w[i+2 : i+j]
		val, ok := vars[name]
		if !ok {
			val, ok = cmakeBuiltin(name)
		}
		if !ok {
			val = "$" + strings.Map(func(r rune) rune {
				if r == '_' || 'a' <= r|0x20 && r|0x20 <= 'z' || '0' <= r && r <= '9' {
					return r
				}
				return '_'
			}, name)
		}
		w = w[:i] + val + w[i+j+1:]
	}
	if strings.HasPrefix(w, "$<TARGET_FILE:") && strings.HasSuffix(w, ">") {
		return "./" + strings.TrimSuffix(strings.TrimPrefix(w, "$<TARGET_FILE:"), ">")
	}
	return w
}

// cmakeBuiltin is what CMake's own variables for programs and directories stand for.
func cmakeBuiltin(name string) (string, bool) {
	switch name {
	case "CMAKE_COMMAND":
		return "cmake", true
	case "CMAKE_CTEST_COMMAND":
		return "ctest", true
	case "CMAKE_CPACK_COMMAND":
		return "cpack", true
	case "CMAKE_MAKE_PROGRAM":
		return "make", true
	case "CMAKE_C_COMPILER":
		return "cc", true
	case "CMAKE_CXX_COMPILER":
		return "c++", true
	case "Python_EXECUTABLE", "Python3_EXECUTABLE", "PYTHON_EXECUTABLE":
		return "python3", true
	case "GIT_EXECUTABLE":
		return "git", true
	case "CMAKE_SOURCE_DIR", "CMAKE_CURRENT_SOURCE_DIR", "PROJECT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR":
		return ".", true
	case "CMAKE_BINARY_DIR", "CMAKE_CURRENT_BINARY_DIR", "PROJECT_BINARY_DIR":
		return "build", true
	}
	return "", false
}
