package engine

import (
	"net/url"
	"slices"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
)

// MCP servers that work on files (the reference filesystem server, editors' and
// databases' servers) name the paths they touch in a handful of argument names, and say
// what they do in the tool's name. Reading those makes the path rules of a policy hold
// for MCP tools as they do for the agents' own file tools: a read of ~/.ssh/id_rsa is a
// read of a secret whichever tool asks for it.

// mcpPathKeys are the argument names whose string values (or lists of strings) are paths:
// the files a tool works on (mcpFileKeys), and the files it sends or takes in (an
// email's or a message's attachments, an upload's local side).
var (
	mcpFileKeys = []string{
		"path", "paths", "file", "files", "file_path", "filepath", "filePath", "file_paths", "filePaths",
		"filename", "directory", "dir", "dir_path", "destination", "target", "dest",
		"fullPath", "full_path", "absolutePath", "absolute_path", "relativePath", "relative_path",
		"targetPath", "target_path", "filename_path", "notebook_path", "notebookPath",
	}
	mcpPathKeys = slices.Concat(mcpFileKeys, []string{
		"attachment", "attachments", "attachment_path", "attachmentPath", "attachment_paths", "attachmentPaths",
		"local_path", "localPath", "source_path", "sourcePath", "src_path", "srcPath", "input_path", "inputPath",
		"output_path", "outputPath", "upload_path", "uploadPath",
	})
)

// mcpShellWords name tools that run shell commands (execute_command, run_shell,
// run_terminal_command, shell_exec, bash), and mcpCommandKeys the arguments that hold the
// command: such a call is decided as the command would be, as well as as a tool call.
var (
	mcpShellWords  = []string{"exec", "execute", "run", "shell", "bash", "sh", "zsh", "terminal", "command", "cmd", "powershell", "pwsh", "spawn", "process"}
	mcpCommandKeys = []string{"command", "cmd", "script", "shell_command", "commandLine", "command_line", "cli_command", "cliCommand", "line"}
)

// mcpCLIs are the programs MCP servers wrap: a tool named for one (call_aws, kubectl,
// gcloud_cli) runs that program with the command it is given, whether or not the
// command starts with the program's name.
var mcpCLIs = []string{"aws", "gcloud", "gsutil", "az", "kubectl", "helm", "terraform", "docker", "podman", "git", "gh", "glab", "psql", "mysql", "sqlite3", "mongosh"}

// stdinDelimiter is a here-document delimiter that does not occur in text.
func stdinDelimiter(text string) string {
	d := "MOAT_STDIN"
	for strings.Contains(text, d) {
		d += "_"
	}
	return d
}

// mcpShellCommand returns the shell command an MCP tool call runs: the command argument
// of a tool that runs commands, or of a tool that wraps a command-line program, which is
// put before the command when the command does not name it.
func mcpShellCommand(c *call.Call) (string, bool) {
	if c.MCP == nil {
		return "", false
	}
	words := nameWords(c.MCP.Tool)
	runs := hasWord(words, mcpShellWords)
	cli := ""
	if i := slices.IndexFunc(words, func(w string) bool { return containsWord(mcpCLIs, w) }); i >= 0 {
		cli = words[i]
	}
	if hasWord(nameWords(c.MCP.Server), mcpTerminalWords) || hasWord(words, mcpTerminalWords) {
		// A terminal's tool that types into it (send_keys, type, write_input): what it
		// types is a command line the terminal's shell runs.
		if hasWord(words, mcpTypeWords) {
			for _, k := range sortedKeys(c.Args) {
				if s, ok := c.Args[k].(string); ok && containsWord(mcpTypedKeys, squash(k)) && strings.TrimSpace(s) != "" {
					return s, true
				}
			}
		}
	}
	if !runs && cli == "" {
		return "", false
	}
	for _, k := range append(mcpCommandKeys, mcpArgvKeys...) {
		var s string
		switch v := c.Args[k].(type) {
		case string:
			s = v
		case []any:
			s = quoteArgv(v)
		}
		if s == "" {
			continue
		}
		// A tool named for a program runs that program (call_aws, run_gcloud_command),
		// but one that executes commands in a shell or a container (docker_exec,
		// kubectl_exec) runs them as given.
		if cli != "" && !hasWord(words, mcpExecWords) {
			if first, _, _ := strings.Cut(strings.TrimSpace(s), " "); first != cli && !strings.HasSuffix(first, "/"+cli) {
				s = cli + " " + s
			}
		}
		if in, ok := c.Args["stdin"].(string); ok && in != "" {
			// What the tool writes to the command's standard input is its input as a
			// here-document would be: run_command {command: "bash", stdin: CODE} runs CODE.
			s += " <<'" + stdinDelimiter(in) + "'\n" + in + "\n" + stdinDelimiter(in)
		}
		return s, true
	}
	if cli == "kubectl" {
		return kubectlCommand(words, c.Args)
	}
	return "", false
}

// mcpCommandArgWords, in an argument's name, say its value is a command line (command,
// cmd, setup_script, preCommand).
var mcpCommandArgWords = []string{"command", "commands", "cmd", "cmds", "script", "scripts"}

// mcpCommandArgs returns the command lines in the arguments of an MCP call whose tool does
// not say that it runs one (start_job, create_task, schedule, connect): a job runner, a
// scheduler or a remote session runs them, later or elsewhere, as a shell would. They
// are read for what moat can see in them; that moat cannot read one is no reason to ask,
// since the tool may only store it (moat reads the command of a tool that says it runs
// one, mcpShellCommand, in full).
func mcpCommandArgs(c *call.Call) []string {
	if c.MCP == nil {
		return nil
	}
	var lines []string
	for _, k := range sortedKeys(c.Args) {
		s, ok := c.Args[k].(string)
		if ok && strings.TrimSpace(s) != "" && len(s) <= maxScanned && hasWord(nameWords(k), mcpCommandArgWords) {
			lines = append(lines, s)
		}
	}
	return lines
}

// mcpTerminalWords, in a server's or tool's name, say it drives a terminal or a running
// process (desktop-commander's interact_with_process feeds a shell or a REPL it
// started); mcpTypeWords, in a tool's name, that it types into one; mcpTypedKeys are the
// arguments (squashed) that hold what it types. What is typed is read as the shell's
// input: a REPL's code reads as commands moat does not know, and is asked.
var (
	mcpTerminalWords = []string{"terminal", "tmux", "pty", "tty", "iterm", "iterm2", "wezterm", "kitty", "process", "repl"}
	mcpTypeWords     = []string{"send", "type", "write", "input", "keys", "keystrokes", "paste", "press", "execute", "run", "interact"}
	mcpTypedKeys     = []string{"keys", "text", "input", "line", "chars", "data", "keystrokes", "command", "cmd", "string"}
)

// mcpExecWords name tools that execute a command line as given, in a shell or a
// container: a program in their name is where the command runs, not the command.
var mcpExecWords = []string{"exec", "execute", "shell", "bash", "sh", "zsh", "terminal", "powershell", "pwsh", "spawn", "process"}

// mcpArgvKeys are the argument names of a command given as a list of words.
var mcpArgvKeys = []string{"args", "argv", "arguments"}

// quoteArgv returns a list of words as a shell command line, each word quoted as the
// shell needs; "" when an element is not a string.
func quoteArgv(argv []any) string {
	words := make([]string, 0, len(argv))
	for _, a := range argv {
		w, ok := a.(string)
		if !ok {
			return ""
		}
		if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
			w = q
		}
		// A word the shell cannot quote (a NUL byte) is left as it is: the analysis
		// reports what it cannot read.
		words = append(words, w)
	}
	return strings.Join(words, " ")
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

// mcpSourceKeys are the argument names of paths too, those a move or copy takes its file
// from.
var mcpSourceKeys = []string{"source", "src", "source_path", "sourcePath", "old_path", "oldPath"}

// mcpAccesses returns the file accesses an MCP tool call names. Its tool's other effects
// stay unknown, so the call remains opaque to rules that must vouch for every access.
// A move deletes its source and writes its destination, so moving a key out of ~/.ssh
// or moat's policy out of the way is judged as deleting it; a copy reads its source.
func (e *Engine) mcpAccesses(c *call.Call) []call.Access {
	if c.MCP == nil {
		return nil
	}
	kind := mcpAccessKind(c.MCP.Tool)
	words := nameWords(c.MCP.Tool)
	sourceKind := kind
	switch {
	case kind == call.Write && hasWord(words, []string{"move", "mv", "rename"}):
		sourceKind = call.Delete
	case kind == call.Write && hasWord(words, []string{"copy", "cp"}):
		sourceKind = call.Read
	}
	// A search walks the tree below its path (search_files, directory_tree, find, grep), as
	// the agents' own Glob and Grep do.
	walks := kind == call.Read && hasWord(words, mcpWalkWords)
	var out []call.Access
	add := func(v any, kind call.AccessKind) {
		if p, ok := v.(string); ok && p != "" {
			abs := e.resolvePath(p, c.Cwd)
			out = append(out, call.Access{Kind: kind, Path: abs, Recursive: kind == call.Delete || walks && kind == call.Read})
		}
	}
	addAll := func(v any, kind call.AccessKind) {
		switch v := v.(type) {
		case string:
			add(v, kind)
		case []any:
			for _, x := range v {
				add(x, kind)
			}
		}
	}
	for _, k := range mcpSourceKeys {
		addAll(c.Args[k], sourceKind)
	}
	for _, k := range mcpPathKeys {
		addAll(c.Args[k], kind)
	}
	// Under any other name, in a call of a tool about files, a value that can only be a
	// local path (below the home directory, the project or the machine's own directories)
	// is one: a server may call it location, input, document or p. (A title of an issue
	// that reads /etc/passwd is not a path.)
	fileTool := hasWord(nameWords(c.MCP.Tool), mcpFileWords)
	for _, k := range sortedKeys(c.Args) {
		if !fileTool || slices.Contains(mcpPathKeys, k) || slices.Contains(mcpSourceKeys, k) || k == "uri" || k == "url" {
			continue
		}
		if p, ok := c.Args[k].(string); ok && e.localPathValue(p, c) {
			add(strings.TrimPrefix(p, "file://"), kind)
		}
	}
	// A resource named by a file: URI (resources/read) is that file, and so is a uri
	// argument that is a path alone (an editor's server names files so).
	for _, k := range []string{"uri", "url"} {
		if s, ok := c.Args[k].(string); ok {
			if u, err := url.Parse(s); err == nil && u.Scheme == "file" && u.Path != "" {
				add(u.Path, kind)
			} else if k == "uri" && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/")) {
				add(s, kind)
			}
		}
	}
	return out
}

// mcpWalkWords, in the name of a tool that reads, say that it reads the whole tree below
// its path.
var mcpWalkWords = []string{"search", "find", "tree", "glob", "grep", "walk", "recursive", "scan"}

// mcpFileWords, in a tool's name, say that its arguments name files.
var mcpFileWords = []string{"file", "files", "fs", "filesystem", "path", "paths", "dir", "directory", "folder",
	"document", "documents", "resource", "resources", "open", "view", "cat", "read", "load", "attach",
	"attachment", "upload", "download", "disk", "local", "desktop", "move", "copy", "rename", "edit", "write", "delete"}

// localRoots are the machine's own directories, a path below which is a local file
// whatever argument names it.
var localRoots = []string{"/etc/", "/root/", "/home/", "/Users/", "/var/", "/proc/", "/sys/", "/dev/", "/tmp/", "/private/", "/usr/", "/opt/", "/bin/", "/sbin/", "/lib/", "/boot/", "/mnt/", "/media/", "/srv/", "/run/"}

// localPathValue reports whether an argument's value can only be a local path: ~/…, a
// file: URL, or an absolute path without blanks below the home directory, the project or
// one of localRoots. (An API route such as /v1/users is none of them.)
func (e *Engine) localPathValue(s string, c *call.Call) bool {
	switch {
	case len(s) > 4096 || strings.ContainsAny(s, " \t\n\r\x00"):
		// Text that merely starts with a path ("/etc/passwd is world-readable") is not one.
		return false
	case strings.HasPrefix(s, "~/"):
		return true
	case strings.HasPrefix(s, "file:///"):
		return true
	case !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//"):
		return false
	}
	for _, root := range []string{e.host.Home, c.Project, c.Cwd} {
		if root != "" && root != "/" && (s == root || strings.HasPrefix(s, strings.TrimSuffix(root, "/")+"/")) {
			return true
		}
	}
	for _, r := range localRoots {
		if strings.HasPrefix(s, r) {
			return true
		}
	}
	return false
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

// nameWords splits an identifier into lower-case words at _, -, ., /, :, spaces and case
// changes: getHTTPHeaders is get, http, headers.
func nameWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ' || r == ':':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prev := runes[i-1]
			// A lower-case letter or digit ends a word (moveFile), and so does an upper-case
			// one when a lower-case one follows (HTTPHeaders: HTTP, Headers).
			if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) {
				flush()
			}
		}
		cur.WriteRune(unicode.ToLower(r))
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

// kubectlVerbs are the kubectl commands a Kubernetes server's tool may be named for.
var kubectlVerbs = []string{"get", "describe", "delete", "apply", "create", "replace", "patch", "scale", "logs", "edit", "label", "annotate", "rollout"}

// kubectlCommand builds the kubectl command a Kubernetes server's tool stands for when
// its arguments are the command's parts rather than a command line (kubectl_get with
// resourceType, name, namespace, output; kubectl_apply with a manifest), so that the
// shell analysis judges it as the command: a secret printed, a manifest's pods and
// bindings.
func kubectlCommand(words []string, args map[string]any) (string, bool) {
	i := slices.IndexFunc(words, func(w string) bool { return containsWord(kubectlVerbs, w) })
	if i < 0 {
		return "", false
	}
	str := func(keys ...string) string {
		for _, k := range sortedKeys(args) {
			if v, ok := args[k].(string); ok && containsWord(keys, squash(k)) && v != "" {
				return v
			}
		}
		return ""
	}
	parts := []string{"kubectl", words[i]}
	manifest := str("manifest", "yaml", "resource", "body", "content", "definition")
	if kind := str(mcpKindKeys...); kind != "" && !strings.Contains(kind, "\n") {
		parts = append(parts, kind)
		if name := str("name", "resourcename"); name != "" {
			parts = append(parts, name)
		}
	}
	for _, o := range []struct{ flag, key string }{{"-n", "namespace"}, {"-o", "output"}, {"--context", "context"}} {
		if v := str(o.key); v != "" {
			parts = append(parts, o.flag, v)
		}
	}
	argv := make([]any, len(parts))
	for k, p := range parts {
		argv[k] = p
	}
	cmd := quoteArgv(argv)
	if manifest != "" && strings.Contains(manifest, "\n") {
		d := stdinDelimiter(manifest)
		cmd += " -f - <<'" + d + "'\n" + manifest + "\n" + d
	}
	return cmd, len(parts) > 2 || manifest != ""
}
