package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/policy"
)

// brokenService finds a policy but cannot decide under it, as a daemon that went away
// between two requests; failures are recorded by the embedded service.
type brokenService struct {
	decide.Service
	fail policy.FailMode
}

func (b brokenService) Lookup(context.Context, decide.Scope) (decide.Policy, error) {
	return decide.Policy{Name: "remote.yaml", Fail: b.fail, Hooks: policy.DefaultHooks}, nil
}

func (brokenService) Decide(context.Context, decide.CallRequest) (decide.CallResult, error) {
	return decide.CallResult{}, errors.New("the daemon went away")
}

func (brokenService) DecideOutput(context.Context, decide.OutputRequest) (decide.OutputResult, error) {
	return decide.OutputResult{}, errors.New("the daemon went away")
}

// A hook whose decision service fails answers with the policy's fail mode, never with
// an allow the policy did not give, and records the failure.
func TestHookServiceFailure(t *testing.T) {
	tests := []struct {
		name     string
		fail     policy.FailMode
		payload  string
		wantDeny bool
		wantRule string
	}{
		{"tool call, fail closed", policy.FailClosed,
			`{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, true, call.RuleFailClosed},
		{"tool call, fail open", policy.FailOpen,
			`{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, false, call.RuleFailOpen},
		{"tool output, fail closed", policy.FailClosed,
			`{"session_id":"s","cwd":"/","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"x"}}`, true, call.RuleFailClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, _ := guardApp(t, guardPolicy, nil)
			a.env.Stdin = strings.NewReader(tt.payload)
			ad, _ := hook.ForAgent("claude-code")
			out, finish := a.answerHookWith(context.Background(), ad, "", brokenService{Service: a.local(nil), fail: tt.fail})
			finish()
			denied := out.Code == 2 || strings.Contains(string(out.Stdout), `"deny"`) || strings.Contains(string(out.Stdout), `"block"`)
			if denied != tt.wantDeny || !strings.Contains(string(out.Stdout)+out.Stderr, "the daemon went away") {
				t.Errorf("answer: exit %d, stdout %s, stderr %q; want deny=%v saying why", out.Code, out.Stdout, out.Stderr, tt.wantDeny)
			}
			d, err := dirs.FromEnv(a.env.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			log, err := os.ReadFile(d.AuditLog())
			if err != nil || !strings.Contains(string(log), `"failure":true`) || !strings.Contains(string(log), `"rule":"`+tt.wantRule+`"`) {
				t.Errorf("the failure is not recorded as %s (%v):\n%s", tt.wantRule, err, log)
			}
		})
	}
}
