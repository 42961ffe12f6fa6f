package call

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestEveryNativeToolCanonicalizes(t *testing.T) {
	seen := map[[2]string]bool{}
	for _, nt := range NativeTools {
		key := [2]string{string(nt.Agent), nt.Name}
		if seen[key] {
			t.Errorf("%s/%s is in the table twice", nt.Agent, nt.Name)
		}
		seen[key] = true
		if _, ok := ParseAgent(string(nt.Agent)); !ok {
			t.Errorf("%s/%s: unknown agent", nt.Agent, nt.Name)
		}
		if _, ok := ParseClass(string(nt.Class)); !ok {
			t.Errorf("%s/%s: unknown class %q", nt.Agent, nt.Name, nt.Class)
		}
		args := nt.ExampleArgs(true)
		c, err := Canonicalize(nt.Agent, nt.Name, args)
		if nt.Unsupported != "" {
			if err == nil {
				t.Errorf("%s/%s is unsupported but canonicalized", nt.Agent, nt.Name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s/%s: %v", nt.Agent, nt.Name, err)
			continue
		}
		if c.Class != nt.Class || c.Tool != nt.Name || c.Agent != nt.Agent {
			t.Errorf("%s/%s: got %+v", nt.Agent, nt.Name, c)
		}
	}
	// The five hooked agents each have a shell tool and a file read tool in the table.
	for _, a := range []Agent{ClaudeCode, Cursor, Windsurf, GeminiCLI, Codex} {
		var shell bool
		for _, nt := range NativeTools {
			shell = shell || (nt.Agent == a && nt.Class == Shell)
		}
		if !shell {
			t.Errorf("%s has no shell tool in the table", a)
		}
	}
}

func TestCanonicalizeArgs(t *testing.T) {
	tests := []struct {
		agent    Agent
		tool     string
		args     string
		class    Class
		wantArgs string
		wantCwd  string
		wantMCP  string
		wantErr  string
	}{
		{ClaudeCode, "Bash", `{"command":"ls","timeout":5}`, Shell, `{"command":"ls","timeout":5}`, "", "", ""},
		{ClaudeCode, "Read", `{"file_path":"/a","offset":1}`, FileRead, `{"offset":1,"path":"/a"}`, "", "", ""},
		{ClaudeCode, "Edit", `{"file_path":"/a","old_string":"x","new_string":"y"}`, FileEdit, `{"new":"y","old":"x","path":"/a"}`, "", "", ""},
		{ClaudeCode, "MultiEdit", `{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}]}`, FileEdit, `{"edits":[{"new":"y","old":"x"}],"path":"/a"}`, "", "", ""},
		{ClaudeCode, "Glob", `{"pattern":"/home/u/.ssh/*"}`, FileSearch, `{"paths":["/home/u/.ssh/*"],"pattern":"/home/u/.ssh/*"}`, "", "", ""},
		{ClaudeCode, "Glob", `{"pattern":"**/*.go","path":"/w"}`, FileSearch, `{"path":"/w","pattern":"**/*.go"}`, "", "", ""},
		{ClaudeCode, "Grep", `{"pattern":"/api/v1"}`, FileSearch, `{"pattern":"/api/v1"}`, "", "", ""},
		{ClaudeCode, "NotebookEdit", `{"notebook_path":"/n.ipynb","new_source":"x"}`, FileEdit, `{"new":"x","path":"/n.ipynb"}`, "", "", ""},
		{ClaudeCode, "mcp__github__create_issue", `{"title":"t"}`, MCP, `{"title":"t"}`, "", "mcp:github/create_issue", ""},
		{ClaudeCode, "mcp__plugin_x_srv__tool", `{}`, MCP, `{}`, "", "mcp:plugin_x_srv/tool", ""},
		{"", "mcp:fs/write_file", `{"path":"/a"}`, MCP, `{"path":"/a"}`, "", "mcp:fs/write_file", ""},
		{GeminiCLI, "run_shell_command", `{"command":"ls","dir_path":"sub"}`, Shell, `{"command":"ls"}`, "sub", "", ""},
		{GeminiCLI, "replace", `{"file_path":"/a","old_string":"x","new_string":"y","instruction":"i"}`, FileEdit, `{"instruction":"i","new":"y","old":"x","path":"/a"}`, "", "", ""},
		{GeminiCLI, "read_many_files", `{"include":["a/*.go"]}`, FileRead, `{"paths":["a/*.go"]}`, "", "", ""},
		{GeminiCLI, "web_fetch", `{"prompt":"summarise https://example.com/a?b=c please"}`, WebFetch, `{"prompt":"summarise https://example.com/a?b=c please","url":"https://example.com/a?b=c"}`, "", "", ""},
		{GeminiCLI, "web_fetch", `{"prompt":"summarise https://example.com/a and https://example.com/a"}`, WebFetch, `{"prompt":"summarise https://example.com/a and https://example.com/a","url":"https://example.com/a"}`, "", "", ""},
		{GeminiCLI, "web_fetch", `{"prompt":"compare https://a.example and https://b.example"}`, "", ``, "", "", "names 2 URLs"},
		{GeminiCLI, "web_fetch", `{"prompt":"summarise the page"}`, "", ``, "", "", "names no http(s) URL"},
		{ClaudeCode, "WebFetch", `{"prompt":"summarise https://example.com/a"}`, "", ``, "", "", `"url": missing`},
		{GeminiCLI, "mcp_github_create_issue", `{}`, MCP, `{}`, "", "mcp:github/create_issue", ""},
		{Windsurf, "pre_run_command", `{"command_line":"npm i","cwd":"/p"}`, Shell, `{"command":"npm i"}`, "/p", "", ""},
		{Windsurf, "pre_write_code", `{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}]}`, FileEdit, `{"edits":[{"new":"y","old":"x"}],"path":"/a"}`, "", "", ""},
		{Windsurf, "pre_mcp_tool_use", `{"mcp_server_name":"gh","mcp_tool_name":"t","mcp_tool_arguments":{"a":1}}`, MCP, `{"a":1}`, "", "mcp:gh/t", ""},
		{Cursor, "beforeMCPExecution", `{"tool_name":"t","tool_input":"{\"a\":1}"}`, MCP, `{"a":1}`, "", "mcp:/t", ""},
		{Cursor, "beforeMCPExecution", `{"tool_name":"t","tool_input":"not json"}`, MCP, ``, "", "", "must be a JSON object or a string holding one"},
		{Cursor, "Shell", `{"command":"ls","working_directory":"/w"}`, Shell, `{"command":"ls"}`, "/w", "", ""},
		{Cursor, "MCP:search", `{}`, MCP, `{}`, "", "mcp:/search", ""},
		{"", "shell", `{"command":"ls"}`, Shell, `{"command":"ls"}`, "", "", ""},
		{"", "mcp", `{}`, "", ``, "", "", "needs a server"},
		{Windsurf, "Bash", `{}`, "", ``, "", "", "windsurf has no tool named"},
		{"", "Frobnicate", `{}`, "", ``, "", "", "unknown tool"},
		{Codex, "apply_patch", `{"command":"*** Begin Patch"}`, "", ``, "", "", "moat hook codex"},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+"/"+tt.tool, func(t *testing.T) {
			var args map[string]any
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			c, err := Canonicalize(tt.agent, tt.tool, args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(c.Args)
			if c.Class != tt.class || string(got) != tt.wantArgs || c.Cwd != tt.wantCwd {
				t.Errorf("got class %s args %s cwd %q", c.Class, got, c.Cwd)
			}
			if tt.wantMCP != "" && (c.MCP == nil || c.MCP.String() != tt.wantMCP) {
				t.Errorf("mcp = %v, want %s", c.MCP, tt.wantMCP)
			}
		})
	}
}

func TestCanonicalizeDoesNotChangeItsInput(t *testing.T) {
	edits := []any{map[string]any{"old_string": "x", "new_string": "y"}}
	args := map[string]any{"file_path": "/a", "edits": edits}
	if _, err := Canonicalize(ClaudeCode, "MultiEdit", args); err != nil {
		t.Fatal(err)
	}
	if _, ok := edits[0].(map[string]any)["old_string"]; !ok || args["file_path"] != "/a" {
		t.Errorf("input changed: %v", args)
	}
}

func TestVerdicts(t *testing.T) {
	var zero Verdict
	if zero.Valid() || zero.Permissive() {
		t.Error("the zero verdict must be neither valid nor permissive")
	}
	if _, err := zero.MarshalText(); err == nil {
		t.Error("an invalid verdict must not encode")
	}
	if Stricter(Allow, 0) != Deny || Stricter(Ask, Audit) != Ask || Stricter(Deny, Allow) != Deny {
		t.Error("Stricter")
	}
	for _, v := range []Verdict{Allow, Audit, Ask, Deny} {
		b, err := v.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Verdict
		if err := back.UnmarshalText(b); err != nil || back != v {
			t.Errorf("round trip %s: %v %v", v, back, err)
		}
	}
	if !(Allow < Audit && Audit < Ask && Ask < Deny) {
		t.Error("verdicts must be ordered by restrictiveness")
	}
}

func TestFindingKinds(t *testing.T) {
	ks := FindingKinds{
		{ID: "a.one", Category: "x", Severity: Low, Taxonomy: "T1", Summary: "one"},
		{ID: "a.two", Category: "y", Severity: Critical, Summary: "two"},
	}
	if k, ok := ks.Lookup("a.two"); !ok || k.ID != "a.two" {
		t.Errorf("Lookup(a.two) = %+v, %v", k, ok)
	}
	if _, ok := ks.Lookup("a"); ok {
		t.Error("Lookup found an id that is not declared")
	}
	want := Finding{ID: "a.one", Category: "x", Severity: Low, Taxonomy: "T1", Evidence: "ev"}
	if f := ks.New("a.one", "ev"); f != want {
		t.Errorf("New(a.one) = %+v, want %+v", f, want)
	}
	if f := ks.New("not.declared", "x"); f.ID != "not.declared" || f.Severity != High || f.Category != "uncatalogued" || f.Evidence != "x" {
		t.Errorf("undeclared finding: %+v", f)
	}
	if k, ok := InputKinds.Lookup(FindTooLarge); !ok || k.Category == "" || k.Summary == "" {
		t.Errorf("InputKinds does not declare %s: %+v", FindTooLarge, k)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestAccessKindText(t *testing.T) {
	for _, k := range AccessKinds {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var got AccessKind
		if err := got.UnmarshalText(b); err != nil || got != k {
			t.Errorf("%s: decoded %v, %v", k, got, err)
		}
	}
	var k AccessKind
	if err := k.UnmarshalText([]byte("frob")); err == nil {
		t.Error("decoded an unknown kind")
	}
}
