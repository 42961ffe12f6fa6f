package planted

import (
	"strings"

	"github.com/moatdev/moat/internal/shell/oneliner"
)

// bazelrcCode finds the programs a .bazelrc makes Bazel run: --workspace_status_command
// on every build that stamps, --run_under before every test and bazel run, and
// --credential_helper whenever Bazel fetches. Each line is a command name (build, test,
// common, build:CONFIG…) and options, written as shell words; an import names another rc
// file, which is judged when it is written.
func bazelrcCode(text string, x *extraction) {
	for line := range strings.Lines(text) {
		words, ok := bazelrcWords(line)
		if !ok {
			x.opaque(x.kind, "a line Bazel reads that moat cannot split")
			continue
		}
		if len(words) < 2 {
			continue
		}
		for i := 1; i < len(words); i++ {
			name, value, hasValue := strings.Cut(words[i], "=")
			switch name {
			case "--workspace_status_command", "--run_under", "--credential_helper":
			case "--host_jvm_args", "--jvmopt", "--host_jvmopt", "--test_jvmopt":
				// JVM options of Bazel's server or of the JVMs it starts: an agent loaded
				// into them, as in a Gradle build's options (jvmOptionsCode).
				if !hasValue && i+1 < len(words) {
					i++
					value = words[i]
				}
				jvmOptionsCode(value, x)
				continue
			default:
				continue
			}
			if !hasValue {
				if i+1 >= len(words) {
					continue
				}
				i++
				value = words[i]
			}
			if name == "--credential_helper" {
				// [PATTERN=]PATH: the helper for the hosts PATTERN matches.
				if _, helper, ok := strings.Cut(value, "="); ok {
					value = helper
				}
			}
			if name == "--run_under" {
				// A label (//tools:wrapper) is a target the project builds.
				value = strings.TrimPrefix(value, "@")
				if strings.HasPrefix(value, "//") || strings.HasPrefix(value, ":") {
					continue
				}
			}
			x.shell(words[0]+" "+name+" (bazel runs it)", value)
		}
	}
}

// bazelrcWords splits an rc line as Bazel does: blank-separated words, quoted with ' or
// ", a backslash escaping the next character; # starts a comment.
func bazelrcWords(line string) ([]string, bool) {
	var words []string
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && quote != '\'' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '#' && !inWord:
			return words, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

// hgrcCode finds the commands Mercurial runs from its configuration: [hooks] on the
// events they name (a shell command, or python:MODULE or python:FILE:FUNCTION, Python
// moat does not read), shell aliases ([alias] NAME = !COMMAND), the ssh, editor, merge
// and pager programs, and [extensions] loaded from a file (Python run on every hg
// command; a bare name is an extension Mercurial or Python already has).
func hgrcCode(text string, x *extraction) {
	section := ""
	iniValues(text, func(sec string) { section = sec }, func(key, value string) {
		where := "[" + section + "] " + key
		switch {
		case section == "hooks":
			if strings.HasPrefix(value, "python:") {
				x.opaque(where, "a Python hook moat does not read")
				return
			}
			x.shell(where+" (hg runs it)", value)
		case section == "alias":
			if cmd, ok := strings.CutPrefix(value, "!"); ok {
				x.shell(where+" (hg runs it)", cmd)
			}
		case section == "ui" && (key == "ssh" || key == "editor" || key == "merge"),
			section == "pager" && key == "pager",
			section == "merge-tools" && strings.HasSuffix(key, ".executable"):
			x.shell(where+" (hg runs it)", value)
		case section == "extensions":
			if value != "" && !strings.HasPrefix(value, "!") {
				x.opaque(where, "an extension loaded from "+value+", Python moat does not read")
			}
		}
	})
}

// iniValues calls value for each key = value of an INI file (Mercurial's and git's
// dialect: ; and # comments, a value continued on indented lines) and section at each
// [section] header.
func iniValues(text string, section func(string), value func(key, value string)) {
	key, val := "", ""
	flush := func() {
		if key != "" {
			value(key, strings.TrimSpace(val))
		}
		key, val = "", ""
	}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || trimmed[0] == '#' || trimmed[0] == ';':
			continue
		case line[0] == ' ' || line[0] == '\t':
			if key != "" {
				val += "\n" + trimmed
			}
		case trimmed[0] == '[':
			flush()
			section(strings.TrimSpace(strings.Trim(trimmed, "[]")))
		default:
			flush()
			k, v, ok := strings.Cut(trimmed, "=")
			if ok {
				key, val = strings.TrimSpace(k), strings.TrimSpace(v)
			}
		}
	}
	flush()
}

// gdbinitCode finds what a debugger's startup file runs besides debugger commands: gdb's
// `shell CMD` and `!CMD`, `python CODE` and python … end blocks; lldb's `platform shell
// CMD` and `script CODE`. A file it sources or imports is code moat has not read.
func gdbinitCode(text string, x *extraction) {
	var block *strings.Builder
	documenting := false
	for line := range strings.Lines(text) {
		t := strings.TrimSpace(line)
		if documenting {
			// document NAME … end: the help text of a command, not commands.
			documenting = t != "end"
			continue
		}
		if block != nil {
			if t == "end" {
				x.interp(oneliner.Python, "python block", block.String())
				block = nil
			} else {
				block.WriteString(line)
			}
			continue
		}
		word, rest, _ := strings.Cut(t, " ")
		rest = strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(t, "!"):
			x.shell("shell command", t[1:])
		case word == "shell":
			x.shell("shell command", rest)
		case word == "platform" && strings.HasPrefix(rest, "shell "):
			x.shell("shell command", strings.TrimPrefix(rest, "shell "))
		case (word == "python" || word == "python-interactive" || word == "pi") && rest == "":
			block = &strings.Builder{}
		case word == "python" || word == "script":
			x.interp(oneliner.Python, word+" command", rest)
		case word == "document":
			documenting = true
		case word == "source" || word == "command" && strings.HasPrefix(rest, "script import"):
			// A file of the project's is the project's code; another is code moat has not
			// read: judged as running it.
			file := strings.TrimSpace(strings.TrimPrefix(rest, "script import"))
			if strings.HasSuffix(file, ".py") || word == "command" {
				x.shell(word+" (the debugger loads it)", "python3 "+shellQuote(file))
			} else {
				x.shell(word+" (the debugger loads it)", "sh "+shellQuote(file))
			}
		case word == "set" && strings.HasPrefix(rest, "auto-load safe-path") && !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(rest, "auto-load safe-path")), "$"),
			word == "add-auto-load-safe-path",
			word == "settings" && strings.Contains(rest, "load-cwd-lldbinit true"):
			x.opaque(word, "lets the debugger run the startup file of any directory it starts in ("+t+")")
		}
	}
	if block != nil {
		x.interp(oneliner.Python, "python block", block.String())
	}
}

// startupCall is a call found in an R or Julia startup file: the function's name and,
// when its first argument is one string (or, in Julia, a command literal), that string.
type startupCall struct {
	name, arg string
	literal   bool
}

// startupCalls finds the calls of R or Julia code, NAME(…) outside strings and
// comments, and, in Julia (commands), its `…` command literals (name "`"); in R a
// backtick quotes a name.
func startupCalls(text string, commands bool) []startupCall {
	var calls []startupCall
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			s, end := startupString(text, i)
			if c == '`' && commands {
				calls = append(calls, startupCall{name: "`", arg: s, literal: true})
			}
			i = end
		case isCMakeIdent(c) || c == '.':
			j := i
			for j < len(text) && (isCMakeIdent(text[j]) || text[j] == '.' || text[j] == '!') {
				j++
			}
			name := text[i:j]
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
				k++
			}
			if k < len(text) && text[k] == '(' && !startupKeyword(name) {
				call := startupCall{name: name}
				a := k + 1
				for a < len(text) && (text[a] == ' ' || text[a] == '\t') {
					a++
				}
				if a < len(text) && (text[a] == '"' || text[a] == '\'' || text[a] == '`') {
					s, end := startupString(text, a)
					rest := strings.TrimLeft(text[end:], " \t")
					call.arg, call.literal = s, strings.HasPrefix(rest, ")") || strings.HasPrefix(rest, ",")
				}
				calls = append(calls, call)
			}
			i = j
		default:
			i++
		}
	}
	return calls
}

// startupString reads the string literal at text[i] (its quote included) and returns
// its text, a backslash keeping the character after it, and the index after it.
func startupString(text string, i int) (string, int) {
	q := text[i]
	var b strings.Builder
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			if j+1 < len(text) {
				j++
				b.WriteByte(text[j])
			}
		case q:
			return b.String(), j + 1
		default:
			b.WriteByte(text[j])
		}
	}
	return b.String(), len(text)
}

func startupKeyword(name string) bool {
	switch name {
	case "if", "for", "while", "function", "return", "repeat", "switch", "else", "elseif", "begin", "end", "do", "let":
		return true
	}
	return false
}

// rProfileCode reads an R startup file (.Rprofile, run by every R session started in its
// directory or, the home directory's, anywhere): system(), system2() and shell() with a
// string are commands; the settings calls a profile is made of (options, Sys.setenv,
// library, source of a file of the project such as renv's activate.R) run nothing; any
// other call is R moat does not read.
func rProfileCode(text string, x *extraction) {
	for _, c := range startupCalls(text, false) {
		switch c.name {
		case "options", "Sys.setenv", "Sys.getenv", "Sys.setlocale", "Sys.info", "Sys.time", "Sys.Date", "library",
			"require", "requireNamespace", "loadNamespace", "suppressMessages", "suppressPackageStartupMessages",
			"suppressWarnings", "tryCatch", "c", "list", "file.path", "file.exists", "dir.exists", "path.expand",
			"normalizePath", "paste", "paste0", "sprintf", "format", "getOption", "interactive", "invisible", "message",
			"cat", "print", "local", "is.null", "is.na", "nchar", "nzchar", "identical", "exists", "length", "toupper",
			"tolower", "setHook", "packageEvent", "attach", "new.env", "environment", "globalenv", "emptyenv",
			"assign", "get", "rm", ".libPaths", "getwd", "capabilities", "q", "quit":
		case "system", "system2", "shell":
			if !c.literal {
				x.opaque(c.name, "runs a command computed at run time")
				continue
			}
			x.shell(c.name+" (R runs it at start-up)", c.arg)
		case "source", "sys.source":
			switch {
			case c.literal && (c.arg == "~/.Rprofile" || c.arg == "~/.Rprofile.site"):
				// The user's own profile, which R runs anyway (blogdown's template).
			case !c.literal || strings.HasPrefix(c.arg, "/") || strings.HasPrefix(c.arg, "~") || strings.Contains(c.arg, "..") || strings.Contains(c.arg, "://"):
				x.opaque(c.name, "runs R from "+c.arg+", outside the project")
			}
		default:
			x.opaque(c.name, "R that moat does not read")
			return
		}
	}
}

// juliaStartupCode reads Julia's startup.jl, run by every julia: a command literal
// (`…`, which run() and read() run) is a command; ENV settings, using and import run
// nothing; any other call is Julia moat does not read.
func juliaStartupCode(text string, x *extraction) {
	for _, c := range startupCalls(text, true) {
		switch c.name {
		case "`":
			x.shell("command literal (julia runs it at start-up)", c.arg)
		case "run", "read", "success", "pipeline", "push!", "println", "print", "get", "haskey", "isinteractive", "atreplinit":
		default:
			x.opaque(c.name, "Julia that moat does not read")
			return
		}
	}
}
