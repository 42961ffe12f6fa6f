package hook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

var moatDecodeTests = []struct {
	name    string
	line    string
	wantErr string
	class   call.Class
}{
	{"shell", `{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash","args":{"command":"ls"},"cwd":"/w","session":"s"}`, "", call.Shell},
	{"class name", `{"version":1,"tool":"file.read","args":{"path":"/etc/hosts"},"cwd":"/w"}`, "", call.FileRead},
	{"mcp", `{"version":1,"tool":"mcp__gh__create","args":{"n":12345678901234567890},"cwd":"/w"}`, "", call.MCP},
	{"other", `{"version":1,"tool":"Mystery","class":"other","cwd":"/w"}`, "", call.Other},
	{"gemini dir_path is relative to cwd", `{"version":1,"agent":"gemini-cli","tool":"run_shell_command","args":{"command":"ls","dir_path":"sub"},"cwd":"/w"}`, "", call.Shell},
	{"null args", `{"version":1,"tool":"Bash","args":null,"cwd":"/w"}`, `Bash argument "command": missing`, ""},
	{"mistyped command", `{"version":1,"tool":"Bash","args":{"command":["rm","-rf","/"]},"cwd":"/w"}`, `"command": must be a string, not an array`, ""},
	{"not json", `{nope`, "malformed request", ""},
	{"not an object", `[1,2]`, "a request is a JSON object", ""},
	{"trailing data", `{"version":1} {}`, "malformed request", ""},
	{"duplicate key", `{"version":1,"tool":"Bash","tool":"Read","cwd":"/w"}`, `duplicate key "tool"`, ""},
	{"case variant", `{"version":1,"tool":"Bash","Tool":"Read","cwd":"/w"}`, "letter case", ""},
	{"lone case variant", `{"version":1,"TOOL":"Bash","cwd":"/w"}`, `unknown field "TOOL"`, ""},
	{"unknown field", `{"version":1,"tool":"Bash","cwd":"/w","extra":1}`, `unknown field "extra"`, ""},
	{"invalid utf-8", "{\"version\":1,\"tool\":\"Bash\",\"args\":{\"command\":\"ls \xff\"},\"cwd\":\"/w\"}", "UTF-8", ""},
	{"args not object", `{"version":1,"tool":"Bash","args":"ls","cwd":"/w"}`, `field "args" must be an object`, ""},
	{"version type", `{"version":"1","tool":"Bash","cwd":"/w"}`, `field "version": expected a number`, ""},
	{"wrong version", `{"version":2,"tool":"Bash","cwd":"/w"}`, "version must be 1", ""},
	{"missing version", `{"tool":"Bash","cwd":"/w"}`, "version must be 1, not 0", ""},
	{"event", `{"version":1,"event":"session_start","tool":"Bash","cwd":"/w"}`, `unknown event "session_start"`, ""},
	{"agent", `{"version":1,"agent":"claude","tool":"Bash","cwd":"/w"}`, `unknown agent "claude"`, ""},
	{"no tool", `{"version":1,"cwd":"/w"}`, "missing tool", ""},
	{"unknown tool", `{"version":1,"tool":"Mystery","cwd":"/w"}`, `unknown tool "Mystery"`, ""},
	{"bad class", `{"version":1,"tool":"Bash","class":"shell","cwd":"/w"}`, `class may only be "other"`, ""},
	{"no cwd", `{"version":1,"tool":"Bash"}`, "cwd must be an absolute path", ""},
	{"relative cwd", `{"version":1,"tool":"Bash","cwd":"w"}`, "cwd must be an absolute path", ""},
	{"relative project", `{"version":1,"tool":"Bash","cwd":"/w","project":"p"}`, "project must be an absolute path", ""},
}

func TestDecodeMoatAndCall(t *testing.T) {
	for _, tt := range moatDecodeTests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeMoat([]byte(tt.line))
			var c call.Call
			if err == nil {
				c, err = req.Call()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Class != tt.class {
				t.Errorf("class = %s, want %s", c.Class, tt.class)
			}
		})
	}
}

func TestDecodeMoatDetails(t *testing.T) {
	req, err := DecodeMoat([]byte(`{"version":1,"agent":"gemini-cli","tool":"run_shell_command","args":{"command":"ls","dir_path":"sub","n":12345678901234567890},"cwd":"/w","session":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := req.Call()
	if err != nil {
		t.Fatal(err)
	}
	if c.Cwd != "/w/sub" || c.Session != "s" || c.Agent != call.GeminiCLI {
		t.Errorf("call = %+v", c)
	}
	if n, ok := c.Args["n"].(json.Number); !ok || n.String() != "12345678901234567890" {
		t.Errorf("numbers must keep their text: %#v", c.Args["n"])
	}
	if _, err := DecodeMoat([]byte(`{"version":1,"tool":"Bash","args":{"command":"` + strings.Repeat("a", MaxMoatRequest) + `"},"cwd":"/w"}`)); err == nil {
		t.Error("an oversized request must be refused")
	}
}

func TestNewMoatResponse(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "SECRET", "[REDACTED]") }
	r := NewMoatResponse(call.Decision{Verdict: call.Allow, Rule: "default", Latency: 1500 * time.Nanosecond}, redact)
	b, _ := json.Marshal(r)
	if string(b) != `{"decision":"allow","reason":null,"rule":"default","findings":[],"latency_ms":0.0015}` {
		t.Errorf("allow: %s", b)
	}
	r = NewMoatResponse(call.Decision{Verdict: call.Deny, Rule: "r", Reason: "has SECRET",
		Findings: []call.Finding{findings.New("shell.parse-error", "near SECRET")}}, redact)
	b, _ = json.Marshal(r)
	if strings.Contains(string(b), "SECRET") || !strings.Contains(string(b), `"reason":"has [REDACTED]"`) {
		t.Errorf("deny: %s", b)
	}
}

func FuzzDecodeMoat(f *testing.F) {
	for _, tt := range moatDecodeTests {
		f.Add([]byte(tt.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeMoat(line)
		if err != nil {
			return
		}
		c, err := req.Call()
		if err != nil {
			return
		}
		if _, ok := call.ParseClass(string(c.Class)); !ok {
			t.Fatalf("accepted request with class %q", c.Class)
		}
		if c.Cwd == "" || c.Cwd[0] != '/' {
			t.Fatalf("accepted request with cwd %q", c.Cwd)
		}
		if c.Class == call.MCP && c.MCP == nil {
			t.Fatal("mcp call without target")
		}
	})
}
