package call

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/didyoumean"
)

// NativeTool describes how one agent names a tool (or a hook event that stands for one) and
// what arguments it takes: their names, aliases, types, and the canonical keys of its class
// they map onto.
type NativeTool struct {
	Agent Agent
	Name  string
	Class Class
	// Args declares the tool's arguments. A call whose declared argument is missing
	// (when required), of another type, or given under two of its names is an error:
	// moat does not decide a call it cannot read.
	Args []Arg
	// Extra says what happens to keys Args does not declare (see ExtraKeys).
	Extra ExtraKeys
	// PatternIsPath marks search tools whose pattern is a path glob (Glob, not Grep): an
	// absolute or ~ pattern names where the search reads, whatever the path argument says.
	PatternIsPath bool
	// Unsupported, when set, says why this tool cannot be turned into one canonical call
	// here (for example apply_patch, which the Codex hook splits into one call per file).
	Unsupported string
	// WritesTo is the file a tool writes whatever its arguments say (Gemini's save_memory
	// appends its fact to ~/.gemini/GEMINI.md): the call's path.
	WritesTo string
}

// Arguments that several tools of the table share. Each names its key, its canonical
// place, its type and whether it is required.
var (
	fileArg        = Arg{Names: []string{"file_path"}, As: ArgPath, Type: TypeString, Required: true}
	pathArg        = Arg{Names: []string{"path"}, As: ArgPath, Type: TypeString}
	commandArg     = Arg{Names: []string{"command"}, As: ArgCommand, Type: TypeString, Required: true}
	patternArg     = Arg{Names: []string{"pattern"}, As: ArgPattern, Type: TypeString, Required: true}
	contentArg     = Arg{Names: []string{"content"}, As: ArgContent, Type: TypeString, Required: true}
	oldArg         = Arg{Names: []string{"old_string"}, As: ArgOld, Type: TypeString, Required: true}
	newArg         = Arg{Names: []string{"new_string"}, As: ArgNew, Type: TypeString, Required: true}
	editsArg       = Arg{Names: []string{"edits"}, As: ArgEdits, Type: TypeEdits, Required: true}
	descriptionArg = Arg{Names: []string{"description"}, Type: TypeString}

	// Cursor's preToolUse names a file target_file in some versions, file_path in others.
	cursorFileArg = Arg{Names: []string{"file_path", "target_file"}, As: ArgPath, Type: TypeString, Required: true}
	// Gemini CLI names a file file_path, and absolute_path in its earlier versions; and a
	// directory dir_path (path in its earlier versions: the canonical key, accepted anyway).
	geminiFileArg = Arg{Names: []string{"file_path", "absolute_path"}, As: ArgPath, Type: TypeString, Required: true}
	geminiDirArg  = Arg{Names: []string{"dir_path"}, As: ArgPath, Type: TypeString}
)

// NativeTools is the table of every native tool name moat understands, per agent, with the
// arguments each takes (specs/agent-protocols.md gives the sources). Names absent from it
// are refused by Canonicalize unless the caller asks for class other, so that a misspelt
// tool is an error rather than a call that slips past every rule.
//
// Keys a tool does not declare are kept, since agents add fields often, unless their name
// says they hold a path, a command or a URL (ExtraUnlessNamed); tools of class other keep
// every key (ExtraKept); the events whose arguments the Cursor adapter assembles take no
// other key (ExtraRefused).
var NativeTools = []NativeTool{
	// Claude Code: PreToolUse tool_name values.
	{Agent: ClaudeCode, Name: "Bash", Class: Shell, Args: []Arg{commandArg, descriptionArg, {Names: []string{"timeout"}, Type: TypeNumber}, {Names: []string{"run_in_background"}, Type: TypeBool}}},
	{Agent: ClaudeCode, Name: "Read", Class: FileRead, Args: []Arg{fileArg, {Names: []string{"offset"}, Type: TypeNumber}, {Names: []string{"limit"}, Type: TypeNumber}, {Names: []string{"pages"}, Type: TypeString}}},
	{Agent: ClaudeCode, Name: "Write", Class: FileWrite, Args: []Arg{fileArg, contentArg}},
	{Agent: ClaudeCode, Name: "Edit", Class: FileEdit, Args: []Arg{fileArg, oldArg, newArg, {Names: []string{"replace_all"}, Type: TypeBool}}},
	{Agent: ClaudeCode, Name: "MultiEdit", Class: FileEdit, Args: []Arg{fileArg, editsArg}},
	{Agent: ClaudeCode, Name: "NotebookEdit", Class: FileEdit, Args: []Arg{
		{Names: []string{"notebook_path"}, As: ArgPath, Type: TypeString, Required: true},
		// Absent when a cell is deleted.
		{Names: []string{"new_source"}, As: ArgNew, Type: TypeString},
		{Names: []string{"cell_id"}, Type: TypeString}, {Names: []string{"cell_type"}, Type: TypeString}, {Names: []string{"edit_mode"}, Type: TypeString},
	}},
	{Agent: ClaudeCode, Name: "Glob", Class: FileSearch, PatternIsPath: true, Args: []Arg{patternArg, pathArg}},
	{Agent: ClaudeCode, Name: "Grep", Class: FileSearch, Args: []Arg{patternArg, pathArg,
		{Names: []string{"glob"}, As: ArgFilter, Type: TypeString}, {Names: []string{"type"}, Type: TypeString}, {Names: []string{"output_mode"}, Type: TypeString}, {Names: []string{"multiline"}, Type: TypeBool},
		{Names: []string{"head_limit"}, Type: TypeNumber}, {Names: []string{"-i"}, Type: TypeBool}, {Names: []string{"-n"}, Type: TypeBool},
		{Names: []string{"-A"}, Type: TypeNumber}, {Names: []string{"-B"}, Type: TypeNumber}, {Names: []string{"-C"}, Type: TypeNumber}}},
	{Agent: ClaudeCode, Name: "LS", Class: FileSearch, Args: []Arg{
		{Names: []string{"path"}, As: ArgPath, Type: TypeString, Required: true}, {Names: []string{"ignore"}, Type: TypeStrings}}},
	{Agent: ClaudeCode, Name: "WebFetch", Class: WebFetch, Args: []Arg{
		{Names: []string{"url"}, As: ArgURL, Type: TypeString, Required: true}, {Names: []string{"prompt"}, Type: TypeString}}},
	// PowerShell syntax is not POSIX shell; analysing it as shell would misread it, so it is
	// decided by native name until moat has a PowerShell analyser. Its command is still
	// read strictly: a rule on PowerShell matches what it runs.
	{Agent: ClaudeCode, Name: "PowerShell", Class: Other, Args: []Arg{
		{Names: []string{"command"}, Type: TypeString, Required: true}, descriptionArg, {Names: []string{"timeout"}, Type: TypeNumber}, {Names: []string{"run_in_background"}, Type: TypeBool}}},
	{Agent: ClaudeCode, Name: "WebSearch", Class: Other, Extra: ExtraKept, Args: []Arg{
		{Names: []string{"query"}, Type: TypeString, Required: true, Sent: true}, {Names: []string{"allowed_domains"}, Type: TypeStrings}, {Names: []string{"blocked_domains"}, Type: TypeStrings}}},
	{Agent: ClaudeCode, Name: "Agent", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "Task", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "TodoWrite", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "AskUserQuestion", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "ExitPlanMode", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "Skill", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "BashOutput", Class: Other, Extra: ExtraKept},
	{Agent: ClaudeCode, Name: "KillShell", Class: Other, Extra: ExtraKept},

	// Cursor: hook events that stand for a tool (their arguments are the fields the
	// adapter takes from the payload), and preToolUse tool types.
	{Agent: Cursor, Name: "beforeShellExecution", Class: Shell, Extra: ExtraRefused, Args: []Arg{commandArg,
		{Names: []string{"cwd"}, As: AsCwd, Type: TypeString}}},
	{Agent: Cursor, Name: "beforeReadFile", Class: FileRead, Extra: ExtraRefused, Args: []Arg{fileArg}},
	{Agent: Cursor, Name: "beforeMCPExecution", Class: MCP, Extra: ExtraRefused, Args: []Arg{
		{Names: []string{"tool_name"}, As: AsMCPTool, Type: TypeString, Required: true},
		{Names: []string{"tool_input"}, As: AsMCPArgs, Type: TypeJSONObject}}},
	{Agent: Cursor, Name: "Shell", Class: Shell, Args: []Arg{commandArg,
		{Names: []string{"working_directory"}, As: AsCwd, Type: TypeString}}},
	{Agent: Cursor, Name: "Read", Class: FileRead, Args: []Arg{cursorFileArg}},
	{Agent: Cursor, Name: "Write", Class: FileWrite, Args: []Arg{cursorFileArg, {Names: []string{"content", "contents"}, As: ArgContent, Type: TypeString}}},
	{Agent: Cursor, Name: "Delete", Class: FileDelete, Args: []Arg{cursorFileArg}},
	{Agent: Cursor, Name: "Grep", Class: FileSearch, Args: []Arg{
		{Names: []string{"pattern", "query"}, As: ArgPattern, Type: TypeString, Required: true}, pathArg}},
	{Agent: Cursor, Name: "Task", Class: Other, Extra: ExtraKept},

	// Windsurf: pre-hook events; the arguments are the event's tool_info.
	{Agent: Windsurf, Name: "pre_run_command", Class: Shell, Args: []Arg{
		{Names: []string{"command_line"}, As: ArgCommand, Type: TypeString, Required: true},
		{Names: []string{"cwd"}, As: AsCwd, Type: TypeString, Required: true}}},
	{Agent: Windsurf, Name: "pre_read_code", Class: FileRead, Args: []Arg{fileArg}},
	{Agent: Windsurf, Name: "pre_write_code", Class: FileEdit, Args: []Arg{fileArg, editsArg}},
	{Agent: Windsurf, Name: "pre_mcp_tool_use", Class: MCP, Args: []Arg{
		{Names: []string{"mcp_server_name"}, As: AsMCPServer, Type: TypeString, Required: true},
		{Names: []string{"mcp_tool_name"}, As: AsMCPTool, Type: TypeString, Required: true},
		{Names: []string{"mcp_tool_arguments"}, As: AsMCPArgs, Type: TypeObject}}},

	// Gemini CLI: BeforeTool tool_name values.
	{Agent: GeminiCLI, Name: "run_shell_command", Class: Shell, Args: []Arg{commandArg, descriptionArg,
		// dir_path is relative to the session's directory; earlier versions said directory.
		{Names: []string{"dir_path", "directory"}, As: AsCwd, Type: TypeString},
		{Names: []string{"is_background"}, Type: TypeBool}}},
	{Agent: GeminiCLI, Name: "read_file", Class: FileRead, Args: []Arg{geminiFileArg,
		{Names: []string{"start_line"}, Type: TypeNumber}, {Names: []string{"end_line"}, Type: TypeNumber}, {Names: []string{"offset"}, Type: TypeNumber}, {Names: []string{"limit"}, Type: TypeNumber}}},
	{Agent: GeminiCLI, Name: "read_many_files", Class: FileRead, Args: []Arg{
		{Names: []string{"include"}, As: ArgPaths, Type: TypeStrings, Required: true},
		{Names: []string{"exclude"}, Type: TypeStrings}, {Names: []string{"recursive"}, Type: TypeBool}, {Names: []string{"useDefaultExcludes"}, Type: TypeBool},
		{Names: []string{"file_filtering_options"}, Type: TypeObject}}},
	{Agent: GeminiCLI, Name: "write_file", Class: FileWrite, Args: []Arg{geminiFileArg, contentArg}},
	{Agent: GeminiCLI, Name: "replace", Class: FileEdit, Args: []Arg{geminiFileArg, oldArg, newArg,
		{Names: []string{"instruction"}, Type: TypeString}, {Names: []string{"allow_multiple"}, Type: TypeBool}, {Names: []string{"expected_replacements"}, Type: TypeNumber}}},
	{Agent: GeminiCLI, Name: "glob", Class: FileSearch, PatternIsPath: true, Args: []Arg{patternArg, geminiDirArg,
		{Names: []string{"case_sensitive"}, Type: TypeBool}, {Names: []string{"respect_git_ignore"}, Type: TypeBool}}},
	{Agent: GeminiCLI, Name: "grep_search", Class: FileSearch, Args: []Arg{patternArg, geminiDirArg, {Names: []string{"include"}, As: ArgFilter, Type: TypeString}}},
	{Agent: GeminiCLI, Name: "search_file_content", Class: FileSearch, Args: []Arg{patternArg, geminiDirArg, {Names: []string{"include"}, As: ArgFilter, Type: TypeString}}},
	{Agent: GeminiCLI, Name: "list_directory", Class: FileSearch, Args: []Arg{geminiDirArg, {Names: []string{"ignore"}, Type: TypeStrings}}},
	// web_fetch has no url argument: the URLs are inside the prompt.
	{Agent: GeminiCLI, Name: "web_fetch", Class: WebFetch, Args: []Arg{
		{Names: []string{"prompt"}, Type: TypeString, Required: true, URLs: true}}},
	{Agent: GeminiCLI, Name: "google_web_search", Class: Other, Extra: ExtraKept, Args: []Arg{
		{Names: []string{"query"}, Type: TypeString, Required: true, Sent: true}}},
	// save_memory appends the fact to the user's GEMINI.md, which every later session
	// reads as instructions: an edit of that file that puts the fact in.
	{Agent: GeminiCLI, Name: "save_memory", Class: FileEdit, WritesTo: "~/.gemini/GEMINI.md", Args: []Arg{{Names: []string{"fact"}, As: ArgNew, Type: TypeString, Required: true}}},
	{Agent: GeminiCLI, Name: "write_todos", Class: Other, Extra: ExtraKept},

	// Codex: PreToolUse tool_name values.
	{Agent: Codex, Name: "Bash", Class: Shell, Args: []Arg{commandArg,
		{Names: []string{"workdir"}, As: AsCwd, Type: TypeString}, {Names: []string{"timeout_ms"}, Type: TypeNumber}}},
	// The patch arrives as command (input in some versions); Canonicalize does not take it,
	// but its declaration is what the Codex adapter reads it by (ReadArgs).
	{Agent: Codex, Name: "apply_patch", Class: FileEdit, Args: []Arg{{Names: []string{"command", "input"}, Type: TypeString, Required: true}},
		Unsupported: "apply_patch edits several files at once; `moat hook codex` splits it into one call per file"},
	{Agent: Codex, Name: "update_plan", Class: Other, Extra: ExtraKept},
	{Agent: Codex, Name: "spawn_agent", Class: Other, Extra: ExtraKept},
}

// LookupTool finds the native tool name in the table: in agent's own entries when agent is
// set, otherwise in every agent's (the first entry wins; entries that share a name across
// agents share its class).
func LookupTool(agent Agent, name string) (NativeTool, bool) {
	for _, t := range NativeTools {
		if t.Name == name && (agent == "" || t.Agent == agent) {
			return t, true
		}
	}
	return NativeTool{}, false
}

// Canonicalize turns a tool name and its native arguments into a canonical call. The name
// may be a class ("shell", with canonical arguments), a native name from NativeTools, or an
// MCP tool name in any agent's spelling (mcp__srv__tool, mcp_srv_tool, MCP:tool,
// mcp:srv/tool). An unknown name is an error, and so are arguments the tool does not take
// as they came (see NativeTool.Args): missing, of another type, given twice, or unknown
// with a name that says they are a path, command or URL; such errors are *ArgError. Cwd is
// taken from the arguments when the native tool carries one, as given; the caller
// resolves it.
func Canonicalize(agent Agent, tool string, args map[string]any) (Call, error) {
	c := Call{Agent: agent, Tool: tool, Args: make(map[string]any, len(args))}
	if class, ok := ParseClass(tool); ok {
		c.Class = class
		if class == MCP {
			return c, fmt.Errorf("tool %q needs a server and tool name: write mcp:SERVER/TOOL", tool)
		}
		nt := NativeTool{Agent: agent, Name: tool, Class: class, Args: argsOfClass(class)}
		if class == Other {
			nt.Extra = ExtraKept
		}
		read, err := nt.readArgs(args)
		if err != nil {
			return c, err
		}
		c.Args = read.args
		finishArgs(&c)
		return c, needs(&c)
	}
	if target, ok := ParseMCPName(agent, tool); ok {
		c.Class = MCP
		c.MCP = &target
		for k, v := range args {
			c.Args[k] = v
		}
		return c, nil
	}
	nt, err := lookup(agent, tool)
	if err != nil {
		return c, err
	}
	if nt.Unsupported != "" {
		return c, fmt.Errorf("tool %q: %s", tool, nt.Unsupported)
	}
	c.Class = nt.Class
	read, err := nt.readArgs(args)
	if err != nil {
		return c, err
	}
	c.Cwd = read.cwd
	if nt.Class == MCP {
		c.MCP = &MCPTarget{Server: read.mcpServer, Tool: read.mcpTool}
		c.Args = read.mcpArgs
		if c.Args == nil {
			c.Args = map[string]any{}
		}
		return c, nil
	}
	c.Args = read.args
	if nt.WritesTo != "" {
		c.Args[ArgPath] = nt.WritesTo
	}
	if nt.PatternIsPath {
		if p, _ := c.Args[ArgPattern].(string); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			c.Args[ArgPaths] = []any{p}
		}
	}
	finishArgs(&c)
	return c, needs(&c)
}

// lookup finds a native tool, or says why the name is not one.
func lookup(agent Agent, tool string) (NativeTool, error) {
	nt, ok := LookupTool(agent, tool)
	if ok {
		return nt, nil
	}
	if agent != "" {
		if _, elsewhere := LookupTool("", tool); elsewhere {
			return nt, fmt.Errorf("%s has no tool named %q", agent, tool)
		}
	}
	return nt, fmt.Errorf("unknown tool %q%s: not a class (%s), a native tool name moat knows, or an MCP tool name", tool, didyoumean.Hint(tool, toolNamesOf(agent)), classList())
}

// toolNamesOf are the classes and the native tool names of agent (of every agent when it
// is ""), for the hint of a misspelt tool.
func toolNamesOf(agent Agent) []string {
	var names []string
	for _, c := range Classes {
		names = append(names, string(c))
	}
	for _, t := range NativeTools {
		if agent == "" || t.Agent == agent {
			names = append(names, t.Name)
		}
	}
	return names
}

// ClassOf returns the class of the calls a tool name makes, or the error Canonicalize
// gives for a name it does not know.
func ClassOf(agent Agent, tool string) (Class, error) {
	if class, ok := ParseClass(tool); ok {
		return class, nil
	}
	if _, ok := ParseMCPName(agent, tool); ok {
		return MCP, nil
	}
	nt, err := lookup(agent, tool)
	if err != nil {
		return "", err
	}
	return nt.Class, nil
}

// ReadArgs reads the arguments of a native tool as the table declares them, without
// making a call: for tools the caller turns into calls itself (Codex's apply_patch). The
// result holds each argument under its canonical key or first name.
func ReadArgs(agent Agent, tool string, args map[string]any) (map[string]any, error) {
	nt, err := lookup(agent, tool)
	if err != nil {
		return nil, err
	}
	read, err := nt.readArgs(args)
	if err != nil {
		return nil, err
	}
	return read.args, nil
}

// CanonicalizeOther makes a call of class other for a tool moat does not know, keeping its
// arguments as they are: rules can still match it by native name.
func CanonicalizeOther(agent Agent, tool string, args map[string]any) Call {
	c := Call{Agent: agent, Class: Other, Tool: tool, Args: make(map[string]any, len(args))}
	for k, v := range args {
		c.Args[k] = v
	}
	return c
}

// urlInText finds a URL in free text. It is compiled on first use: only a web fetch that
// carries its URL in a prompt needs it, and every process that imports call would pay.
var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://[^\s<>"'()\[\]{}]+`)
})

// finishArgs fills canonical keys that native tools spell in nested ways.
func finishArgs(c *Call) {
	edits, ok := c.Args[ArgEdits].([]any)
	if !ok {
		return
	}
	// A copy, so that the caller's decoded arguments are left as they came.
	edits = slices.Clone(edits)
	c.Args[ArgEdits] = edits
	for i, e := range edits {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		n := make(map[string]any, len(m))
		for k, v := range m {
			switch k {
			case "old_string":
				k = ArgOld
			case "new_string":
				k = ArgNew
			}
			n[k] = v
		}
		edits[i] = n
	}
}

// ParseMCPName recognises an MCP tool name in the spellings agents use:
// mcp__SERVER__TOOL (Claude Code, Codex), mcp_SERVER_TOOL (Gemini CLI; the server is taken
// up to the first underscore, since Gemini does not mark the boundary), MCP:TOOL (Cursor's
// preToolUse, server unknown) and mcp:SERVER/TOOL (moat's own).
func ParseMCPName(agent Agent, name string) (MCPTarget, bool) {
	switch {
	case strings.HasPrefix(name, "mcp:"):
		server, tool, ok := strings.Cut(name[len("mcp:"):], "/")
		if !ok || server == "" || tool == "" {
			return MCPTarget{}, false
		}
		return MCPTarget{Server: server, Tool: tool}, true
	case strings.HasPrefix(name, "mcp__"):
		server, tool, ok := strings.Cut(name[len("mcp__"):], "__")
		if !ok || server == "" || tool == "" {
			return MCPTarget{}, false
		}
		return MCPTarget{Server: server, Tool: tool}, true
	case strings.HasPrefix(name, "MCP:") && (agent == Cursor || agent == ""):
		if tool := name[len("MCP:"):]; tool != "" {
			return MCPTarget{Tool: tool}, true
		}
	case strings.HasPrefix(name, "mcp_") && (agent == GeminiCLI || agent == ""):
		server, tool, ok := strings.Cut(name[len("mcp_"):], "_")
		if ok && server != "" && tool != "" {
			return MCPTarget{Server: server, Tool: tool}, true
		}
	}
	return MCPTarget{}, false
}

func classList() string {
	names := make([]string, len(Classes))
	for i, c := range Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}
