package decide

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/call"
)

// approvalService is testService with an approval queue, counting its notifications.
func approvalService(t *testing.T, policyText string) (*Local, *approval.Queue, *int, string, string) {
	t.Helper()
	l, file, project := testService(t, policyText)
	notified := new(int)
	q := &approval.Queue{Now: l.opts.Now, Notify: func(approval.Listed) { *notified++ }}
	l.opts.Approvals = q
	return l, q, notified, file, project
}

func TestApprovals(t *testing.T) {
	l, q, notified, file, project := approvalService(t, testPolicy)
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := l.Dirs()
	codex := &HookDelivery{} // Codex: an ask cannot reach the user
	decide := func(line string, record bool, hook *HookDelivery) CallResult {
		t.Helper()
		res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{shellCall(t, project, line)}, Record: record, Hook: hook})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// Not recorded: the policy's answer, and no state.
	res := decide("touch y", false, codex)
	if res.Held != nil || res.Answer.Form != "deny" || res.Decision.Verdict != call.Ask {
		t.Fatalf("unrecorded ask: held %+v, answer %+v", res.Held, res.Answer)
	}
	if _, err := os.Stat(approval.Path(d)); !os.IsNotExist(err) {
		t.Fatalf("an unrecorded request wrote the queue: %v", err)
	}

	// Recorded: held, refused with how to approve, notified once.
	res = decide("touch y", true, codex)
	if res.Held == nil || res.Held.State != approval.Pending {
		t.Fatalf("ask from an agent that cannot ask: held %+v", res.Held)
	}
	id := res.Held.ID
	if res.Answer.Verdict != call.Deny || !strings.Contains(res.Answer.Reason, "moat approve "+id) || !strings.Contains(res.Answer.Reason, "touching needs a yes") {
		t.Errorf("answer %+v; want a deny naming moat approve %s and the policy's reason", res.Answer, id)
	}
	if res.Decision.Verdict != call.Ask || res.Decision.Rule != "ask-touch" {
		t.Errorf("decision %+v; the policy's ask stays the decision on record", res.Decision)
	}
	recs := records(t, l)
	if r := recs[len(recs)-1]; r.Decision != call.Ask || r.Answer != "deny" || !strings.Contains(r.Reason, id) {
		t.Errorf("record %+v", r)
	}
	if again := decide("touch y", true, codex); again.Held == nil || again.Held.ID != id || *notified != 1 {
		t.Errorf("retry before approval: held %+v, %d notifications; want the same approval, one notification", again.Held, *notified)
	}
	other := decide("touch z", true, codex)
	if other.Held == nil || other.Held.ID == id || *notified != 2 {
		t.Errorf("a call with another argument: held %+v; want an approval of its own", other.Held)
	}

	// Approved once: the identical recorded call goes ahead once.
	if _, err := q.Store(d).Answer(id, approval.Once, "uid 1, pid 2 (terminal)"); err != nil {
		t.Fatal(err)
	}
	if res := decide("touch y", false, codex); res.Decision.Verdict != call.Ask {
		t.Errorf("an unrecorded request used the grant: %+v", res.Decision)
	}
	res = decide("touch y", true, codex)
	if res.Decision.Verdict != call.Allow || res.Decision.Rule != RuleApproved || res.Held != nil || !strings.Contains(res.Decision.Reason, "uid 1, pid 2") {
		t.Fatalf("approved retry: %+v held %+v", res.Decision, res.Held)
	}
	if res.Answer.Verdict != call.Allow {
		t.Errorf("approved retry answered %+v", res.Answer)
	}
	if res := decide("touch y", true, codex); res.Held == nil || res.Decision.Verdict != call.Ask {
		t.Errorf("second retry after a once grant: %+v; want held again", res.Decision)
	}
	if res := decide("touch z", true, codex); res.Held == nil {
		t.Errorf("the other call was let through by the first one's grant")
	}

	// For the session: every identical call.
	if _, err := q.Store(d).Answer(other.Held.ID, approval.Session, "me"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if res := decide("touch z", true, codex); res.Decision.Rule != RuleApproved {
			t.Fatalf("session grant: %+v", res.Decision)
		}
	}

	// Denied by the user: refused without asking again.
	id = decide("touch w", true, codex).Held.ID
	q.Store(d).Answer(id, approval.Denied, "me")
	if res := decide("touch w", true, codex); res.Held == nil || res.Held.State != approval.Denied || !strings.Contains(res.Answer.Reason, "denied this call") {
		t.Errorf("denied call: held %+v, answer %+v", res.Held, res.Answer)
	}
}

// Only asks can be approved: a grant bound to a denied call changes nothing.
func TestApprovalNeverAllowsADeny(t *testing.T) {
	l, q, _, file, project := approvalService(t, testPolicy)
	ctx := context.Background()
	pol, _ := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	d, _ := l.Dirs()
	c := shellCall(t, project, "rm -rf x")
	c.Project = project
	hash, _ := approval.Key([]call.Call{c})
	listed, _, err := q.Store(d).Queue(approval.Entry{Hash: hash})
	if err != nil {
		t.Fatal(err)
	}
	q.Store(d).Answer(listed.ID, approval.Session, "me")
	res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{c}, Record: true, Hook: &HookDelivery{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Verdict != call.Deny || res.Decision.Rule != "deny-rm" {
		t.Errorf("a denied call with a grant: %+v", res.Decision)
	}
}

func TestApprovalQueueModes(t *testing.T) {
	tests := []struct {
		mode       string
		hook       *HookDelivery
		unattended string
		held       bool
	}{
		{"unattended", &HookDelivery{AskHolds: true}, "", false},
		{"unattended", &HookDelivery{AskHolds: true, Unattended: "CI"}, "", true},
		{"unattended", nil, "", false},
		{"always", &HookDelivery{AskHolds: true}, "", true},
		{"always", nil, "", true},
		{"never", &HookDelivery{}, "", false},
		{"never", &HookDelivery{AskHolds: true, Unattended: "CI"}, "", false},
		{"unattended", nil, "MCP clients cannot show moat's questions", true},
		{"never", nil, "MCP clients cannot show moat's questions", false},
	}
	for _, tt := range tests {
		l, _, _, file, project := approvalService(t, testPolicy+"approvals: {queue: "+tt.mode+"}\n")
		ctx := context.Background()
		pol, err := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
		if err != nil {
			t.Fatal(err)
		}
		res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{shellCall(t, project, "touch y")}, Record: true, Hook: tt.hook, Unattended: tt.unattended})
		if err != nil {
			t.Fatal(err)
		}
		if (res.Held != nil) != tt.held {
			t.Errorf("queue %s, hook %+v: held %+v, want held %v", tt.mode, tt.hook, res.Held, tt.held)
		}
		if !tt.held && res.Decision.Verdict != call.Ask {
			t.Errorf("queue %s, hook %+v: %+v, want the ask unchanged", tt.mode, tt.hook, res.Decision)
		}
	}
}

// A queue that cannot be read grants nothing and holds nothing: the ask is answered as
// it was before approvals, said why.
func TestApprovalQueueUnreadable(t *testing.T) {
	l, _, _, file, project := approvalService(t, testPolicy)
	ctx := context.Background()
	pol, _ := l.Lookup(ctx, Scope{Flag: file, Cwd: project})
	d, _ := l.Dirs()
	os.MkdirAll(d.State, 0o700)
	os.WriteFile(filepath.Join(d.State, approval.File), []byte("{garbage"), 0o600)
	res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Calls: []call.Call{shellCall(t, project, "touch y")}, Record: true, Hook: &HookDelivery{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Held != nil || res.Decision.Verdict != call.Ask || res.Answer.Form != "deny" || !strings.Contains(res.Decision.Reason, "approval queue could not be read") {
		t.Errorf("unreadable queue: held %+v, decision %+v, answer %+v", res.Held, res.Decision, res.Answer)
	}
}
