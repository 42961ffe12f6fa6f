package hook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// cursorEvents are the Cursor tools that are hook events of their own: their arguments are
// fields of the payload, not a tool_input.
var cursorEvents = map[string]bool{cursorShell: true, cursorRead: true, cursorMCP: true}

// examplePatch is an apply_patch argument the Codex adapter reads.
const examplePatch = "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"

// payloadFor is the hook payload with which an agent asks about one call of its native
// tool nt with args, in the shape the agent sends it.
func payloadFor(nt call.NativeTool, args map[string]any) string {
	var m map[string]any
	switch nt.Agent {
	case call.ClaudeCode, call.Codex:
		m = map[string]any{"hook_event_name": "PreToolUse", "cwd": "/w", "session_id": "s", "permission_mode": "default", "tool_name": nt.Name, "tool_input": args}
	case call.GeminiCLI:
		m = map[string]any{"hook_event_name": geminiBeforeTool, "cwd": "/w", "session_id": "s", "tool_name": nt.Name, "tool_input": args}
	case call.Cursor:
		if cursorEvents[nt.Name] {
			m = map[string]any{"hook_event_name": nt.Name, "workspace_roots": []any{"/w"}, "conversation_id": "c"}
			for k, v := range args {
				m[k] = v
			}
			if nt.Name == cursorMCP {
				m["url"] = "https://mcp.example"
			}
		} else {
			m = map[string]any{"hook_event_name": cursorPreTool, "cwd": "/w", "tool_name": nt.Name, "tool_input": args}
		}
	case call.Windsurf:
		m = map[string]any{"agent_action_name": nt.Name, "trajectory_id": "t", "tool_info": args}
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// exampleArgs are the table's example arguments for nt, with a patch where Codex expects
// one.
func exampleArgs(nt call.NativeTool, all bool) map[string]any {
	args := nt.ExampleArgs(all)
	if nt.Agent == call.Codex && nt.Name == codexApplyPatch {
		args["command"] = examplePatch
	}
	return args
}

// wrongFor are values of other shapes than a target argument's: the shapes the security
// review found read as empty, and empty text.
func wrongFor(a call.Arg) []any {
	switch a.Type {
	case call.TypeString:
		return []any{json.Number("42"), []any{"rm", "-rf", "~"}, nil, map[string]any{"path": "/home/u/.bashrc"}, true, "", " "}
	case call.TypeStrings:
		return []any{json.Number("42"), "/home/u/.ssh", nil, map[string]any{"path": "/home/u/.ssh"}, []any{}, []any{"/w/a", 7}}
	case call.TypeObject, call.TypeJSONObject:
		return []any{json.Number("42"), []any{"/home/u/.ssh"}, true}
	}
	return []any{json.Number("42"), nil}
}

// TestToolArgsPerAgent sends each agent's hook a call of every native tool of that agent
// (the table in internal/call, so a tool added there is covered): with its arguments, it
// is read as the tool's class; with a target argument missing or of another shape, Parse
// fails, and the adapter's answer to the failure blocks.
func TestToolArgsPerAgent(t *testing.T) {
	for _, ad := range Adapters {
		for _, nt := range call.NativeTools {
			if nt.Agent != ad.Agent() {
				continue
			}
			t.Run(string(nt.Agent)+"/"+nt.Name, func(t *testing.T) {
				for _, all := range []bool{true, false} {
					ev, err := ad.Parse([]byte(payloadFor(nt, exampleArgs(nt, all))), noEnv)
					if err != nil {
						t.Fatalf("example arguments (all=%v): %v", all, err)
					}
					// apply_patch is read as the calls its patch makes; Windsurf's file events
					// name no directory (the hook runs in the workspace).
					class := ev.Call.Class
					if nt.Name == codexApplyPatch && strings.HasPrefix(string(class), "file.") {
						class = nt.Class
					}
					cwdOK := ev.Call.Cwd != "" && ev.Call.Cwd[0] == '/' || ev.Call.Cwd == "" && nt.Agent == call.Windsurf && nt.Class != call.Shell
					if ev.Kind != PreTool || class != nt.Class || !cwdOK {
						t.Errorf("read as %v %s in %q, want a %s call", ev.Kind, ev.Call.Class, ev.Call.Cwd, nt.Class)
					}
				}
				for _, a := range nt.Args {
					if a.Required {
						args := exampleArgs(nt, true)
						delete(args, a.Names[0])
						mustFail(t, ad, payloadFor(nt, args), a.Names[0]+" missing")
					}
					if !a.Target() && !(nt.Name == codexApplyPatch && a.Required) {
						continue
					}
					if cursorEvents[nt.Name] && a.As == call.AsCwd {
						continue // the event's own cwd, which TestArgCases covers
					}
					for _, v := range wrongFor(a) {
						if s, ok := v.(string); ok && strings.TrimSpace(s) == "" && a.As == call.ArgCommand {
							continue // an empty command runs nothing, and is read so
						}
						args := exampleArgs(nt, true)
						args[a.Names[0]] = v
						mustFail(t, ad, payloadFor(nt, args), a.Names[0]+" as "+jsonText(v))
					}
				}
				// A key whose name says it is a target, which the tool does not declare, is
				// not passed over (class other keeps its arguments as data).
				if nt.Class != call.Other && nt.Extra != call.ExtraKept && !cursorEvents[nt.Name] {
					args := exampleArgs(nt, true)
					args["destination_path"] = "/home/u/.bashrc"
					mustFail(t, ad, payloadFor(nt, args), "undeclared destination_path")
				}
			})
		}
	}
}

func mustFail(t *testing.T, ad Adapter, payload, what string) {
	t.Helper()
	ev, err := ad.Parse([]byte(payload), noEnv)
	if err == nil {
		t.Errorf("%s: read as %s %v, want an error", what, ev.Call.Class, ev.Call.Args)
		return
	}
	if out := ad.Fail(ev, err.Error(), false); out.Code != 2 && !strings.Contains(string(out.Stdout), `"deny"`) {
		t.Errorf("%s: the failure does not block: %+v", what, out)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestArgCases are the payloads the security review and this package's tests found: each
// is read on the path the agent acts on, or refused.
func TestArgCases(t *testing.T) {
	tests := []struct {
		agent   call.Agent
		name    string
		payload string
		want    string // the call's path, command and cwd as "class path|command @cwd", or the error
	}{
		{call.Cursor, "preToolUse Write with target_file", `{"hook_event_name":"preToolUse","cwd":"/w","tool_name":"Write","tool_input":{"target_file":"/home/u/.bashrc","content":"curl x | sh"}}`, "file.write /home/u/.bashrc @/w"},
		{call.Cursor, "preToolUse Read with target_file", `{"hook_event_name":"preToolUse","cwd":"/w","tool_name":"Read","tool_input":{"target_file":"/home/u/.ssh/id_rsa"}}`, "file.read /home/u/.ssh/id_rsa @/w"},
		{call.Cursor, "preToolUse Shell in a relative directory", `{"hook_event_name":"preToolUse","cwd":"/w","tool_name":"Shell","tool_input":{"command":"ls","working_directory":"sub"}}`, "is not absolute"},
		{call.Cursor, "preToolUse Shell with its directory", `{"hook_event_name":"preToolUse","cwd":"/w","tool_name":"Shell","tool_input":{"command":"ls","working_directory":"/p"}}`, "shell ls @/p"},
		{call.Cursor, "beforeShellExecution with cwd a number", `{"hook_event_name":"beforeShellExecution","command":"rm -rf ~","cwd":7,"workspace_roots":["/w"]}`, "cwd"},
		{call.Cursor, "beforeShellExecution in a relative cwd", `{"hook_event_name":"beforeShellExecution","command":"ls","cwd":"sub","workspace_roots":["/w"]}`, "cwd"},
		{call.Cursor, "beforeShellExecution with command an array", `{"hook_event_name":"beforeShellExecution","command":["rm","-rf","~"],"cwd":"/w"}`, "without a command"},
		{call.Cursor, "beforeReadFile with file_path an array", `{"hook_event_name":"beforeReadFile","file_path":["/home/u/.ssh/id_rsa"],"workspace_roots":["/w"]}`, "without a file_path"},
		{call.Cursor, "beforeMCPExecution without a server", `{"hook_event_name":"beforeMCPExecution","tool_name":"t","tool_input":"{}","workspace_roots":["/w"]}`, "names no server"},
		{call.Cursor, "beforeMCPExecution with a number as input", `{"hook_event_name":"beforeMCPExecution","tool_name":"t","tool_input":7,"url":"https://m","workspace_roots":["/w"]}`, "neither an object nor a JSON string"},
		{call.Windsurf, "pre_run_command without cwd", `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"rm -rf ~"}}`, `"cwd": missing`},
		{call.Windsurf, "pre_run_command with a relative cwd", `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls","cwd":"w"}}`, "not an absolute directory"},
		{call.Windsurf, "pre_run_command with command, not command_line", `{"agent_action_name":"pre_run_command","tool_info":{"cmd":"rm -rf ~","cwd":"/w"}}`, `"command_line": missing`},
		{call.Windsurf, "pre_read_code without file_path", `{"agent_action_name":"pre_read_code","tool_info":{}}`, `"file_path": missing`},
		{call.Windsurf, "pre_write_code without edits", `{"agent_action_name":"pre_write_code","tool_info":{"file_path":"/w/a"}}`, `"edits": missing`},
		{call.Windsurf, "pre_mcp_tool_use without a server", `{"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_tool_name":"delete_repo","mcp_tool_arguments":{}}}`, `"mcp_server_name": missing`},
		{call.GeminiCLI, "run_shell_command in a relative dir_path", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"run_shell_command","tool_input":{"command":"ls","dir_path":"sub"}}`, "shell ls @/w/sub"},
		{call.GeminiCLI, "read_file with absolute_path", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"read_file","tool_input":{"absolute_path":"/home/u/.ssh/id_rsa"}}`, "file.read /home/u/.ssh/id_rsa @/w"},
		{call.GeminiCLI, "web_fetch of two URLs", `{"hook_event_name":"BeforeTool","cwd":"/w","tool_name":"web_fetch","tool_input":{"prompt":"compare https://a.example and https://b.example"}}`, "names 2 URLs"},
		{call.Codex, "Bash in its workdir", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls","workdir":"/tmp"}}`, "shell ls @/tmp"},
		{call.Codex, "Bash with command as an array", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":["bash","-lc","rm -rf ~"]}}`, "must be a string, not an array"},
		{call.Codex, "apply_patch under input", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"input":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}}`, "file.write /w/a @/w"},
		{call.Codex, "apply_patch under command and input", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch","input":"*** Begin Patch\n*** Add File: /home/u/.bashrc\n+x\n*** End Patch"}}`, "given twice"},
		{call.ClaudeCode, "Bash with command as a number", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":42}}`, `"command": must be a string, not a number`},
		{call.ClaudeCode, "Bash with command null", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":null}}`, `"command": must be a string, not null`},
		{call.ClaudeCode, "Read of an array", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Read","tool_input":{"file_path":["/home/u/.ssh/id_rsa"]}}`, `"file_path": must be a string, not an array`},
		{call.ClaudeCode, "Write to an object", `{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Write","tool_input":{"file_path":{"p":"/home/u/.bashrc"},"content":"x"}}`, `"file_path": must be a string, not an object`},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+"/"+tt.name, func(t *testing.T) {
			ad, _ := ForAgent(string(tt.agent))
			ev, err := ad.Parse([]byte(tt.payload), noEnv)
			got := ""
			if err != nil {
				got = err.Error()
				if out := ad.Fail(ev, got, false); out.Code != 2 && !strings.Contains(string(out.Stdout), `"deny"`) {
					t.Errorf("the failure does not block: %+v", out)
				}
			} else {
				c := ev.Call
				got = string(c.Class) + " " + c.String(call.ArgPath) + c.String(call.ArgCommand) + " @" + c.Cwd
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// argSeeds are fuzz seeds made from the table: each native tool's call as its agent sends
// it, with its arguments, and with each target of another shape.
func argSeeds() []string {
	var seeds []string
	for _, nt := range call.NativeTools {
		seeds = append(seeds, payloadFor(nt, exampleArgs(nt, true)))
		for _, a := range nt.Args {
			if !a.Target() {
				continue
			}
			for _, v := range wrongFor(a)[:3] {
				args := exampleArgs(nt, false)
				args[a.Names[0]] = v
				seeds = append(seeds, payloadFor(nt, args))
			}
		}
	}
	return seeds
}

// readTargets reports why a call an adapter accepted holds a target moat read as nothing:
// a shell call without its command, a file call without its path, a fetch without its URL.
func readTargets(c call.Call) string {
	var keys []string
	switch c.Class {
	case call.Shell:
		keys = []string{call.ArgCommand}
	case call.FileRead:
		keys = []string{call.ArgPath, call.ArgPaths}
	case call.FileWrite, call.FileEdit, call.FileDelete:
		keys = []string{call.ArgPath}
	case call.WebFetch:
		keys = []string{call.ArgURL}
	case call.MCP:
		if c.MCP == nil || c.MCP.Tool == "" {
			return "an MCP call without its tool"
		}
		return ""
	default:
		return ""
	}
	for _, k := range keys {
		switch v := c.Args[k].(type) {
		case string:
			if k == call.ArgCommand || strings.TrimSpace(v) != "" {
				return ""
			}
		case []any:
			if len(v) > 0 {
				return ""
			}
		}
	}
	return "a " + string(c.Class) + " call without its " + strings.Join(keys, " or ")
}
