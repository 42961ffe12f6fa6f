package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/approval"
)

// storeApprovals is the dashboard's queue over a real approval store: answers go to the
// store as the daemon's adapter gives them, and Always says what it was asked.
type storeApprovals struct {
	store  *approval.Store
	always []string // "ID dry" or "ID write", each call of Always
}

func (q *storeApprovals) List(context.Context) ([]approval.Listed, error) { return q.store.List() }

func (q *storeApprovals) Answer(_ context.Context, id string, state approval.State) (approval.Listed, error) {
	return q.store.Answer(id, state, approval.Approver{UID: 1000, How: "dashboard"}.String())
}

func (q *storeApprovals) Always(_ context.Context, id string, dryRun bool) (AlwaysResult, error) {
	l, err := q.store.Get(id)
	if err != nil {
		return AlwaysResult{}, err
	}
	if dryRun {
		q.always = append(q.always, l.ID+" dry")
		return AlwaysResult{DryRun: true, File: "moat.yaml", Rules: []AlwaysRule{{Call: l.Calls[0], Rule: "fix-allow-1", Preview: "+  - id: fix-allow-1"}}}, nil
	}
	q.always = append(q.always, l.ID+" write")
	granted, err := q.store.Answer(id, approval.Once, "dashboard")
	return AlwaysResult{File: "moat.yaml", Rules: []AlwaysRule{{Call: l.Calls[0], Rule: "fix-allow-1"}}, Approval: &granted}, err
}

// queued returns a store in a temp state directory holding one pending approval per call.
func queued(t *testing.T, calls ...string) (*approval.Store, []string) {
	t.Helper()
	store := &approval.Store{Path: filepath.Join(t.TempDir(), approval.File)}
	var ids []string
	for i, c := range calls {
		l, _, err := store.Queue(approval.Entry{
			Hash: strings.Repeat(string("0123456789abcdef"[i]), 64), Agent: "codex", Session: "s1", Cwd: "/home/u/proj",
			Calls: []string{c}, Rule: "ask-destructive", Reason: "it destroys work",
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	return store, ids
}

// do sends a request as the logged-in browser c: with the CSRF token when csrf is not
// "", as the page does. It returns the status and the body.
func do(t *testing.T, c *http.Client, method, url, csrf string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, r)
	if csrf != "" {
		req.Header.Set(CSRFHeader, csrf)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

func TestApprovalsAPI(t *testing.T) {
	store, ids := queued(t, "Bash: git reset --hard", "Bash: rm -rf build", "Bash: git push --force")
	q := &storeApprovals{store: store}
	s := New(Options{Approvals: q})
	origin := served(t, s)
	c := browser(t)
	csrf := login(t, s, c)

	code, body := do(t, c, "GET", origin+"/api/approvals", "", nil)
	var list []approval.Listed
	if err := json.Unmarshal(body, &list); err != nil || code != 200 || len(list) != 3 || list[0].Calls[0] != "Bash: git reset --hard" || list[0].Rule != "ask-destructive" {
		t.Fatalf("GET /api/approvals: %d %s", code, body)
	}

	for _, tt := range []struct {
		name  string
		path  string
		csrf  string
		body  any
		code  int
		state approval.State // of ids[i] in the store afterwards
		i     int
	}{
		{"once without CSRF", "/api/approvals/" + ids[0], "", map[string]string{"state": "once"}, 403, approval.Pending, 0},
		{"once", "/api/approvals/" + ids[0], csrf, map[string]string{"state": "once"}, 200, approval.Once, 0},
		{"session", "/api/approvals/" + ids[1], csrf, map[string]string{"state": "session"}, 200, approval.Session, 1},
		{"deny", "/api/approvals/" + ids[2], csrf, map[string]string{"state": "deny"}, 200, approval.Denied, 2},
		{"not an answer", "/api/approvals/" + ids[2], csrf, map[string]string{"state": "pending"}, 400, approval.Denied, 2},
		{"unknown field", "/api/approvals/" + ids[2], csrf, map[string]any{"state": "once", "by": "me"}, 400, approval.Denied, 2},
		{"unknown id", "/api/approvals/ffff", csrf, map[string]string{"state": "once"}, 404, approval.Denied, 2},
		{"malformed id", "/api/approvals/zz", csrf, map[string]string{"state": "once"}, 404, approval.Denied, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := do(t, c, "POST", origin+tt.path, tt.csrf, tt.body)
			if code != tt.code {
				t.Errorf("%d %s, want %d", code, body, tt.code)
			}
			if code != 200 && !strings.Contains(string(body), `"error"`) {
				t.Errorf("a failure without {\"error\"}: %s", body)
			}
			l, err := store.Get(ids[tt.i])
			if err != nil || l.State != tt.state {
				t.Errorf("the store holds %s (%v), want %s", l.State, err, tt.state)
			}
		})
	}
}

func TestApprovalsAlwaysAPI(t *testing.T) {
	store, ids := queued(t, "Bash: git reset --hard")
	q := &storeApprovals{store: store}
	s := New(Options{Approvals: q})
	origin := served(t, s)
	c := browser(t)
	csrf := login(t, s, c)
	url := origin + "/api/approvals/" + ids[0] + "/always"

	if code, _ := do(t, c, "POST", url, "", map[string]bool{"dry_run": true}); code != 403 {
		t.Errorf("always without CSRF: %d", code)
	}
	code, body := do(t, c, "POST", url, csrf, map[string]bool{"dry_run": true})
	var res AlwaysResult
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || !res.DryRun || len(res.Rules) != 1 || res.Rules[0].Preview == "" {
		t.Fatalf("dry run: %d %s", code, body)
	}
	if l, _ := store.Get(ids[0]); l.State != approval.Pending {
		t.Errorf("a dry run answered the approval: %s", l.State)
	}
	code, body = do(t, c, "POST", url, csrf, map[string]bool{})
	res = AlwaysResult{}
	if err := json.Unmarshal(body, &res); err != nil || code != 200 || res.DryRun || res.Approval == nil || res.Approval.State != approval.Once {
		t.Fatalf("always: %d %s", code, body)
	}
	if got := strings.Join(q.always, ","); got != ids[0]+" dry,"+ids[0]+" write" {
		t.Errorf("Always was asked %s", got)
	}
	if code, body := do(t, c, "POST", origin+"/api/approvals/abcd/always", csrf, map[string]bool{"dry_run": true}); code != 404 {
		t.Errorf("always of an unknown id: %d %s", code, body)
	}
}

// failingApprovals fails every call with err.
type failingApprovals struct{ err error }

func (f failingApprovals) List(context.Context) ([]approval.Listed, error) { return nil, f.err }
func (f failingApprovals) Answer(context.Context, string, approval.State) (approval.Listed, error) {
	return approval.Listed{}, f.err
}
func (f failingApprovals) Always(context.Context, string, bool) (AlwaysResult, error) {
	return AlwaysResult{}, f.err
}

func TestApprovalErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		q    Approvals
		list int // status of GET /api/approvals
		post int // status of an answer
	}{
		{"no queue", nil, 503, 503},
		{"ambiguous", failingApprovals{approval.ErrAmbiguous}, 500, 409},
		{"refused", failingApprovals{&approval.Refused{Why: "inside Codex"}}, 500, 403},
		{"policy", failingApprovals{errors.New("the policy does not load")}, 500, 422},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{Approvals: tt.q})
			origin := served(t, s)
			c := browser(t)
			csrf := login(t, s, c)
			if code, body := do(t, c, "GET", origin+"/api/approvals", "", nil); code != tt.list || !strings.Contains(string(body), `"error"`) {
				t.Errorf("list: %d %s, want %d", code, body, tt.list)
			}
			if code, body := do(t, c, "POST", origin+"/api/approvals/abcd", csrf, map[string]string{"state": "once"}); code != tt.post {
				t.Errorf("answer: %d %s, want %d", code, body, tt.post)
			}
			if code, body := do(t, c, "POST", origin+"/api/approvals/abcd/always", csrf, map[string]bool{"dry_run": true}); code != tt.post {
				t.Errorf("always: %d %s, want %d", code, body, tt.post)
			}
		})
	}
}

// sseReader reads the events of a stream.
type sseReader struct {
	t   *testing.T
	sc  *bufio.Scanner
	res *http.Response
}

func openStream(t *testing.T, c *http.Client, url string) *sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	cc := *c
	cc.Timeout = 0
	res, err := cc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %s %s", res.Status, res.Header.Get("Content-Type"))
	}
	return &sseReader{t: t, sc: bufio.NewScanner(res.Body), res: res}
}

// next returns the next event's name and data, failing the test after timeout.
func (r *sseReader) next(timeout time.Duration) (string, string) {
	r.t.Helper()
	type ev struct{ name, data string }
	got := make(chan ev, 1)
	go func() {
		var e ev
		for r.sc.Scan() {
			line := r.sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				e.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				e.data = strings.TrimPrefix(line, "data: ")
			case line == "" && e.data != "":
				got <- e
				return
			}
		}
		close(got)
	}()
	select {
	case e, ok := <-got:
		if !ok {
			r.t.Fatal("the stream ended")
		}
		return e.name, e.data
	case <-time.After(timeout):
		r.t.Fatalf("no event within %s", timeout)
		return "", ""
	}
}

// The stream sends the queue at once, and again when an answer changed it, woken by the
// hub; a change made by another process (straight to the file) arrives by the poll.
func TestApprovalStream(t *testing.T) {
	store, ids := queued(t, "Bash: git reset --hard")
	hub := NewHub()
	s := New(Options{Approvals: &storeApprovals{store: store}, Changes: hub})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)
	st := openStream(t, c, origin+"/api/approvals/stream")
	name, data := st.next(5 * time.Second)
	var list []approval.Listed
	if err := json.Unmarshal([]byte(data), &list); err != nil || name != "approvals" || len(list) != 1 || list[0].State != approval.Pending {
		t.Fatalf("first event %s %s", name, data)
	}
	// A wake-up that changed nothing sends nothing: the next event is the answer's.
	hub.Notify()
	time.Sleep(200 * time.Millisecond)
	if _, err := store.Answer(ids[0], approval.Denied, "test"); err != nil {
		t.Fatal(err)
	}
	hub.Notify()
	_, data = st.next(time.Second)
	if err := json.Unmarshal([]byte(data), &list); err != nil || len(list) != 1 || list[0].State != approval.Denied {
		t.Fatalf("after the answer: %s", data)
	}
	// Another process queues a call: no hub, the poll finds it.
	if _, _, err := store.Queue(approval.Entry{Hash: strings.Repeat("e", 64), Calls: []string{"Bash: make clean"}}); err != nil {
		t.Fatal(err)
	}
	_, data = st.next(streamPoll + 3*time.Second)
	if err := json.Unmarshal([]byte(data), &list); err != nil || len(list) != 2 {
		t.Fatalf("after another process queued: %s", data)
	}
}
