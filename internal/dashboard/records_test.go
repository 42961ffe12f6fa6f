package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// testRecord is record n of a small history: two agents, three sessions, every fifth
// denied by rule "deny-rm", every third a file read.
func testRecord(n int) audit.Record {
	r := audit.Record{
		Time:     t0.Add(time.Duration(n) * time.Minute),
		Agent:    []string{"claude-code", "cursor"}[n%2],
		Session:  fmt.Sprint("s", n%3),
		Class:    "shell",
		Tool:     "Bash",
		Args:     map[string]any{"command": fmt.Sprintf("echo step-%d", n)},
		Decision: call.Allow,
		Rule:     "allow-echo",
	}
	if n%3 == 0 {
		r.Class, r.Tool, r.Args = "file.read", "Read", map[string]any{"path": fmt.Sprintf("/tmp/file-%d", n)}
	}
	if n%5 == 0 {
		r.Decision, r.Rule = call.Deny, "deny-rm"
		r.Findings = []call.Finding{{ID: "shell.recursive-delete", Category: "destructive", Severity: call.High, Evidence: "downloaded by record 3"}}
	}
	return r
}

// recordsDB is an audit database in a temp dir holding testRecord(1…count).
func recordsDB(t *testing.T, count int) *auditdb.DB {
	t.Helper()
	db, err := auditdb.Open(context.Background(), auditdb.Options{Path: filepath.Join(t.TempDir(), auditdb.FileName), Redactor: scan.Redactor{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for n := 1; n <= count; n++ {
		if err := db.Append(context.Background(), testRecord(n)); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// getJSON GETs path with c and decodes the answer into v, returning the status.
func getJSON(t *testing.T, c *http.Client, u string, v any) int {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %s, body: %v", u, res.Status, err)
	}
	return res.StatusCode
}

func seqs(rs []audit.Record) []uint64 {
	out := make([]uint64, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

func TestRecordsFilters(t *testing.T) {
	db := recordsDB(t, 30)
	s := New(Options{Records: db, Now: func() time.Time { return t0.Add(30 * time.Minute) }})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	for _, tc := range []struct {
		query string
		want  []uint64
	}{
		{"limit=3", []uint64{30, 29, 28}},
		{"decision=deny", []uint64{30, 25, 20, 15, 10, 5}},
		{"decision=deny&agent=cursor", []uint64{25, 15, 5}},
		{"session=s1&limit=4", []uint64{28, 25, 22, 19}},
		{"rule=deny-rm&tool=read", []uint64{30, 15}},
		{"tool=FILE.READ&limit=2", []uint64{30, 27}},
		{"since=" + url.QueryEscape(t0.Add(28*time.Minute).Format(time.RFC3339)), []uint64{30, 29, 28}},
		{"since=3m", []uint64{30, 29, 28, 27}},
		{"until=" + url.QueryEscape(t0.Add(3*time.Minute).Format(time.RFC3339)), []uint64{2, 1}},
		{"q=step-1", []uint64{19, 17, 16, 14, 13, 11, 10, 1}},
		{"q=step-1&decision=deny", []uint64{10}},
		{"q=nothing-like-it", []uint64{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			var page recordsPage
			if code := getJSON(t, c, origin+"/api/records?"+tc.query, &page); code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			if got := fmt.Sprint(seqs(page.Records)); got != fmt.Sprint(tc.want) {
				t.Errorf("records %s, want %v", got, tc.want)
			}
		})
	}
}

func TestRecordsPaging(t *testing.T) {
	db := recordsDB(t, 12)
	s := New(Options{Records: db})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	var got []uint64
	q := "/api/records?decision=allow&limit=3"
	for range 10 {
		var page recordsPage
		if code := getJSON(t, c, origin+q, &page); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		got = append(got, seqs(page.Records)...)
		if page.Next == 0 {
			break
		}
		q = fmt.Sprintf("/api/records?decision=allow&limit=3&before=%d", page.Next)
	}
	if want := "[12 11 9 8 7 6 4 3 2 1]"; fmt.Sprint(got) != want {
		t.Errorf("pages gave %v, want %s", got, want)
	}
}

func TestRecordDetail(t *testing.T) {
	db := recordsDB(t, 6)
	s := New(Options{Records: db})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	var rec audit.Record
	if code := getJSON(t, c, origin+"/api/records/5", &rec); code != http.StatusOK || rec.Seq != 5 || rec.Rule != "deny-rm" || len(rec.Findings) != 1 {
		t.Errorf("record 5: status %d, %+v", code, rec)
	}
	for path, want := range map[string]int{"/api/records/7": http.StatusNotFound, "/api/records/0": http.StatusBadRequest, "/api/records/x": http.StatusBadRequest} {
		var e apiError
		if code := getJSON(t, c, origin+path, &e); code != want || e.Error == "" {
			t.Errorf("%s: status %d %q, want %d with a reason", path, code, e.Error, want)
		}
	}
}

func TestRecordsBadInput(t *testing.T) {
	s := New(Options{Records: recordsDB(t, 1)})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	for _, query := range []string{
		"decision=maybe",
		"since=yesterday",
		"until=2026-13-01T00:00:00Z",
		"since=2026-03-05T00:00:00Z&until=2026-03-04T00:00:00Z",
		"limit=0",
		"limit=501",
		"limit=ten",
		"before=-1",
		"q=" + strings.Repeat("x", maxFilterText+1),
		"agent=" + strings.Repeat("x", maxFilterText+1),
	} {
		for _, path := range []string{"/api/records?", "/api/records/stream?"} {
			if strings.HasPrefix(query, "limit") || strings.HasPrefix(query, "before") {
				if strings.Contains(path, "stream") {
					continue
				}
			}
			var e apiError
			if code := getJSON(t, c, origin+path+query, &e); code != http.StatusBadRequest || e.Error == "" {
				t.Errorf("%s%s: status %d %q, want 400 with a reason", path, query, code, e.Error)
			}
		}
	}
}

func TestRecordsNeedSession(t *testing.T) {
	s := New(Options{Records: recordsDB(t, 1)})
	origin := served(t, s)
	for _, path := range []string{"/api/records", "/api/records/1", "/api/records/stream"} {
		var e apiError
		if code := getJSON(t, browser(t), origin+path, &e); code != http.StatusUnauthorized {
			t.Errorf("%s without a session: status %d", path, code)
		}
	}
}

// readEvents reads n events of the stream body.
func readEvents(t *testing.T, sc *bufio.Scanner, n int) []string {
	t.Helper()
	var ids []string
	for len(ids) < n && sc.Scan() {
		if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) < n {
		t.Fatalf("stream ended after events %v: %v", ids, sc.Err())
	}
	return ids
}

func TestRecordStreamResumes(t *testing.T) {
	db := recordsDB(t, 10)
	hub := NewHub()
	s := New(Options{Records: db, Changes: hub})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// A browser reconnecting after record 6 of its filter gets the denials after it,
	// oldest first, then those stored later.
	req, _ := http.NewRequestWithContext(ctx, "GET", origin+"/api/records/stream?decision=deny&after=1", nil)
	req.Header.Set("Last-Event-ID", "6")
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("stream: %s, %s", res.Status, ct)
	}
	sc := bufio.NewScanner(res.Body)
	if got := readEvents(t, sc, 1); fmt.Sprint(got) != "[10]" {
		t.Errorf("resumed with %v, want [10]", got)
	}
	for n := 11; n <= 15; n++ {
		if err := db.Append(context.Background(), testRecord(n)); err != nil {
			t.Fatal(err)
		}
	}
	hub.Notify()
	if got := readEvents(t, sc, 1); fmt.Sprint(got) != "[15]" {
		t.Errorf("then %v, want [15]", got)
	}
}

func TestRecordStreamStartsAtTheNewest(t *testing.T) {
	db := recordsDB(t, 4)
	hub := NewHub()
	s := New(Options{Records: db, Changes: hub})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", origin+"/api/records/stream", nil)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := db.Append(context.Background(), testRecord(5)); err != nil {
		t.Fatal(err)
	}
	hub.Notify()
	if got := readEvents(t, bufio.NewScanner(res.Body), 1); fmt.Sprint(got) != "[5]" {
		t.Errorf("stream began with %v, want [5]", got)
	}
}
