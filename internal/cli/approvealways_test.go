package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
)

// heldID holds command as Codex's ask and returns the approval's ID.
func heldID(t *testing.T, a *app, stdout *bytes.Buffer, project, command string) string {
	t.Helper()
	if decision, reason := codexHook(t, a, stdout, project, command); decision != "deny" || !strings.Contains(reason, "moat approve ") {
		t.Fatalf("Codex's ask of %q: %s %q", command, decision, reason)
	}
	stdout.Reset()
	if code := Main([]string{"approvals", "--json"}, a.env); code != 0 {
		t.Fatalf("approvals: exit %d", code)
	}
	var list []approval.Listed
	if err := json.Unmarshal([]byte(stdout.String()), &list); err != nil {
		t.Fatal(err)
	}
	for _, l := range list {
		if l.State == approval.Pending && l.Calls[0] == "Bash: "+command {
			return l.ID
		}
	}
	t.Fatalf("no pending approval of %q in %+v", command, list)
	return ""
}

// TestApproveAlways: --always writes an exact allow rule with its test into the user's
// own policy (created from the template when there is none), lets the waiting retry
// through, and from then on the identical call is allowed by the rule while a call that
// differs is still held; --dry-run writes nothing; a refused approver writes nothing.
func TestApproveAlways(t *testing.T) {
	a, stdout, stderr, _, project := approvalApp(t)
	d, _ := a.dirs()
	const cmd = "git reset --hard HEAD~1"
	id := heldID(t, a, stdout, project, cmd)

	stdout.Reset()
	if err := a.approveAlways(t.Context(), id, true, terminalLineage); err != nil {
		t.Fatalf("--always --dry-run: %v", err)
	}
	if _, err := os.Stat(d.UserPolicy()); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote the policy (%v)", err)
	}
	for _, want := range []string{"+  - id: fix-allow-", "command: \"" + cmd + "\"", "a new user policy", "dry run: nothing was written"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--dry-run does not show %q:\n%s", want, stdout)
		}
	}

	if err := a.approveAlways(t.Context(), id, false, agentLineage); !strings.Contains(errorText(err), "inside Codex") {
		t.Fatalf("--always from under Codex: %v", err)
	}
	if _, err := os.Stat(d.UserPolicy()); !os.IsNotExist(err) {
		t.Fatalf("a refused --always wrote the policy (%v)", err)
	}

	stdout.Reset()
	if err := a.approveAlways(t.Context(), id, false, terminalLineage); err != nil {
		t.Fatalf("--always: %v (%s)", err, stderr)
	}
	text, err := os.ReadFile(d.UserPolicy())
	if err != nil || !strings.Contains(string(text), "fix-allow-") || !strings.Contains(string(text), "approval "+id) {
		t.Fatalf("the user policy after --always (%v):\n%s", err, text)
	}
	if !strings.Contains(stdout.String(), "wrote "+d.UserPolicy()) || !strings.Contains(stdout.String(), id+" approved once") {
		t.Errorf("--always said:\n%s", stdout)
	}
	for range 2 {
		if decision, reason := codexHook(t, a, stdout, project, cmd); decision == "deny" {
			t.Fatalf("the call approved for good was refused: %q", reason)
		}
	}
	if decision, _ := codexHook(t, a, stdout, project, cmd+" "); decision != "deny" {
		t.Errorf("a call with another argument went ahead: %q", decision)
	}
	var events []string
	var always string
	audit.Read(d.AuditLog(), func(r audit.Record) error {
		if strings.HasPrefix(r.Event, "approval") {
			events = append(events, r.Event)
		}
		if r.Event == "approval always" {
			always = r.Reason
		}
		return nil
	})
	if got := strings.Join(events, ","); got != "approval refused,approval always,approval once" || !strings.Contains(always, "by uid 1000") {
		t.Errorf("approval records: %s; --always recorded %q", got, always)
	}
}

// An approval kept without its call (too large) cannot become a rule, and says what to
// do instead.
func TestApproveAlwaysWithoutDetail(t *testing.T) {
	a, _, _, _, _ := approvalApp(t)
	d, _ := a.dirs()
	store := a.approvalQueue().Store(d)
	l, _, err := store.Queue(approval.Entry{Hash: strings.Repeat("ab", 32), Calls: []string{"Write: big"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.approveAlways(t.Context(), l.ID, false, terminalLineage); !strings.Contains(errorText(err), "moat fix") {
		t.Errorf("--always without the call: %v", err)
	}
}
