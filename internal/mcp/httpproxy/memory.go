package httpproxy

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// After a burst of at least burstInFlight requests at once, the proxy gives its memory
// back once it has had no request in flight for idleAfter, at most once per
// releaseEvery.
const (
	burstInFlight = 8
	idleAfter     = 2 * time.Second
	releaseEvery  = 5 * time.Second
)

// memoryReturner gives the memory a burst took back to the system when the burst is
// over. An idle Go process runs no GC for up to two minutes, and until one runs the
// burst's garbage stays resident: 2,000 concurrent calls left the proxy at 63 MiB instead
// of 18 (BenchmarkBurstMemory and TestMCPProxyHTTPLoad measure it). Forced GCs and a
// scavenge cost a few milliseconds when nothing is in flight, so they are done once per
// burst, not per request.
type memoryReturner struct {
	lim   *limiter
	free  func() // debug.FreeOSMemory; a test counts calls instead
	mu    sync.Mutex
	high  int         // most requests in flight at once since the last release
	timer *time.Timer // armed while a release waits for the proxy to stay idle
	last  time.Time   // of the last release
}

func newMemoryReturner(lim *limiter) *memoryReturner {
	return &memoryReturner{lim: lim, free: freeMemory}
}

// freeMemory collects twice before returning memory: net/http keeps a connection's
// buffers in sync.Pools, which hold what they had at one GC until the next.
func freeMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// started notes a request taken in flight.
func (m *memoryReturner) started() {
	n := len(m.lim.slots)
	m.mu.Lock()
	m.high = max(m.high, n)
	m.mu.Unlock()
}

// ended notes a request done; the last of a burst arms the release.
func (m *memoryReturner) ended() {
	if len(m.lim.slots) > 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.high < burstInFlight || m.timer != nil {
		return
	}
	wait := max(idleAfter, time.Until(m.last.Add(releaseEvery)))
	m.timer = time.AfterFunc(wait, m.release)
}

func (m *memoryReturner) release() {
	m.mu.Lock()
	m.timer = nil
	if len(m.lim.slots) > 0 {
		// A new burst: its last request arms the release again.
		m.mu.Unlock()
		return
	}
	m.high, m.last = 0, time.Now()
	m.mu.Unlock()
	m.free()
}
