package httpproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowUpstream answers like rawUpstream after release is closed (or at once when it is
// nil), and counts the requests it holds at once.
type slowUpstream struct {
	release      chan struct{}
	delay        time.Duration
	now, highest atomic.Int64
	served       atomic.Int64
}

func (u *slowUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := u.now.Add(1)
	defer u.now.Add(-1)
	for {
		h := u.highest.Load()
		if n <= h || u.highest.CompareAndSwap(h, n) {
			break
		}
	}
	if u.release != nil {
		<-u.release
	}
	time.Sleep(u.delay)
	u.served.Add(1)
	(&rawUpstream{}).ServeHTTP(w, r)
}

// post sends a tools/call of echo with the test token and returns the status, the
// Retry-After header and the body.
func post(t *testing.T, client *http.Client, proxyURL string, id int) (int, string, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, id)
	req, _ := http.NewRequest(http.MethodPost, proxyURL, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		t.Errorf("request %d: %v", id, err)
		return 0, "", ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
}

// TestBackPressure: the case found was a burst of 12,000 requests that reached 6,429 OS
// threads, exhausted file descriptors and got 4,263 × 502. With two slots, requests
// beyond the slots and the waiting room get 503 with Retry-After and a JSON-RPC error at
// once, those in the waiting room after a second, none hangs, and the slots come back.
func TestBackPressure(t *testing.T) {
	up := &slowUpstream{release: make(chan struct{})}
	upSrv := httptest.NewServer(answersMoatLists(up))
	defer upSrv.Close()
	proxyURL, _, _ := newProxy(t, upSrv.URL, func(o *Options) { o.MaxInFlight = 2 })
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()

	var held sync.WaitGroup
	heldStatus := make([]int, 2)
	for i := range 2 {
		held.Go(func() { heldStatus[i], _, _ = post(t, client, proxyURL, i+1) })
	}
	waitUntil(t, func() bool { return up.now.Load() == 2 }, "two requests held upstream")

	// 2 in flight, 2×4 may wait: 20 more are 8 that wait a second and 12 refused at once.
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var quick, slow int
	for i := range 20 {
		wg.Go(func() {
			status, retry, body := post(t, client, proxyURL, 100+i)
			var msg struct{ Error *struct{ Code int } }
			if status != http.StatusServiceUnavailable || retry == "" || json.Unmarshal([]byte(body), &msg) != nil || msg.Error == nil {
				t.Errorf("a request beyond the limit: %d, Retry-After %q, %s", status, retry, body)
			}
			mu.Lock()
			defer mu.Unlock()
			if time.Since(start) < queueWait*8/10 {
				quick++
			} else {
				slow++
			}
		})
	}
	wg.Wait()
	if quick != 12 || slow != 8 {
		t.Errorf("refused at once: %d (want 12), after waiting: %d (want 8)", quick, slow)
	}
	if elapsed := time.Since(start); elapsed > 3*queueWait {
		t.Errorf("the refusals took %v", elapsed)
	}

	// A waiting request gets the slot that frees up.
	waited := make(chan int, 1)
	go func() { s, _, _ := post(t, client, proxyURL, 200); waited <- s }()
	time.Sleep(100 * time.Millisecond)
	close(up.release)
	held.Wait()
	if heldStatus[0] != 200 || heldStatus[1] != 200 {
		t.Errorf("the held requests: %v", heldStatus)
	}
	if s := <-waited; s != 200 {
		t.Errorf("the waiting request: %d", s)
	}
	if s, _, b := post(t, client, proxyURL, 300); s != 200 {
		t.Errorf("after the burst: %d %s", s, b)
	}
	if up.highest.Load() > 2 {
		t.Errorf("the server held %d requests at once through a proxy limited to 2", up.highest.Load())
	}
}

// TestBurstLeavesNothing: a burst far beyond the limit gets only answers and deliberate
// 503s, the server never sees more than the limit at once, and the proxy's goroutines
// are gone afterwards.
func TestBurstLeavesNothing(t *testing.T) {
	up := &slowUpstream{delay: 5 * time.Millisecond}
	upSrv := httptest.NewServer(answersMoatLists(up))
	defer upSrv.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	proxyURL, _, _ := newProxy(t, upSrv.URL, func(o *Options) { o.MaxInFlight = 4 })
	post(t, client, proxyURL, 1) // the tools are vetted once
	base := runtime.NumGoroutine()

	var wg sync.WaitGroup
	var ok, busy atomic.Int64
	for i := range 400 {
		wg.Go(func() {
			switch s, _, b := post(t, client, proxyURL, i+2); s {
			case http.StatusOK:
				ok.Add(1)
			case http.StatusServiceUnavailable:
				busy.Add(1)
			default:
				t.Errorf("status %d: %s", s, b)
			}
		})
	}
	wg.Wait()
	if ok.Load() == 0 || ok.Load()+busy.Load() != 400 {
		t.Errorf("%d answered, %d busy", ok.Load(), busy.Load())
	}
	if up.highest.Load() > 4 {
		t.Errorf("the server held %d requests at once through a proxy limited to 4", up.highest.Load())
	}
	t.Logf("%d answered, %d refused as busy", ok.Load(), busy.Load())
	waitUntil(t, func() bool { return runtime.NumGoroutine() <= base+4 }, fmt.Sprintf("goroutines back near %d", base))
}

func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
