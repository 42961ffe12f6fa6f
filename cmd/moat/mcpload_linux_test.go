package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moatdev/moat/internal/audit"
)

// procStatus is what /proc/PID/status says of a process: its OS threads and resident
// memory.
type procStatus struct {
	threads int
	rssKiB  int
}

func readProcStatus(pid int) (procStatus, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procStatus{}, err
	}
	defer f.Close()
	var s procStatus
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "Threads":
			s.threads, _ = strconv.Atoi(fields[0])
		case "VmRSS":
			s.rssKiB, _ = strconv.Atoi(fields[0])
		}
	}
	return s, sc.Err()
}

// sampler reads a process's status every few milliseconds and keeps the highest.
type sampler struct {
	mu      sync.Mutex
	peak    procStatus
	samples []procStatus
}

func (s *sampler) run(ctx context.Context, pid int, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if st, err := readProcStatus(pid); err == nil {
			s.mu.Lock()
			s.peak.threads = max(s.peak.threads, st.threads)
			s.peak.rssKiB = max(s.peak.rssKiB, st.rssKiB)
			s.samples = append(s.samples, st)
			s.mu.Unlock()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *sampler) take() (procStatus, []procStatus) {
	s.mu.Lock()
	defer s.mu.Unlock()
	peak, samples := s.peak, s.samples
	s.peak, s.samples = procStatus{}, nil
	return peak, samples
}

// rssStats are the minimum, median and maximum resident memory of samples, in MiB.
func rssStats(samples []procStatus) (lo, med, hi float64) {
	var v []int
	for _, s := range samples {
		v = append(v, s.rssKiB)
	}
	if len(v) == 0 {
		return 0, 0, 0
	}
	slices.Sort(v)
	return float64(v[0]) / 1024, float64(v[len(v)/2]) / 1024, float64(v[len(v)-1]) / 1024
}

// lockAuditLog takes the audit log's writer lock, as another process (`flock
// audit.jsonl.lock sleep …`) would, until the returned function is called.
func lockAuditLog(t *testing.T, home string) func() {
	t.Helper()
	files := audit.WriterFiles(filepath.Join(home, ".local/state/moat/audit.jsonl"))
	lock := files[len(files)-1]
	if err := os.MkdirAll(filepath.Dir(lock), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// loadCall is a tools/call of the 2026-07-28 revision, which needs no session: each
// call is one POST.
func loadCall(id int, tool string) (string, map[string]string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"load","version":"v0"}}}}`, id, tool)
	return body, map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// outcomes counts the answers of a burst by HTTP status (0: no answer).
type outcomes struct {
	mu     sync.Mutex
	status map[int]int
	errs   []string
}

func (o *outcomes) add(status int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.status == nil {
		o.status = map[int]int{}
	}
	o.status[status]++
	if err != nil && len(o.errs) < 5 {
		o.errs = append(o.errs, err.Error())
	}
}

// burst sends n calls at once (every tenth to the denied tool), each on a connection
// of its own, as many clients would, and returns when all are answered or ctx ends.
func burst(ctx context.Context, endpoint, token string, n int, out *outcomes) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true, MaxConnsPerHost: 0}}
	defer client.CloseIdleConnections()
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			tool := "echo"
			if i%10 == 0 {
				tool = "delete_everything"
			}
			body, headers := loadCall(i+1, tool)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			<-start
			resp, err := client.Do(req)
			if err != nil {
				out.add(0, err)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode == http.StatusServiceUnavailable && (resp.Header.Get("Retry-After") == "" || !strings.Contains(string(b), `"error"`)):
				out.add(-503, fmt.Errorf("a 503 without Retry-After or JSON-RPC error: %s", b))
			case resp.StatusCode == http.StatusOK && tool == "echo" && !strings.Contains(string(b), `"text":"hi"`):
				out.add(-200, fmt.Errorf("an allowed call's answer: %s", b))
			case resp.StatusCode == http.StatusOK && tool != "echo" && !strings.Contains(string(b), "blocked by moat"):
				out.add(-200, fmt.Errorf("a denied call's answer: %s", b))
			default:
				out.add(resp.StatusCode, nil)
			}
		})
	}
	close(start)
	wg.Wait()
}

// TestMCPProxyHTTPLoad sends bursts of concurrent tools/calls through `moat mcp proxy
// --upstream` to an SDK server while another process holds the audit log's lock, so that
// no record can be written. The cases found: 1,000 concurrent calls made 1,004 OS
// threads and RSS 14 → 269 MiB, never returned; 12,000 reached 6,429 threads, fd
// exhaustion and 4,263 × 502; a client without the token was served. Now every call is
// answered while the lock is held (allowed or denied, or 503 with Retry-After when the
// proxy is full), the proxy's threads stay bounded, its memory comes back after each
// burst, a client without the token is refused, and once the lock is released the
// records are written, with one saying how many were dropped.
//
// MOAT_TEST_MCP_LOAD=N sends bursts of N (the figure is 2000) and waits for the
// memory to settle after each; without it, one burst of 300 runs.
func TestMCPProxyHTTPLoad(t *testing.T) {
	n, rounds, settle := 300, 1, 4*time.Second
	if v := os.Getenv("MOAT_TEST_MCP_LOAD"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("MOAT_TEST_MCP_LOAD=%q is not a number of calls", v)
		}
		rounds, settle = 3, 15*time.Second
	}
	e := newMCPEnv(t)
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v0"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	var ran, ranDenied atomic.Int64
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echoes the text."}, func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
		ran.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "delete_everything", Description: "Deletes everything (a canary: it only counts)."}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		ranDenied.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
	})
	upstream := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true}))
	defer upstream.Close()

	token := "load-test-token-0123456789abcdef"
	proxy := startHTTPProxy(t, e, upstream.URL, nil, "MOAT_MCP_TOKEN="+token)
	pid := proxy.cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	// One call of each tool first, with the log free: the tools are vetted once, and
	// the proxy is in the state a session in use is in.
	var warm outcomes
	burst(ctx, proxy.endpoint, token, 1, &warm)
	burst(ctx, proxy.endpoint, token, 2, &warm)
	time.Sleep(200 * time.Millisecond)
	start, err := readProcStatus(pid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("before: %d threads, RSS %.1f MiB", start.threads, float64(start.rssKiB)/1024)

	release := lockAuditLog(t, e.home)
	var s sampler
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go s.run(sctx, pid, 10*time.Millisecond)

	answered := 0 // calls decided: every record the proxy owes
	for round := range rounds {
		var out outcomes
		began := time.Now()
		// A call not answered within 30 s while the log is locked hangs: an agent would
		// have given up on it (or, for a hook, let it through).
		bctx, cancelBurst := context.WithTimeout(ctx, 30*time.Second)
		burst(bctx, proxy.endpoint, token, n, &out)
		cancelBurst()
		took := time.Since(began)
		peak, _ := s.take()
		// Without the token: refused, the server never reached.
		var refused outcomes
		before := ran.Load() + ranDenied.Load()
		burst(ctx, proxy.endpoint, "", 20, &refused)
		if refused.status[http.StatusUnauthorized] != 20 || ran.Load()+ranDenied.Load() != before {
			t.Errorf("clients without the token: %v, the server ran %d calls for them", refused.status, ran.Load()+ranDenied.Load()-before)
		}
		time.Sleep(settle)
		_, after := s.take()
		lo, med, hi := rssStats(after)
		last := after[len(after)-1]
		t.Logf("round %d: %d calls in %v: %v; peak %d threads, RSS %.1f MiB; after %v: %d threads, RSS min %.1f / median %.1f / max %.1f MiB",
			round+1, n, took.Round(time.Millisecond), out.status, peak.threads, float64(peak.rssKiB)/1024, settle, last.threads, lo, med, hi)
		for status, k := range out.status {
			if status != http.StatusOK && status != http.StatusServiceUnavailable {
				t.Errorf("%d answers with status %d: %q", k, status, out.errs)
			}
		}
		answered += out.status[http.StatusOK]
		if out.status[http.StatusOK] == 0 {
			t.Errorf("no call was answered: %v", out.status)
		}
		if peak.threads > 40 {
			t.Errorf("the proxy ran %d OS threads while the audit log was locked", peak.threads)
		}
		if lo > float64(start.rssKiB)/1024+20 {
			t.Errorf("RSS stayed at %.1f MiB after the burst (%.1f before)", lo, float64(start.rssKiB)/1024)
		}
	}
	if ranDenied.Load() != 0 {
		t.Errorf("the server ran %d denied calls", ranDenied.Load())
	}

	// The lock released, the records the queue held are written, with the count of
	// those it dropped.
	release()
	var written, dropped, denials int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		written, dropped, denials = 0, 0, 0
		for _, r := range readAudit(t, e.home) {
			switch {
			case r.Rule == "mcp-records-dropped":
				var k int
				fmt.Sscanf(r.Reason, "moat: %d decision", &k)
				dropped += k
			case strings.HasPrefix(r.Event, "mcp mcp:peer/"):
				written++
				if r.Decision.String() == "deny" {
					denials++
				}
			}
		}
		if written+dropped >= answered || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("records: %d of the burst's calls written (%d denials), %d dropped and counted, for %d calls answered", written, denials, dropped, answered)
	if written+dropped < answered {
		t.Errorf("%d calls answered, %d recorded and %d counted as dropped", answered, written, dropped)
	}
}

// TestMCPProxyStdioLockedLog: a stdio proxy records each decision before it answers.
// With the audit log's lock held by another process, each record waits a bounded time
// and goes to the spool; the proxy keeps one log open, so its threads do not grow with
// the records (a log opened per record left a thread blocked in the lock for each). The
// spooled records reach the log once the lock is free.
func TestMCPProxyStdioLockedLog(t *testing.T) {
	e := newMCPEnv(t)
	release := lockAuditLog(t, e.home)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := e.proxy(t, "mcp-test-server")
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	const calls = 12
	first, err := readProcStatus(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	peak := first.threads
	for i := range calls {
		start := time.Now()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %+v %v", i, res, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("call %d took %v with the log locked", i, took)
		}
		if st, err := readProcStatus(cmd.Process.Pid); err == nil {
			peak = max(peak, st.threads)
		}
	}
	t.Logf("threads: %d at the first call, at most %d after %d calls with the log locked", first.threads, peak, calls)
	if peak > first.threads+5 {
		t.Errorf("the proxy's threads grew from %d to %d over %d records", first.threads, peak, calls)
	}
	release()
	// The next record merges the spool.
	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	session.Close()
	n := 0
	for _, r := range readAudit(t, e.home) {
		if r.Event == "mcp mcp:peer/echo" {
			n++
		}
	}
	if n < calls+1 {
		t.Errorf("%d records of %d calls in the log", n, calls+1)
	}
}
