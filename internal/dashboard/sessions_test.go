package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// dbSessions reads a real audit database.
type dbSessions struct{ db *auditdb.DB }

func (s dbSessions) Sessions(ctx context.Context, f auditdb.SessionFilter) ([]auditdb.Session, error) {
	return s.db.Sessions(ctx, f)
}

func (s dbSessions) SessionRecords(ctx context.Context, agent, session string, after uint64, limit int) (auditdb.SessionPage, error) {
	return s.db.SessionRecords(ctx, agent, session, after, limit)
}

var sessionsT0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// shellRecord is a recorded shell call of agent's session at sessionsT0 plus n seconds.
func shellRecord(agent, session string, n int, command string, v call.Verdict) audit.Record {
	return audit.Record{
		Time: sessionsT0.Add(time.Duration(n) * time.Second), Agent: agent, Session: session, Event: "pre_tool_use",
		Class: "shell", Tool: "Bash", Args: map[string]any{"command": command}, Cwd: "/home/u/proj", Decision: v, Rule: "r",
	}
}

// sessionsDB returns a database in a temp directory holding records.
func sessionsDB(t *testing.T, records ...audit.Record) *auditdb.DB {
	t.Helper()
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: filepath.Join(t.TempDir(), auditdb.FileName), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if len(records) > 0 {
		if err := db.AppendBatch(context.Background(), records); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestSessionsAPI(t *testing.T) {
	db := sessionsDB(t,
		shellRecord("codex", "s1", 0, "ls", call.Allow),
		shellRecord("claude-code", "a/b", 1, "curl -o /tmp/x.sh example.test", call.Allow),
		shellRecord("codex", "s1", 2, "rm -rf ~", call.Deny),
		shellRecord("claude-code", "a/b", 3, "sh /tmp/x.sh", call.Ask),
		shellRecord("codex", "s1", 4, "git status", call.Allow),
	)
	s := New(Options{Sessions: dbSessions{db}, Now: func() time.Time { return sessionsT0.Add(time.Hour) }})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)

	for _, tt := range []struct {
		query string
		code  int
		want  string // agent/session of each session listed, newest activity first
	}{
		{"", 200, "codex/s1 claude-code/a/b"},
		{"?limit=1", 200, "codex/s1"},
		{"?since=" + sessionsT0.Add(3*time.Second).Format(time.RFC3339), 200, "codex/s1 claude-code/a/b"},
		{"?since=" + sessionsT0.Add(4*time.Second).Format(time.RFC3339), 200, "codex/s1"},
		{"?since=30m", 200, ""},
		{"?since=2h", 200, "codex/s1 claude-code/a/b"},
		{"?since=yesterday", 400, ""},
		{"?limit=0", 400, ""},
		{"?limit=501", 400, ""},
	} {
		t.Run("list"+tt.query, func(t *testing.T) {
			code, body := do(t, c, "GET", origin+"/api/sessions"+tt.query, "", nil)
			if code != tt.code {
				t.Fatalf("%d %s, want %d", code, body, tt.code)
			}
			if code != 200 {
				return
			}
			var got sessionList
			if err := json.Unmarshal(body, &got); err != nil || got.Sessions == nil {
				t.Fatalf("%s: %v", body, err)
			}
			var names []string
			for _, s := range got.Sessions {
				names = append(names, s.Agent+"/"+s.Session)
			}
			if strings.Join(names, " ") != tt.want {
				t.Errorf("sessions %q, want %q", names, tt.want)
			}
		})
	}
	code, body := do(t, c, "GET", origin+"/api/sessions", "", nil)
	var list sessionList
	json.Unmarshal(body, &list)
	if code != 200 || list.Sessions[0].Calls != 3 || list.Sessions[0].Counts["deny"] != 1 || list.Sessions[0].Counts["allow"] != 2 {
		t.Errorf("counts of codex/s1: %s", body)
	}

	for _, tt := range []struct {
		path string
		code int
		want string // commands, oldest first
		next uint64
	}{
		{"/api/sessions/codex/s1", 200, "ls|rm -rf ~|git status", 0},
		{"/api/sessions/codex/s1?limit=2", 200, "ls|rm -rf ~", 3},
		{"/api/sessions/codex/s1?after=3", 200, "git status", 0},
		{"/api/sessions/claude-code/a%2Fb", 200, "curl -o /tmp/x.sh example.test|sh /tmp/x.sh", 0},
		{"/api/sessions/codex/none", 200, "", 0},
		{"/api/sessions/codex/s1?after=x", 400, "", 0},
		{"/api/sessions/codex/s1?limit=-1", 400, "", 0},
		{"/api/sessions/codex/" + strings.Repeat("s", 201), 400, "", 0},
	} {
		t.Run(tt.path, func(t *testing.T) {
			code, body := do(t, c, "GET", origin+tt.path, "", nil)
			if code != tt.code {
				t.Fatalf("%d %s, want %d", code, body, tt.code)
			}
			if code != 200 {
				return
			}
			var got sessionRecords
			if err := json.Unmarshal(body, &got); err != nil || got.Records == nil {
				t.Fatalf("%s: %v", body, err)
			}
			var cmds []string
			for _, r := range got.Records {
				cmds = append(cmds, fmt.Sprint(r.Args["command"]))
				if r.Seq == 0 {
					t.Errorf("a record without its number: %+v", r)
				}
			}
			if strings.Join(cmds, "|") != tt.want || got.Next != tt.next {
				t.Errorf("records %q next %d, want %q next %d", cmds, got.Next, tt.want, tt.next)
			}
		})
	}
}

func TestSessionsWithoutSource(t *testing.T) {
	s := New(Options{})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	for _, p := range []string{"/api/sessions", "/api/sessions/codex/s1", "/api/sessions/codex/s1/stream"} {
		if code, body := do(t, c, "GET", origin+p, "", nil); code != 503 || !strings.Contains(string(body), `"error"`) {
			t.Errorf("%s: %d %s", p, code, body)
		}
	}
	if code, _ := do(t, browser(t), "GET", origin+"/api/sessions", "", nil); code != 401 {
		t.Errorf("sessions without logging in: %d", code)
	}
}

// The stream sends the session's records after ?after, then each new one as it is
// stored (the hub wakes it), and never another session's.
func TestSessionStream(t *testing.T) {
	db := sessionsDB(t, shellRecord("codex", "s1", 0, "ls", call.Allow), shellRecord("codex", "s1", 1, "pwd", call.Allow))
	hub := NewHub()
	s := New(Options{Sessions: dbSessions{db}, Changes: hub})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	st := openStream(t, c, origin+"/api/sessions/codex/s1/stream?after=1")
	commands := func(data string) string {
		var rs []audit.Record
		if err := json.Unmarshal([]byte(data), &rs); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		var cmds []string
		for _, r := range rs {
			cmds = append(cmds, fmt.Sprint(r.Args["command"]))
		}
		return strings.Join(cmds, "|")
	}
	if name, data := st.next(5 * time.Second); name != "records" || commands(data) != "pwd" {
		t.Fatalf("first event %s %s", name, data)
	}
	if err := db.AppendBatch(context.Background(), []audit.Record{
		shellRecord("codex", "s2", 2, "whoami", call.Allow),
		shellRecord("codex", "s1", 3, "rm -rf ~", call.Deny),
	}); err != nil {
		t.Fatal(err)
	}
	hub.Notify()
	if _, data := st.next(time.Second); commands(data) != "rm -rf ~" {
		t.Errorf("after a new record: %s", data)
	}
}

// The pages of approvals and sessions keep the names the browser tests and other views
// rely on (the DOM contract of issue 22).
func TestApprovalAndSessionPagesKeepTheDOMContract(t *testing.T) {
	for file, names := range map[string][]string{
		"approvals.js": {`id: "approvals"`, `"data-approval-id"`, `button("once"`, `button("session"`, `button("always"`, `button("deny"`, `id: "always-preview"`, `"data-action": "always-confirm"`, `"/api/approvals/stream"`},
		"session.js":   {`moat.view("sessions"`, `"data-session"`, `id: "timeline"`, `"data-seq"`, `"data-ref-seq"`, `"#/record/"`},
		"start.js":     {`"approval-count"`, `"/api/approvals/stream"`},
	} {
		data, err := assetFS.ReadFile("assets/" + file)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if !strings.Contains(string(data), name) {
				t.Errorf("%s no longer holds %s", file, name)
			}
		}
	}
}
