package httpproxy

import (
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

// TestMemoryReturnedAfterBurst: the case found was RSS 14 → 269 MiB after 1,000
// concurrent calls, never returned. After a burst the proxy returns its memory once it
// is idle; requests one at a time never make it do so.
func TestMemoryReturnedAfterBurst(t *testing.T) {
	up := &slowUpstream{delay: 50 * time.Millisecond}
	upSrv := httptest.NewServer(answersMoatLists(up))
	defer upSrv.Close()
	h, proxyURL, _, _ := newProxyHandler(t, upSrv.URL, func(o *Options) { o.ReturnMemory = true })
	var freed atomic.Int64
	h.memory.free = func() { freed.Add(1) }
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}

	for i := range 3 {
		post(t, client, proxyURL, i+1)
	}
	time.Sleep(idleAfter + 500*time.Millisecond)
	if n := freed.Load(); n != 0 {
		t.Errorf("memory returned %d times after requests one at a time", n)
	}

	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() { post(t, client, proxyURL, 100+i) })
	}
	wg.Wait()
	if up.highest.Load() < burstInFlight {
		t.Fatalf("the burst held only %d requests at once", up.highest.Load())
	}
	if n := freed.Load(); n != 0 {
		t.Errorf("memory returned before the proxy was idle")
	}
	waitUntil(t, func() bool { return freed.Load() == 1 }, "the memory to be returned after the burst")
	time.Sleep(idleAfter + 500*time.Millisecond)
	if n := freed.Load(); n != 1 {
		t.Errorf("memory returned %d times after one burst", n)
	}
}

// BenchmarkBurstMemory sends bursts of 2,000 concurrent calls through the proxy and
// reports the memory the process keeps (heap in use, heap not returned, stacks) a few
// seconds after each, with and without ReturnMemory: the paired measure of that option's
// gain. The clients and the upstream are in the process too. Slow (6 s per burst): run
// it with -bench BurstMemory -benchtime 1x.
func BenchmarkBurstMemory(b *testing.B) {
	for _, ret := range []bool{false, true} {
		name := "keep"
		if ret {
			name = "return"
		}
		b.Run(name, func(b *testing.B) {
			up := &slowUpstream{delay: time.Millisecond}
			upSrv := httptest.NewServer(answersMoatLists(up))
			defer upSrv.Close()
			proxyURL, _, _ := newProxy(b, upSrv.URL, func(o *Options) { o.ReturnMemory = ret })
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
			var retained float64
			for b.Loop() {
				var wg sync.WaitGroup
				for i := range 2000 {
					wg.Go(func() {
						req, _ := http.NewRequest(http.MethodPost, proxyURL, strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}`, i)))
						req.Header.Set("Content-Type", "application/json")
						if resp, err := client.Do(req); err == nil {
							io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					})
				}
				wg.Wait()
				time.Sleep(releaseEvery + time.Second)
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				retained = float64(m.HeapInuse+m.HeapIdle-m.HeapReleased+m.StackInuse) / (1 << 20)
			}
			b.ReportMetric(retained, "retained-MiB")
		})
	}
}
