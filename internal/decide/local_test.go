package decide

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

const testPolicy = `version: 1
default: allow
rules:
  - id: deny-rm
    command: "rm **"
    decision: deny
    reason: no deleting here
  - id: ask-touch
    command: "touch **"
    decision: ask
    reason: touching needs a yes
  - id: allow-echo
    command: "echo **"
    decision: allow
`

// testService is a Local for a fresh HOME with testPolicy in a project directory (a
// repository), returning the service, the policy file and the project.
func testService(t *testing.T, policyText string) (*Local, string, string) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "work", "app")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(home, "policy.yaml")
	if err := os.WriteFile(file, []byte(policyText), 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return NewLocal(Options{Getenv: getenv, Now: func() time.Time { return now }}), file, project
}

func shellCall(t *testing.T, cwd, line string) call.Call {
	t.Helper()
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": line})
	if err != nil {
		t.Fatal(err)
	}
	c.Cwd = cwd
	return c
}

func records(t *testing.T, l *Local) []audit.Record {
	t.Helper()
	d, err := l.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	err = audit.Read(d.AuditLog(), func(r audit.Record) error { out = append(out, r); return nil })
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// Decide: the strictest decision answers for an event's calls, each is recorded with
// the answer form the hook gave, and a call without a project gets its repository's.
func TestDecide(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string
		hook     *HookDelivery
		record   bool
		want     call.Verdict
		wantRule string
		wantForm string
		wantRecs int
	}{
		{"one allowed by default, deferred", []string{"ls"}, &HookDelivery{AskHolds: true}, true, call.Allow, call.RuleDefault, "defer", 1},
		{"an explicit allow still defers", []string{"echo hi"}, &HookDelivery{AskHolds: true}, true, call.Allow, "allow-echo", "defer", 1},
		{"strictest of several", []string{"ls", "rm -rf x", "touch y"}, &HookDelivery{AskHolds: true}, true, call.Deny, "deny-rm", "", 3},
		{"ask that reaches the user", []string{"touch y"}, &HookDelivery{AskHolds: true}, true, call.Ask, "ask-touch", "", 1},
		{"ask nobody can answer", []string{"touch y"}, &HookDelivery{AskHolds: true, Unattended: "CI"}, true, call.Ask, "ask-touch", "deny", 1},
		{"ask the agent drops", []string{"touch y"}, &HookDelivery{}, true, call.Ask, "ask-touch", "deny", 1},
		{"not a hook", []string{"rm -rf x"}, nil, true, call.Deny, "deny-rm", "", 1},
		{"not recorded", []string{"rm -rf x"}, nil, false, call.Deny, "deny-rm", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, file, project := testService(t, testPolicy)
			ctx := context.Background()
			pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
			if err != nil {
				t.Fatal(err)
			}
			sub := filepath.Join(project, "src")
			var calls []call.Call
			for _, line := range tt.lines {
				calls = append(calls, shellCall(t, sub, line))
			}
			res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: calls, Record: tt.record, Hook: tt.hook})
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision.Verdict != tt.want || res.Decision.Rule != tt.wantRule {
				t.Errorf("decision %s (rule %s); want %s (rule %s)", res.Decision.Verdict, res.Decision.Rule, tt.want, tt.wantRule)
			}
			if len(res.Decisions) != len(calls) {
				t.Errorf("%d decisions for %d calls", len(res.Decisions), len(calls))
			}
			for _, c := range res.Calls {
				if c.Project != project {
					t.Errorf("call in %s has project %q; want %q", c.Cwd, c.Project, project)
				}
			}
			if (res.Answer != nil) != (tt.hook != nil) {
				t.Fatalf("answer %+v for hook %+v", res.Answer, tt.hook)
			}
			if res.Answer != nil && res.Answer.Form != tt.wantForm {
				t.Errorf("answer form %q; want %q", res.Answer.Form, tt.wantForm)
			}
			recs := records(t, l)
			if len(recs) != tt.wantRecs {
				t.Fatalf("%d records; want %d", len(recs), tt.wantRecs)
			}
			for _, r := range recs {
				if r.Answer != tt.wantForm || r.Event != "PreToolUse" || r.Policy != pol.Name {
					t.Errorf("record answer %q event %q policy %q; want %q, PreToolUse, %q", r.Answer, r.Event, r.Policy, tt.wantForm, pol.Name)
				}
			}
		})
	}
}

// A policy is compiled once per source and content: the same lookup names the same
// compiled policy, and an edit names another.
func TestLookupCaches(t *testing.T) {
	l, file, project := testService(t, testPolicy)
	ctx := context.Background()
	first, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := l.byKey(first.Key)
	again, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := l.byKey(again.Key)
	if again.Key != first.Key || c1 != c2 {
		t.Errorf("the same policy was compiled twice (keys %s, %s)", first.Key, again.Key)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(testPolicy, "default: allow", "default: deny", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	edited, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	if edited.Key == first.Key {
		t.Fatal("an edited policy kept the key of the old one")
	}
	res, err := l.Decide(ctx, CallRequest{Policy: edited.Key, Calls: []call.Call{shellCall(t, project, "ls")}})
	if err != nil || res.Decision.Verdict != call.Deny {
		t.Errorf("under the edited policy ls is %v (%v); want deny", res.Decision.Verdict, err)
	}
}

// A request naming a policy the service never looked up is an error, never a decision.
func TestDecideUnknownPolicy(t *testing.T) {
	l, _, project := testService(t, testPolicy)
	_, err := l.Decide(context.Background(), CallRequest{Policy: "nope", Calls: []call.Call{shellCall(t, project, "ls")}})
	if !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("err %v; want ErrUnknownPolicy", err)
	}
	if _, err := l.DecideOutput(context.Background(), OutputRequest{Policy: "nope"}); !errors.Is(err, ErrUnknownPolicy) {
		t.Errorf("output: err %v; want ErrUnknownPolicy", err)
	}
}

// Failures are recorded as the fail mode answered them.
func TestRecordFailure(t *testing.T) {
	for _, open := range []bool{false, true} {
		l, _, project := testService(t, testPolicy)
		c := shellCall(t, "", "ls")
		err := l.RecordFailure(context.Background(), Failure{Agent: call.ClaudeCode, Event: "PreToolUse", Call: c, Cwd: project, Reason: "cannot load the policy", Open: open})
		if err != nil {
			t.Fatal(err)
		}
		recs := records(t, l)
		want, rule := call.Deny, call.RuleFailClosed
		if open {
			want, rule = call.Allow, call.RuleFailOpen
		}
		if len(recs) != 1 || !recs[0].Failure || recs[0].Decision != want || recs[0].Rule != rule || recs[0].Cwd != project {
			t.Errorf("open=%v: records %+v", open, recs)
		}
	}
}

// The service's wire types are plain data a socket can carry: no functions, channels or
// compiled policies, and they survive a JSON round trip.
func TestWireTypesArePlainData(t *testing.T) {
	for _, v := range []any{Scope{}, Policy{}, CallRequest{}, CallResult{}, OutputRequest{}, OutputResult{}, PromptRequest{}, Outcome{}, RecordRequest{}, Failure{}} {
		checkPlain(t, reflect.TypeOf(v), reflect.TypeOf(v).Name(), map[reflect.Type]bool{})
	}
	req := CallRequest{Policy: "k", Event: "PreToolUse", Calls: []call.Call{{Agent: call.Codex, Class: call.Shell, Tool: "Bash", Args: map[string]any{"command": "ls"}, Cwd: "/p"}},
		Record: true, Hook: &HookDelivery{Unattended: "CI"}}
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	var back CallRequest
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, req) {
		t.Errorf("round trip changed the request:\n%+v\n%+v", back, req)
	}
}

func checkPlain(t *testing.T, ty reflect.Type, path string, seen map[reflect.Type]bool) {
	if seen[ty] {
		return
	}
	seen[ty] = true
	switch ty.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		t.Errorf("%s is a %s: it cannot cross a socket", path, ty.Kind())
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if ty == reflect.TypeOf(&policy.Policy{}) {
			t.Errorf("%s is a compiled policy: name it by its key", path)
		}
		if ty.Kind() == reflect.Map {
			checkPlain(t, ty.Key(), path+"[key]", seen)
		}
		checkPlain(t, ty.Elem(), path+"[]", seen)
	case reflect.Struct:
		for i := range ty.NumField() {
			f := ty.Field(i)
			if f.IsExported() {
				checkPlain(t, f.Type, path+"."+f.Name, seen)
			}
		}
	}
}
