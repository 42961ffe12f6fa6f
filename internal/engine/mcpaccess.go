package engine

import (
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/moatdev/moat/internal/call"
)

// MCP servers that work on files (the reference filesystem server, editors' and
// databases' servers) name the paths they touch in a handful of argument names, and say
// what they do in the tool's name. Reading those makes the path rules of a policy hold
// for MCP tools as they do for the agents' own file tools: a read of ~/.ssh/id_rsa is a
// read of a secret whichever tool asks for it.

// mcpPathKeys are the argument names whose string values (or lists of strings) are paths.
var mcpPathKeys = []string{
	"path", "paths", "file", "files", "file_path", "filepath", "filePath", "file_paths", "filePaths",
	"filename", "directory", "dir", "dir_path", "source", "destination", "target", "src", "dest",
}

// mcpShellWords name tools that run shell commands (execute_command, run_shell,
// run_terminal_command, shell_exec, bash), and mcpCommandKeys the arguments that hold the
// command: such a call is decided as the command would be, as well as as a tool call.
var (
	mcpShellWords  = []string{"exec", "execute", "run", "shell", "bash", "sh", "zsh", "terminal", "command", "cmd", "powershell", "pwsh", "spawn", "process"}
	mcpCommandKeys = []string{"command", "cmd", "script", "shell_command", "commandLine", "command_line"}
)

// mcpShellCommand returns the shell command an MCP tool call runs, if its tool runs
// commands and an argument holds one.
func mcpShellCommand(c *call.Call) (string, bool) {
	if c.MCP == nil || !slices.ContainsFunc(nameWords(c.MCP.Tool), func(w string) bool { return containsWord(mcpShellWords, w) }) {
		return "", false
	}
	for _, k := range mcpCommandKeys {
		if s, ok := c.Args[k].(string); ok && s != "" {
			return s, true
		}
	}
	return "", false
}

// mcpWriteVerbs and mcpDeleteVerbs are the words of a tool's name that make its path
// arguments writes or deletions; a tool named by none of them reads.
var (
	mcpWriteVerbs = []string{
		"write", "edit", "create", "make", "mkdir", "move", "mv", "rename", "copy", "cp", "append",
		"update", "put", "save", "set", "upload", "patch", "replace", "insert", "modify", "touch", "chmod",
	}
	mcpDeleteVerbs = []string{"delete", "remove", "rm", "unlink", "rmdir", "trash", "erase", "purge"}
)

// mcpAccesses returns the file accesses an MCP tool call names. Its tool's other effects
// stay unknown, so the call remains opaque to rules that must vouch for every access.
func (e *Engine) mcpAccesses(c *call.Call) []call.Access {
	if c.MCP == nil {
		return nil
	}
	kind := mcpAccessKind(c.MCP.Tool)
	var out []call.Access
	add := func(v any) {
		if p, ok := v.(string); ok && p != "" {
			abs := e.resolvePath(p, c.Cwd)
			out = append(out, call.Access{Kind: kind, Path: abs, Recursive: kind == call.Delete})
		}
	}
	for _, k := range mcpPathKeys {
		switch v := c.Args[k].(type) {
		case string:
			add(v)
		case []any:
			for _, x := range v {
				add(x)
			}
		}
	}
	// A resource named by a file: URI (resources/read) is that file.
	for _, k := range []string{"uri", "url"} {
		if s, ok := c.Args[k].(string); ok {
			if u, err := url.Parse(s); err == nil && u.Scheme == "file" && u.Path != "" {
				add(u.Path)
			}
		}
	}
	return out
}

// mcpAccessKind reads what a tool does to its paths from the words of its name
// (write_file, moveFile, delete-entry).
func mcpAccessKind(tool string) call.AccessKind {
	kind := call.Read
	for _, w := range nameWords(tool) {
		switch {
		case containsWord(mcpDeleteVerbs, w):
			return call.Delete
		case containsWord(mcpWriteVerbs, w):
			kind = call.Write
		}
	}
	return kind
}

// nameWords splits an identifier into lower-case words at _, -, ., / and case changes.
func nameWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur.WriteRune(unicode.ToLower(r))
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return words
}

func containsWord(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}
