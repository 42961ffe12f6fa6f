package engine

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// MCP servers that run code (a code runner, a Python or Node REPL, a Jupyter kernel, an
// e2b sandbox) take it in an argument and run it on the machine they serve, as python -c
// CODE or node -e CODE would. The code is analysed as that command line; code in a
// language moat does not read is opaque, never allowed unread.

// mcpCodeVerbs, in a tool's name, say that the tool runs what it is given.
var mcpCodeVerbs = []string{"run", "execute", "exec", "eval", "evaluate", "interpret", "repl"}

// mcpCodeKeys are the argument names (squashed) of code to run.
var mcpCodeKeys = []string{"code", "source", "sourcecode", "expression", "expr", "snippet", "cell", "program", "cellsource", "js", "javascript", "script"}

// mcpLangKeys are the argument names (squashed) that say the code's language.
var mcpLangKeys = []string{"language", "lang", "runtime", "kernel", "kernelname"}

// mcpCommand returns the command line an MCP call runs: a shell tool's command, or the
// line that runs a code tool's code; opaque when it runs code moat cannot read.
func mcpCommand(c *call.Call) (line string, ok bool, opaque string) {
	if c.MCP == nil {
		return "", false, ""
	}
	for _, command := range []func(*call.Call) (string, bool){mcpGitCommand, mcpManifestCommand, mcpShellCommand} {
		if line, ok := command(c); ok {
			return line, true, ""
		}
	}
	return mcpCodeCommand(c)
}

// mcpCodeCommand returns the shell command line that runs what an MCP call gives a tool
// that runs code, with ok; opaque is set instead when the call runs code in a language
// moat does not read (or names none).
func mcpCodeCommand(c *call.Call) (line string, ok bool, opaque string) {
	if c.MCP == nil || !hasWord(nameWords(c.MCP.Tool), mcpCodeVerbs) || pageTool(c) {
		return "", false, "" // a browser page's script runs in the page (mcppage.go)
	}
	code := ""
	for _, k := range sortedKeys(c.Args) {
		if s, isString := c.Args[k].(string); isString && containsWord(mcpCodeKeys, squash(k)) && strings.TrimSpace(s) != "" {
			code = s
		}
	}
	if code == "" {
		return "", false, ""
	}
	lang, named := "", false
	for _, k := range sortedKeys(c.Args) {
		if s, isString := c.Args[k].(string); isString && containsWord(mcpLangKeys, squash(k)) {
			lang, named = mcpLanguage(nameWords(s))
			if !named {
				return "", false, c.MCP.Tool + " runs code in " + s + ", a language moat does not read"
			}
		}
	}
	if !named {
		lang, named = mcpLanguage(mcpContext(c))
	}
	if !named {
		return "", false, c.MCP.Tool + " runs code whose language moat cannot tell"
	}
	if lang == "python3" {
		shell, rest := notebookShell(code)
		parts := []string{}
		if strings.TrimSpace(rest) != "" {
			parts = append(parts, "python3 -c "+shellWord(rest))
		}
		parts = append(parts, shell...)
		return strings.Join(parts, "\n"), true, ""
	}
	if lang == "" {
		return code, true, ""
	}
	flag := "-e"
	if lang == "php" {
		flag = "-r"
	}
	if lang == "deno" {
		return "deno eval " + shellWord(code), true, ""
	}
	return lang + " " + flag + " " + shellWord(code), true, ""
}

// mcpLanguage returns the interpreter whose command line runs code of the first word that
// names a language, runtime or server of one ("" for a shell).
func mcpLanguage(words []string) (string, bool) {
	for _, w := range words {
		switch w {
		case "python", "python3", "py", "ipython", "jupyter", "notebook":
			return "python3", true
		case "javascript", "js", "node", "nodejs", "bun":
			return "node", true
		case "typescript", "ts", "deno":
			return "deno", true
		case "ruby", "rb":
			return "ruby", true
		case "perl", "php", "lua":
			return w, true
		case "bash", "sh", "shell", "zsh":
			return "", true
		}
	}
	return "", false
}

// notebookShell separates what a notebook cell runs in the shell (lines starting with !,
// and the whole cell under %%bash, %%sh or %%script bash) from its Python; IPython's
// other magics (%pip, %time…) are dropped from the Python, %pip and %conda kept as the
// commands they run.
func notebookShell(cell string) (shell []string, python string) {
	lines := strings.Split(cell, "\n")
	if len(lines) > 0 {
		first := strings.TrimSpace(lines[0])
		if first == "%%bash" || first == "%%sh" || strings.HasPrefix(first, "%%script bash") || strings.HasPrefix(first, "%%script sh") {
			return []string{strings.Join(lines[1:], "\n")}, ""
		}
	}
	var py []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "!"):
			shell = append(shell, strings.TrimPrefix(t, "!"))
		case strings.HasPrefix(t, "%pip ") || strings.HasPrefix(t, "%conda "):
			shell = append(shell, strings.TrimPrefix(t, "%"))
		case strings.HasPrefix(t, "%"):
		default:
			py = append(py, l)
		}
	}
	return shell, strings.Join(py, "\n")
}
