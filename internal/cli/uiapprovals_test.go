package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/dashboard"
)

// dashboardClient serves a dashboard over approvals for the test and returns a function
// doing requests as its logged-in page does, CSRF header included.
func dashboardClient(t *testing.T, approvals dashboard.Approvals) func(method, path string, body any) (int, []byte) {
	t.Helper()
	s := dashboard.New(dashboard.Options{Approvals: approvals})
	ts := httptest.NewUnstartedServer(s)
	if err := s.Bind(ts.Listener.Addr()); err != nil {
		t.Fatal(err)
	}
	ts.Start()
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	u, _, err := s.NewLogin()
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var info struct{ CSRF string }
	res, err = c.Get(ts.URL + "/api/session")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&info)
	res.Body.Close()
	if info.CSRF == "" {
		t.Fatal("no CSRF token after login")
	}
	return func(method, path string, body any) (int, []byte) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(b))
		req.Header.Set(dashboard.CSRFHeader, info.CSRF)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		return res.StatusCode, data
	}
}

// The dashboard answers a held call as moat approve does, through the daemon's adapter:
// once lets the identical retry through, a deny refuses it, and always shows the rule
// first (writing nothing), then writes it into the user's own policy of the fake HOME,
// grants the waiting call once and records both, as moat approve --always does.
func TestDashboardAnswersApprovals(t *testing.T) {
	a, stdout, _, _, project := approvalApp(t)
	d, _ := a.dirs()
	hub := dashboard.NewHub()
	changed := hub.Changed()
	q := &uiApprovals{app: a, write: a.appendAudit(d), log: func(msg string) { t.Log(msg) }, changes: hub}
	do := dashboardClient(t, q)

	const once, denied, always = "git reset --hard HEAD~1", "git clean -fdx", "git push --force origin main"
	onceID := heldID(t, a, stdout, project, once)
	if code, body := do("POST", "/api/approvals/"+onceID, map[string]string{"state": "once"}); code != 200 {
		t.Fatalf("once: %d %s", code, body)
	}
	select {
	case <-changed:
	default:
		t.Error("an answer did not wake the dashboard's streams")
	}
	if decision, reason := codexHook(t, a, stdout, project, once); decision == "deny" {
		t.Errorf("the retry approved once from the dashboard was refused: %q", reason)
	}

	deniedID := heldID(t, a, stdout, project, denied)
	if code, body := do("POST", "/api/approvals/"+deniedID, map[string]string{"state": "deny"}); code != 200 {
		t.Fatalf("deny: %d %s", code, body)
	}
	if decision, reason := codexHook(t, a, stdout, project, denied); decision != "deny" || !strings.Contains(reason, "denied") {
		t.Errorf("the retry denied from the dashboard: %s %q", decision, reason)
	}

	alwaysID := heldID(t, a, stdout, project, always)
	code, body := do("POST", "/api/approvals/"+alwaysID+"/always", map[string]bool{"dry_run": true})
	var res dashboard.AlwaysResult
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || !res.DryRun || len(res.Rules) != 1 {
		t.Fatalf("always, dry run: %d %s", code, body)
	}
	if p := res.Rules[0].Preview; !strings.Contains(p, "+  - id: fix-allow-") || !strings.Contains(p, `command: "`+always+`"`) || res.File != d.UserPolicy() {
		t.Errorf("the dry run's preview:\n%s", p)
	}
	if _, err := os.Stat(d.UserPolicy()); !os.IsNotExist(err) {
		t.Fatalf("the dry run wrote the policy (%v)", err)
	}
	if l, err := a.approvalQueue().Store(d).Get(alwaysID); err != nil || l.State != approval.Pending {
		t.Fatalf("the dry run answered the approval: %s %v", l.State, err)
	}

	code, body = do("POST", "/api/approvals/"+alwaysID+"/always", map[string]bool{})
	res = dashboard.AlwaysResult{}
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || res.Approval == nil || res.Approval.State != approval.Once {
		t.Fatalf("always: %d %s", code, body)
	}
	text, err := os.ReadFile(d.UserPolicy())
	if err != nil || !strings.Contains(string(text), res.Rules[0].Rule) || !strings.Contains(string(text), "approval "+alwaysID) {
		t.Fatalf("the user policy after always (%v):\n%s", err, text)
	}
	for range 2 {
		if decision, reason := codexHook(t, a, stdout, project, always); decision == "deny" {
			t.Fatalf("the call approved for good was refused: %q", reason)
		}
	}

	if code, body := do("POST", "/api/approvals/abcdef", map[string]string{"state": "once"}); code != 404 {
		t.Errorf("an unknown approval: %d %s", code, body)
	}

	var events []string
	audit.Read(d.AuditLog(), func(r audit.Record) error {
		if strings.HasPrefix(r.Event, "approval") {
			events = append(events, r.Event)
			if !strings.Contains(r.Reason, "(dashboard)") {
				t.Errorf("%s recorded as %q", r.Event, r.Reason)
			}
		}
		return nil
	})
	if got := strings.Join(events, ","); got != "approval once,approval denied,approval always,approval once" {
		t.Errorf("approval records: %s", got)
	}
}
