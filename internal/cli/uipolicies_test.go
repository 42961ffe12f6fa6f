package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/trust"
)

const uiUserPolicy = `version: 1
default: allow
approvals: {queue: always}
rules:
  - id: touch-rate
    command: "touch **"
    limit: 1 per 1h
    decision: deny
    reason: one touch an hour
  - id: ask-curl
    command: "curl **"
    decision: ask
    reason: the network needs a yes
  - id: deny-rm
    command: "rm **"
    decision: deny
    reason: no deleting
`

const uiProjectPolicy = `version: 1
default: ask
packs: [recommended]
rules:
  - id: allow-ls
    command: "ls **"
    decision: allow
`

// uiPoliciesFor is the policy page's source for a user whose home is home, with the
// projects and records the test wrote.
func uiPoliciesFor(t *testing.T, home string) (*uiPolicies, *app) {
	t.Helper()
	a, _, _ := testApp(home)
	d, err := a.dirs()
	if err != nil {
		t.Fatal(err)
	}
	records := &uiRecords{path: auditdb.Path(d.State)}
	t.Cleanup(records.close)
	return &uiPolicies{app: a, svc: a.local(func(string) {}), records: records}, a
}

// writeUIFile writes data to path, making its directory.
func writeUIFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUIPoliciesList(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	p, a := uiPoliciesFor(t, home)
	d, _ := a.dirs()
	writeUIFile(t, d.UserPolicy(), uiUserPolicy)
	store := trust.Open(d.TrustStore())
	project := func(name, policy string, trusted bool) string {
		root := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Join(root, ".git", "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		if policy != "" {
			writeUIFile(t, filepath.Join(root, "moat.yaml"), policy)
			if trusted {
				if err := store.Trust(filepath.Join(root, "moat.yaml"), []byte(policy), logsNow); err != nil {
					t.Fatal(err)
				}
			}
		}
		return root
	}
	trustedRoot := project("trusted", uiProjectPolicy, true)
	untrustedRoot := project("untrusted", uiProjectPolicy, false)
	brokenRoot := project("broken", "version: 1\nrules:\n  - id: x\n    decision: sometimes\n", true)
	changedRoot := project("changed", uiProjectPolicy, true)
	writeUIFile(t, filepath.Join(changedRoot, "moat.yaml"), uiProjectPolicy+"  - id: new\n    command: \"cat **\"\n    decision: allow\n")
	plainRoot := project("plain", "", false)

	// The records: the trusted project twice (from a subdirectory too), the others once,
	// and a project older than the page looks back.
	rec := func(ago time.Duration, cwd string) audit.Record {
		return audit.Record{Time: logsNow.Add(-ago), Agent: "claude-code", Class: "shell", Tool: "Bash",
			Args: map[string]any{"command": "ls"}, Cwd: cwd, Decision: call.Allow, Policy: "p"}
	}
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: auditdb.Path(d.State), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.AppendBatch(context.Background(), []audit.Record{
		rec(40*24*time.Hour, project("old", "", false)),
		rec(30*time.Minute, "relative/dir"),
		rec(5*time.Hour, plainRoot),
		rec(4*time.Hour, changedRoot),
		rec(3*time.Hour, brokenRoot),
		rec(2*time.Hour, untrustedRoot),
		rec(90*time.Minute, trustedRoot),
		rec(time.Hour, filepath.Join(trustedRoot, "x")),
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	list, err := p.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byProject := map[string]dashboard.PolicyEntry{}
	var order []string
	for _, e := range list.Entries {
		key := e.Project
		if e.Scope != dashboard.ScopeProject {
			key = e.Scope
		}
		order = append(order, filepath.Base(key))
		byProject[key] = e
	}
	if got := strings.Join(order, " "); got != "trusted untrusted broken changed plain user embedded" {
		t.Errorf("entries: %s", got)
	}
	userPath := d.UserPolicy()
	for _, tc := range []struct {
		key                      string
		kind, path, trust, error string
		skipped                  string // status of the one skipped file
		rules, packRules         int
	}{
		{key: trustedRoot, kind: "project", path: filepath.Join(trustedRoot, "moat.yaml"), trust: "trusted", rules: 1, packRules: 1},
		{key: untrustedRoot, kind: "user", path: userPath, skipped: "untrusted", rules: 3},
		{key: brokenRoot, kind: "project", path: filepath.Join(brokenRoot, "moat.yaml"), trust: "trusted", error: "sometimes"},
		{key: changedRoot, kind: "project", path: filepath.Join(changedRoot, "moat.yaml"), trust: "changed", skipped: "changed", rules: 1, packRules: 1},
		{key: plainRoot, kind: "user", path: userPath, rules: 3},
		{key: "user", kind: "user", path: userPath, rules: 3},
		{key: "embedded", kind: "embedded"},
	} {
		e := byProject[tc.key]
		var skipped string
		if len(e.Skipped) == 1 {
			skipped = e.Skipped[0].Status
			if !strings.Contains(e.Skipped[0].Why, "moat trust") {
				t.Errorf("%s: skipped without saying what to do: %q", tc.key, e.Skipped[0].Why)
			}
		}
		if e.Kind != tc.kind || e.Path != tc.path || e.Trust != tc.trust || skipped != tc.skipped || !strings.Contains(e.Error, tc.error) || (tc.error == "") != (e.Error == "") {
			t.Errorf("%s: %+v", filepath.Base(tc.key), e)
		}
		if tc.kind != "embedded" && (e.Rules != tc.rules || e.PackRules < tc.packRules) {
			t.Errorf("%s: %d rules and %d from packs, want %d and at least %d", filepath.Base(tc.key), e.Rules, e.PackRules, tc.rules, tc.packRules)
		}
	}
	if e := byProject[changedRoot]; !strings.Contains(e.Name, "as you trusted it") {
		t.Errorf("the changed project names %q, not the version trusted", e.Name)
	}
	if e := byProject["embedded"]; e.Name != "embedded:recommended" || e.PackRules+e.Rules == 0 || e.Error != "" {
		t.Errorf("embedded: %+v", e)
	}

	// The texts of what the list shows.
	for ref, want := range map[string]string{
		filepath.Join(untrustedRoot, "moat.yaml"): uiProjectPolicy,
		userPath:               uiUserPolicy,
		"embedded:recommended": "version: 1",
	} {
		if got, err := p.Text(context.Background(), ref); err != nil || !strings.Contains(got, want) {
			t.Errorf("Text(%s): %.40q, %v", ref, got, err)
		}
	}
}

// Without a database (nothing recorded yet) and without a user policy, the page lists
// the user's missing file and the embedded policy.
func TestUIPoliciesListEmpty(t *testing.T) {
	p, _ := uiPoliciesFor(t, t.TempDir())
	list, err := p.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Entries) != 2 || !list.Entries[0].Missing || list.Entries[1].Kind != "embedded" {
		t.Errorf("%+v", list.Entries)
	}
}

// Trying a call decides it with its trace, and changes nothing: no record, no approval
// queued, no rate-limit slot taken.
func TestUIPoliciesTry(t *testing.T) {
	home := t.TempDir()
	p, a := uiPoliciesFor(t, home)
	d, _ := a.dirs()
	writeUIFile(t, d.UserPolicy(), uiUserPolicy)
	cwd := t.TempDir()
	for _, tc := range []struct {
		name string
		req  dashboard.TryRequest
		want string // decision
		rule string
	}{
		{"deny", dashboard.TryRequest{Agent: "claude-code", Tool: "Bash", Input: "rm -rf ~", Cwd: cwd}, "deny", "deny-rm"},
		{"ask, not queued", dashboard.TryRequest{Input: "curl example.org", Cwd: cwd}, "ask", "ask-curl"},
		{"under the limit", dashboard.TryRequest{Input: "touch a", Cwd: cwd}, "allow", "default"},
		{"still under it", dashboard.TryRequest{Input: "touch a", Cwd: cwd}, "allow", "default"},
		{"JSON arguments", dashboard.TryRequest{Agent: "claude-code", Tool: "Bash", Input: `{"command": "rm x"}`, Cwd: cwd}, "deny", "deny-rm"},
		{"a path", dashboard.TryRequest{Tool: "file.read", Input: "README.md", Cwd: cwd}, "allow", "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Try(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want || res.Rule != tc.rule || res.Trace == "" || res.Policy != d.UserPolicy() {
				t.Errorf("%+v, want %s by %q", res, tc.want, tc.rule)
			}
		})
	}
	for _, bad := range []dashboard.TryRequest{
		{Agent: "nobody", Input: "ls", Cwd: cwd},
		{Tool: "NoSuchTool", Input: "x", Cwd: cwd},
		{Input: `{"command": `, Cwd: cwd},
	} {
		if _, err := p.Try(context.Background(), bad); !errors.Is(err, dashboard.ErrInvalid) {
			t.Errorf("Try(%+v): %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := os.Stat(d.AuditLog()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("trying wrote the audit log: %v", err)
	}
	pending, err := a.approvalQueue().Store(d).List()
	if err != nil || len(pending) != 0 {
		t.Errorf("trying queued approvals: %v %v", pending, err)
	}
}

// A policy that breaks while the daemon's live service has it in force is listed with its
// error and the last good policy, which the service keeps enforcing.
func TestUIPoliciesKeptPolicy(t *testing.T) {
	home := t.TempDir()
	p, a := uiPoliciesFor(t, home)
	p.svc = a.liveLocal(decide.Options{Warn: func(string) {}})
	d, _ := a.dirs()
	writeUIFile(t, d.UserPolicy(), uiUserPolicy)
	root := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: auditdb.Path(d.State), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Append(context.Background(), audit.Record{Time: logsNow.Add(-time.Hour), Class: "shell", Tool: "Bash", Args: map[string]any{"command": "ls"}, Cwd: filepath.Join(root, "sub"), Decision: call.Allow}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := p.svc.Lookup(context.Background(), decide.Scope{Cwd: filepath.Join(root, "sub")}); err != nil {
		t.Fatal(err)
	}
	writeUIFile(t, d.UserPolicy(), "version: 1\ndefault: perhaps\n")
	p.svc.Refresh()
	list, err := p.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Entries {
		if e.Scope == dashboard.ScopeEmbedded {
			continue
		}
		if !strings.Contains(e.Error, "perhaps") || e.Kept != d.UserPolicy() {
			t.Errorf("%s entry: error %q, kept %q; want the error and %s kept", e.Scope, e.Error, e.Kept, d.UserPolicy())
		}
	}
}

// The numbers of one range are counted once for the requests of a page, and again once
// they are statsFresh old.
func TestUIStatsReusesFreshNumbers(t *testing.T) {
	home := t.TempDir()
	a, _, _ := testApp(home)
	d, _ := a.dirs()
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: auditdb.Path(d.State), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	add := func() {
		t.Helper()
		if err := db.Append(context.Background(), audit.Record{Time: logsNow.Add(-time.Hour), Class: "shell", Tool: "Bash", Args: map[string]any{"command": "ls"}, Decision: call.Allow}); err != nil {
			t.Fatal(err)
		}
	}
	add()
	now := logsNow
	records := &uiRecords{path: auditdb.Path(d.State)}
	defer records.close()
	s := &uiStats{records: records, now: func() time.Time { return now }}
	q := auditdb.StatsQuery{Since: logsNow.Add(-24 * time.Hour), Until: logsNow, Bucket: time.Hour}
	count := func() int64 {
		t.Helper()
		st, err := s.Stats(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		return st.Total.Allow
	}
	if n := count(); n != 1 {
		t.Fatalf("%d decisions, want 1", n)
	}
	add()
	now = now.Add(statsFresh - time.Second)
	if n := count(); n != 1 {
		t.Errorf("within %s: %d decisions, want the 1 counted before", statsFresh, n)
	}
	now = now.Add(time.Second)
	if n := count(); n != 2 {
		t.Errorf("after %s: %d decisions, want 2", statsFresh, n)
	}
}
