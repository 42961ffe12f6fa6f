package hook

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/proc"
)

var update = flag.Bool("update", false, "rewrite the golden answers in testdata/answers")

// answerEvents are, per agent, the tool events whose answers differ: each event the agent
// decides on, and for Claude Code each permission mode, since the mode says whether an
// ask reaches anyone. Payloads are as the agents send them.
var answerEvents = map[call.Agent][]struct{ name, payload string }{
	call.ClaudeCode: {
		{"PreToolUse default", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Write","tool_input":{"file_path":"/w/a","content":"x"}}`},
		{"PreToolUse plan", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"plan","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"PreToolUse acceptEdits", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"acceptEdits","tool_name":"Edit","tool_input":{"file_path":"/w/a","old_string":"a","new_string":"b"}}`},
		{"PreToolUse auto", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"auto","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"PreToolUse dontAsk", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"dontAsk","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"PreToolUse bypassPermissions", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"bypassPermissions","tool_name":"Write","tool_input":{"file_path":"/w/.git/hooks/pre-commit","content":"x"}}`},
		{"PreToolUse without a mode", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`},
	},
	call.GeminiCLI: {
		{"BeforeTool", `{"session_id":"s","cwd":"/w","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`},
	},
	call.Codex: {
		{"PreToolUse default", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"PreToolUse bypassPermissions", `{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls"}}`},
	},
	call.Cursor: {
		{"beforeShellExecution", `{"hook_event_name":"beforeShellExecution","command":"ls","cwd":"/w","workspace_roots":["/w"]}`},
		{"beforeMCPExecution", `{"hook_event_name":"beforeMCPExecution","tool_name":"t","tool_input":"{}","url":"https://m","workspace_roots":["/w"]}`},
		{"beforeReadFile", `{"hook_event_name":"beforeReadFile","file_path":"/w/a","workspace_roots":["/w"]}`},
		{"preToolUse", `{"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"file_path":"/w/a","content":"x"},"cwd":"/w"}`},
	},
	call.Windsurf: {
		{"pre_run_command", `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls","cwd":"/w"}}`},
	},
}

// answerCases are the answers moat gives a tool event: what the policy decided, and how
// the hook command settled it.
var answerCases = []struct {
	name       string
	answer     Answer
	unattended string
}{
	{"allow, no opinion (the default or an allow rule under hooks.allow: defer)", Answer{Verdict: call.Allow, Defer: true, Reason: "moat: allowed (rule default)"}, ""},
	{"allow, explicit (hooks.allow: explicit)", Answer{Verdict: call.Allow, Reason: "moat: build (rule allow-build)"}, ""},
	{"audit, no opinion", Answer{Verdict: call.Audit, Defer: true, Reason: "moat: flagged (rule watch)"}, ""},
	{"ask", Answer{Verdict: call.Ask, Reason: "moat: writes a git hook (rule git-hooks)"}, ""},
	{"ask, unattended (CI=true)", Answer{Verdict: call.Ask, Reason: "moat: writes a git hook (rule git-hooks)"}, "this is a non-interactive run (CI is set)"},
	{"deny", Answer{Verdict: call.Deny, Reason: "moat: deletes the home directory (rule rm-home)"}, ""},
	{"no opinion, with a notice for the user", Answer{Verdict: call.Allow, Defer: true, Notice: "moat: ignoring project policy /w/moat.yaml"}, ""},
	{"deny, with a notice for the user", Answer{Verdict: call.Deny, Reason: "moat: no (rule r)", Notice: "moat: ignoring project policy /w/moat.yaml"}, ""},
}

// TestAnswers renders every answer to every tool event of every agent and compares the
// result with the golden file of the agent, testdata/answers/AGENT.golden; -update
// rewrites them. The goldens are the record of what each agent is told.
func TestAnswers(t *testing.T) {
	for _, ad := range Adapters {
		t.Run(string(ad.Agent()), func(t *testing.T) {
			events := answerEvents[ad.Agent()]
			if len(events) == 0 {
				t.Fatalf("no events for %s in answerEvents", ad.Agent())
			}
			var got bytes.Buffer
			for _, e := range events {
				ev, err := ad.Parse([]byte(e.payload), noEnv)
				if err != nil {
					t.Fatalf("%s: %v", e.name, err)
				}
				for _, c := range answerCases {
					ev.Unattended = c.unattended
					out := ad.Render(ev, c.answer)
					fmt.Fprintf(&got, "## %s | %s\nstdout: %s\nstderr: %s\nexit: %d\n\n", e.name, c.name,
						strings.TrimSuffix(string(out.Stdout), "\n"), strings.TrimSuffix(out.Stderr, "\n"), out.Code)
					checkAnswer(t, ad, ev, c.answer, out)
				}
			}
			golden := filepath.Join("testdata", "answers", string(ad.Agent())+".golden")
			if *update {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("answers differ from %s (run with -update and review the diff):\n%s", golden, got.String())
			}
		})
	}
}

// checkAnswer holds, whatever the goldens say, the rules every answer follows: moat's
// silence is silence, a deny blocks and says why, and an ask is only sent where it holds.
func checkAnswer(t *testing.T, ad Adapter, ev Event, a Answer, out Output) {
	t.Helper()
	stdout := string(out.Stdout)
	switch {
	case a.deferred() && strings.Contains(stdout, `"allow"`):
		t.Errorf("%s %s: no opinion answered an explicit allow: %s", ad.Agent(), ev.Name, stdout)
	case a.deferred() && a.Notice == "" && out.Code == 0 && stdout != "" && stdout != "{}\n":
		t.Errorf("%s %s: no opinion printed %q", ad.Agent(), ev.Name, stdout)
	case a.Verdict == call.Deny && out.Code != 2 && !strings.Contains(stdout, `"deny"`):
		t.Errorf("%s %s: a deny that does not block: %+v", ad.Agent(), ev.Name, out)
	case a.Verdict == call.Deny && !strings.Contains(stdout+out.Stderr, a.Reason):
		t.Errorf("%s %s: a deny without its reason: %+v", ad.Agent(), ev.Name, out)
	}
	if a.Verdict == call.Ask && strings.Contains(stdout, `"ask"`) {
		if ok, _ := ad.AskHolds(ev); !ok || ev.Unattended != "" {
			t.Errorf("%s %s (mode %q): an ask sent where it does not hold: %s", ad.Agent(), ev.Name, ev.Mode, stdout)
		}
	}
}

func TestNonInteractive(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"CI": "true"}, "this is a non-interactive run (CI is set)"},
		{map[string]string{"CI": "1"}, "this is a non-interactive run (CI is set)"},
		{map[string]string{"CI": "false"}, ""},
		{map[string]string{"GITHUB_ACTIONS": "true"}, "this is a non-interactive run (GITHUB_ACTIONS is set)"},
		{map[string]string{"MOAT_NONINTERACTIVE": "1"}, "MOAT_NONINTERACTIVE is set: nobody is there to answer"},
		{map[string]string{"MOAT_NONINTERACTIVE": "TRUE"}, "MOAT_NONINTERACTIVE is set: nobody is there to answer"},
		{map[string]string{"MOAT_NONINTERACTIVE": "0", "CI": "true"}, ""},
	}
	for _, tt := range tests {
		if got := NonInteractive(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestGeminiHeadless: a Gemini CLI above the hook runs headless as Gemini itself decides
// it: -p/--prompt, or no terminal on its standard input or output.
func TestGeminiHeadless(t *testing.T) {
	shell := proc.Info{Args: []string{"/bin/bash", "-c", "moat hook gemini-cli"}}
	gemini := func(stdin, stdout bool, args ...string) proc.Info {
		return proc.Info{Args: append([]string{"node", "/usr/lib/node_modules/@google/gemini-cli/bundle/gemini.js"}, args...), StdinTTY: stdin, StdoutTTY: stdout}
	}
	tests := []struct {
		name      string
		ancestors []proc.Info
		headless  bool
	}{
		{"interactive, in a terminal", []proc.Info{shell, gemini(true, true)}, false},
		{"interactive with a first prompt", []proc.Info{shell, gemini(true, true, "-i", "fix the build")}, false},
		{"-p in a terminal", []proc.Info{shell, gemini(true, true, "-p", "fix the build")}, true},
		{"--prompt=", []proc.Info{gemini(true, true, "--prompt=fix")}, true},
		{"--prompt", []proc.Info{shell, gemini(true, true, "--yolo", "--prompt", "x")}, true},
		{"output piped", []proc.Info{shell, gemini(true, false)}, true},
		{"input piped", []proc.Info{shell, gemini(false, true)}, true},
		{"the gemini command itself", []proc.Info{{Args: []string{"/usr/local/bin/gemini", "-p", "x"}, StdinTTY: true, StdoutTTY: true}}, true},
		{"no Gemini CLI above", []proc.Info{shell, {Args: []string{"go", "test"}}}, false},
		{"-p of another program does not count", []proc.Info{{Args: []string{"python3", "-p", "x"}}}, false},
		{"nothing known", nil, false},
	}
	for _, tt := range tests {
		got := geminiCLI{}.Headless(tt.ancestors)
		if (got != "") != tt.headless {
			t.Errorf("%s: Headless = %q, want headless %v", tt.name, got, tt.headless)
		}
	}
}
