package call

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// NativeTool describes how one agent names a tool (or a hook event that stands for one) and
// how its arguments map onto the canonical keys of its class.
type NativeTool struct {
	Agent Agent
	Name  string
	Class Class
	// Rename maps native argument keys to canonical ones; other keys are kept as they are.
	Rename map[string]string
	// CwdKey is the native argument that holds the working directory, if any.
	CwdKey string
	// MCPServerKey, MCPToolKey and MCPArgsKey locate the server, tool and arguments of an
	// MCP call that arrives as a hook event rather than under an mcp__ tool name.
	MCPServerKey, MCPToolKey, MCPArgsKey string
	// PatternIsPath marks search tools whose pattern is a path glob (Glob, not Grep): an
	// absolute or ~ pattern names where the search reads, whatever the path argument says.
	PatternIsPath bool
	// Unsupported, when set, says why this tool cannot be turned into one canonical call
	// here (for example apply_patch, which the Codex hook splits into one call per file).
	Unsupported string
}

var (
	renamePath   = map[string]string{"file_path": ArgPath}
	renameEdit   = map[string]string{"file_path": ArgPath, "old_string": ArgOld, "new_string": ArgNew}
	renameSearch = map[string]string{"dir_path": ArgPath}
)

// NativeTools is the table of every native tool name moat understands, per agent. Names
// absent from it are refused by Canonicalize unless the caller asks for class other, so that
// a misspelt tool is an error rather than a call that slips past every rule.
var NativeTools = []NativeTool{
	// Claude Code: PreToolUse tool_name values.
	{Agent: ClaudeCode, Name: "Bash", Class: Shell},
	{Agent: ClaudeCode, Name: "Read", Class: FileRead, Rename: renamePath},
	{Agent: ClaudeCode, Name: "Write", Class: FileWrite, Rename: renamePath},
	{Agent: ClaudeCode, Name: "Edit", Class: FileEdit, Rename: renameEdit},
	{Agent: ClaudeCode, Name: "MultiEdit", Class: FileEdit, Rename: renamePath},
	{Agent: ClaudeCode, Name: "NotebookEdit", Class: FileEdit, Rename: map[string]string{"notebook_path": ArgPath, "new_source": ArgNew}},
	{Agent: ClaudeCode, Name: "Glob", Class: FileSearch, PatternIsPath: true},
	{Agent: ClaudeCode, Name: "Grep", Class: FileSearch},
	{Agent: ClaudeCode, Name: "LS", Class: FileSearch},
	{Agent: ClaudeCode, Name: "WebFetch", Class: WebFetch},
	// PowerShell syntax is not POSIX shell; analysing it as shell would misread it, so it is
	// decided by native name until moat has a PowerShell analyser.
	{Agent: ClaudeCode, Name: "PowerShell", Class: Other},
	{Agent: ClaudeCode, Name: "WebSearch", Class: Other},
	{Agent: ClaudeCode, Name: "Agent", Class: Other},
	{Agent: ClaudeCode, Name: "Task", Class: Other},
	{Agent: ClaudeCode, Name: "TodoWrite", Class: Other},
	{Agent: ClaudeCode, Name: "AskUserQuestion", Class: Other},
	{Agent: ClaudeCode, Name: "ExitPlanMode", Class: Other},
	{Agent: ClaudeCode, Name: "Skill", Class: Other},
	{Agent: ClaudeCode, Name: "BashOutput", Class: Other},
	{Agent: ClaudeCode, Name: "KillShell", Class: Other},

	// Cursor: hook events that stand for a tool, and preToolUse tool types.
	{Agent: Cursor, Name: "beforeShellExecution", Class: Shell, CwdKey: "cwd"},
	{Agent: Cursor, Name: "beforeReadFile", Class: FileRead, Rename: renamePath},
	{Agent: Cursor, Name: "beforeMCPExecution", Class: MCP, MCPToolKey: "tool_name", MCPArgsKey: "tool_input"},
	{Agent: Cursor, Name: "Shell", Class: Shell, CwdKey: "working_directory"},
	{Agent: Cursor, Name: "Read", Class: FileRead, Rename: renamePath},
	{Agent: Cursor, Name: "Write", Class: FileWrite, Rename: renamePath},
	{Agent: Cursor, Name: "Delete", Class: FileDelete, Rename: renamePath},
	{Agent: Cursor, Name: "Grep", Class: FileSearch},
	{Agent: Cursor, Name: "Task", Class: Other},

	// Windsurf: pre-hook events; the arguments are the event's tool_info.
	{Agent: Windsurf, Name: "pre_run_command", Class: Shell, Rename: map[string]string{"command_line": ArgCommand}, CwdKey: "cwd"},
	{Agent: Windsurf, Name: "pre_read_code", Class: FileRead, Rename: renamePath},
	{Agent: Windsurf, Name: "pre_write_code", Class: FileEdit, Rename: renamePath},
	{Agent: Windsurf, Name: "pre_mcp_tool_use", Class: MCP, MCPServerKey: "mcp_server_name", MCPToolKey: "mcp_tool_name", MCPArgsKey: "mcp_tool_arguments"},

	// Gemini CLI: BeforeTool tool_name values.
	{Agent: GeminiCLI, Name: "run_shell_command", Class: Shell, CwdKey: "dir_path"},
	{Agent: GeminiCLI, Name: "read_file", Class: FileRead, Rename: renamePath},
	{Agent: GeminiCLI, Name: "read_many_files", Class: FileRead, Rename: map[string]string{"include": ArgPaths}},
	{Agent: GeminiCLI, Name: "write_file", Class: FileWrite, Rename: renamePath},
	{Agent: GeminiCLI, Name: "replace", Class: FileEdit, Rename: renameEdit},
	{Agent: GeminiCLI, Name: "glob", Class: FileSearch, Rename: renameSearch, PatternIsPath: true},
	{Agent: GeminiCLI, Name: "grep_search", Class: FileSearch, Rename: renameSearch},
	{Agent: GeminiCLI, Name: "search_file_content", Class: FileSearch, Rename: renameSearch},
	{Agent: GeminiCLI, Name: "list_directory", Class: FileSearch, Rename: renameSearch},
	{Agent: GeminiCLI, Name: "web_fetch", Class: WebFetch},
	{Agent: GeminiCLI, Name: "google_web_search", Class: Other},
	{Agent: GeminiCLI, Name: "save_memory", Class: Other},
	{Agent: GeminiCLI, Name: "write_todos", Class: Other},

	// Codex: PreToolUse tool_name values.
	{Agent: Codex, Name: "Bash", Class: Shell},
	{Agent: Codex, Name: "apply_patch", Class: FileEdit, Unsupported: "apply_patch edits several files at once; `moat hook codex` splits it into one call per file"},
	{Agent: Codex, Name: "update_plan", Class: Other},
	{Agent: Codex, Name: "spawn_agent", Class: Other},
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
// mcp:srv/tool). An unknown name is an error. Cwd is taken from the arguments when the
// native tool carries one, as given; the caller resolves it.
func Canonicalize(agent Agent, tool string, args map[string]any) (Call, error) {
	c := Call{Agent: agent, Tool: tool, Args: make(map[string]any, len(args))}
	if class, ok := ParseClass(tool); ok {
		c.Class = class
		for k, v := range args {
			c.Args[k] = v
		}
		if class == MCP {
			return c, fmt.Errorf("tool %q needs a server and tool name: write mcp:SERVER/TOOL", tool)
		}
		finishArgs(&c)
		return c, nil
	}
	if target, ok := ParseMCPName(agent, tool); ok {
		c.Class = MCP
		c.MCP = &target
		for k, v := range args {
			c.Args[k] = v
		}
		return c, nil
	}
	nt, ok := LookupTool(agent, tool)
	if !ok {
		if agent != "" {
			if _, elsewhere := LookupTool("", tool); elsewhere {
				return c, fmt.Errorf("%s has no tool named %q", agent, tool)
			}
		}
		return c, fmt.Errorf("unknown tool %q: not a class (%s), a native tool name moat knows, or an MCP tool name", tool, classList())
	}
	if nt.Unsupported != "" {
		return c, fmt.Errorf("tool %q: %s", tool, nt.Unsupported)
	}
	c.Class = nt.Class
	if nt.Class == MCP {
		return c, canonicalizeMCPEvent(&c, nt, args)
	}
	for k, v := range args {
		if k == nt.CwdKey {
			if s, ok := v.(string); ok {
				c.Cwd = s
			}
			continue
		}
		if to, ok := nt.Rename[k]; ok {
			k = to
		}
		c.Args[k] = v
	}
	if nt.PatternIsPath {
		if p, _ := c.Args[ArgPattern].(string); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			c.Args[ArgPaths] = []any{p}
		}
	}
	finishArgs(&c)
	return c, nil
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

func canonicalizeMCPEvent(c *Call, nt NativeTool, args map[string]any) error {
	server, _ := args[nt.MCPServerKey].(string)
	tool, _ := args[nt.MCPToolKey].(string)
	if tool == "" {
		return fmt.Errorf("%s: missing MCP tool name in %q", nt.Name, nt.MCPToolKey)
	}
	c.MCP = &MCPTarget{Server: server, Tool: tool}
	switch a := args[nt.MCPArgsKey].(type) {
	case nil:
	case map[string]any:
		c.Args = a
	case string:
		// Cursor documents tool_input as a JSON string.
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(a))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return fmt.Errorf("%s: %q is not a JSON object: %w", nt.Name, nt.MCPArgsKey, err)
		}
		c.Args = m
	default:
		return fmt.Errorf("%s: %q must be an object", nt.Name, nt.MCPArgsKey)
	}
	return nil
}

// urlInText finds a URL in free text. It is compiled on first use: only a web fetch that
// carries its URL in a prompt needs it, and every process that imports call would pay.
var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://[^\s<>"'()\[\]{}]+`)
})

// finishArgs fills canonical keys that native tools spell in nested or free-form ways.
func finishArgs(c *Call) {
	if edits, ok := c.Args[ArgEdits].([]any); ok {
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
	if c.Class == WebFetch {
		if _, ok := c.Args[ArgURL]; !ok {
			// Gemini's web_fetch carries its URLs inside the prompt text.
			if p, ok := c.Args["prompt"].(string); ok {
				if u := urlInText().FindString(p); u != "" {
					c.Args[ArgURL] = u
				}
			}
		}
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
