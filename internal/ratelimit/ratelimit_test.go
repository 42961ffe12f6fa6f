package ratelimit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/testbin"
)

// clock is a test clock that moves only when told.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func TestTakeSlidingWindow(t *testing.T) {
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	start := clk.now()
	// step: advance the clock, then take; want: counted or not, and Used after.
	steps := []struct {
		advance time.Duration
		counted bool
		used    int
		next    time.Time
	}{
		{0, true, 1, time.Time{}},                               // t=0
		{10 * time.Second, true, 2, time.Time{}},                // t=10s
		{10 * time.Second, true, 3, time.Time{}},                // t=20s: the third of 3
		{10 * time.Second, false, 3, start.Add(time.Minute)},    // t=30s: over; opens when t=0 leaves
		{29 * time.Second, false, 3, start.Add(time.Minute)},    // t=59s: still over, and not counted
		{time.Second, true, 3, time.Time{}},                     // t=60s: t=0 left the window
		{0, false, 3, start.Add(70 * time.Second)},              // t=60s: full again until t=10s leaves
		{2 * time.Minute, true, 1, time.Time{}},                 // t=180s: all have left
		{0, true, 2, time.Time{}},                               // same instant: counted too
		{0, true, 3, time.Time{}},                               //
		{0, false, 3, start.Add(180*time.Second + time.Minute)}, //
	}
	for i, st := range steps {
		clk.advance(st.advance)
		c, err := s.Take("k", 3, time.Minute)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if c.Counted != st.counted || c.Exceeded == st.counted || c.Used != st.used || !c.Next.Equal(st.next) {
			t.Errorf("step %d (t=%s): got %+v; want counted %v, used %d, next %s", i, clk.now().Sub(start), c, st.counted, st.used, st.next.Sub(start))
		}
	}
}

func TestPeekNeverCounts(t *testing.T) {
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	for range 5 {
		if c, err := s.Peek("k", 2, time.Minute); err != nil || c.Used != 0 || c.Exceeded || c.Counted {
			t.Fatalf("Peek on an empty store = %+v, %v", c, err)
		}
	}
	if _, err := os.Stat(s.path); !os.IsNotExist(err) {
		t.Errorf("Peek created the file: %v", err)
	}
	s.Take("k", 2, time.Minute)
	s.Take("k", 2, time.Minute)
	c, err := s.Peek("k", 2, time.Minute)
	if err != nil || !c.Exceeded || c.Used != 2 || c.Counted {
		t.Errorf("Peek on a full counter = %+v, %v; want exceeded, 2 used, not counted", c, err)
	}
}

func TestRefund(t *testing.T) {
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	first, _ := s.Take("k", 2, time.Minute)
	clk.advance(time.Second)
	second, _ := s.Take("k", 2, time.Minute)
	if c, _ := s.Peek("k", 2, time.Minute); !c.Exceeded {
		t.Fatalf("two of two taken: %+v", c)
	}
	// The second call was refused for another reason: it is taken back, once.
	for range 2 {
		if err := s.Refund("k", second.At); err != nil {
			t.Fatal(err)
		}
	}
	if c, _ := s.Peek("k", 2, time.Minute); c.Exceeded || c.Used != 1 {
		t.Errorf("after a refund: %+v; want one call counted", c)
	}
	// Refunds of calls not counted change nothing.
	if err := s.Refund("other", first.At); err != nil {
		t.Fatal(err)
	}
	if err := s.Refund("k", first.At.Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Take("k", 2, time.Minute); !c.Counted || c.Used != 2 {
		t.Errorf("Take after a refund = %+v; want counted, the second of two", c)
	}
}

func TestKeysAreApart(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), FileName), newClock().now)
	for range 2 {
		s.Take("a", 2, time.Minute)
	}
	if c, _ := s.Take("b", 2, time.Minute); !c.Counted || c.Used != 1 {
		t.Errorf("key b counted under a's calls: %+v", c)
	}
	if c, _ := s.Take("a", 2, time.Minute); c.Counted {
		t.Errorf("key a counted a third call: %+v", c)
	}
}

func TestLoweredLimit(t *testing.T) {
	// A limit lowered in the policy applies at once to the calls already counted.
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	start := clk.now()
	for range 5 {
		s.Take("k", 10, time.Minute)
		clk.advance(time.Second)
	}
	c, err := s.Take("k", 2, time.Minute)
	if err != nil || c.Counted || c.Used != 5 || !c.Next.Equal(start.Add(3*time.Second+time.Minute)) {
		t.Errorf("Take under a lowered limit = %+v, %v; want exceeded until the fourth call leaves", c, err)
	}
}

func TestExpiredCountersAreDropped(t *testing.T) {
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	s.Take("old", 5, time.Second)
	s.Take("long", 5, time.Hour)
	clk.advance(2 * time.Second)
	s.Take("new", 5, time.Second)
	st, err := s.read()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.Keys["old"]; ok {
		t.Errorf("a counter whose window passed is kept: %v", st.Keys)
	}
	if _, ok := st.Keys["long"]; !ok {
		t.Errorf("a counter still in its window was dropped: %v", st.Keys)
	}
}

func TestBounded(t *testing.T) {
	clk := newClock()
	s := New(filepath.Join(t.TempDir(), FileName), clk.now)
	// One call per key, more keys than the file keeps: the oldest are forgotten, and
	// never the one being counted.
	st := &state{Version: fileVersion, Keys: map[string]*counter{}}
	for i := range maxKeys + 10 {
		st.add(fmt.Sprintf("k%05d", i), 1, time.Hour, clk.now())
		clk.advance(time.Millisecond)
	}
	if err := s.write(st); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Take("k00000", 1, time.Hour); err != nil || !c.Exceeded {
		t.Fatalf("Take = %+v, %v; want the old call still counted before pruning", c, err)
	}
	if c, err := s.Take("new", 1, time.Hour); err != nil || !c.Counted {
		t.Fatalf("Take = %+v, %v", c, err)
	}
	st, err := s.read()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Keys) != maxKeys {
		t.Errorf("%d keys kept; want %d", len(st.Keys), maxKeys)
	}
	for _, k := range []string{"new", fmt.Sprintf("k%05d", maxKeys+9)} {
		if _, ok := st.Keys[k]; !ok {
			t.Errorf("recent key %s was dropped", k)
		}
	}
	if _, ok := st.Keys["k00000"]; ok {
		t.Errorf("the oldest key was kept")
	}
	// A counter keeps at most its limit's count of calls.
	for range 10 {
		s.Take("many", 3, time.Hour)
	}
	st, _ = s.read()
	if n := len(st.Keys["many"].Calls); n != 3 {
		t.Errorf("counter keeps %d calls; want 3", n)
	}
}

var corruptFiles = []struct{ name, content string }{
	{"garbage", "{not json"},
	{"empty", ""},
	{"wrong version", `{"version":2,"keys":{}}`},
	{"unknown field", `{"version":1,"keys":{},"extra":1}`},
	{"no window", `{"version":1,"keys":{"k":{"window_ms":0,"calls":[1]}}}`},
	{"null counter", `{"version":1,"keys":{"k":null}}`},
	{"out of order", `{"version":1,"keys":{"k":{"window_ms":1000,"calls":[5,1]}}}`},
}

func TestCorruptFileIsAnError(t *testing.T) {
	for _, tt := range corruptFiles {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			s := New(path, newClock().now)
			if c, err := s.Take("k", 5, time.Minute); err == nil || c.Counted || !strings.Contains(err.Error(), "unreadable") {
				t.Errorf("Take on a corrupt file = %+v, %v; want an error", c, err)
			}
			if _, err := s.Peek("k", 5, time.Minute); err == nil {
				t.Errorf("Peek on a corrupt file: no error")
			}
			// The file is left for the user to see and remove.
			if got, _ := os.ReadFile(path); string(got) != tt.content {
				t.Errorf("the corrupt file was rewritten: %q", got)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), FileName), nil)
	for _, tt := range []struct {
		key    string
		max    int
		window time.Duration
	}{
		{"k", 0, time.Minute},
		{"k", 5, 0},
		{strings.Repeat("k", maxKeyBytes+1), 5, time.Minute},
	} {
		if _, err := s.Take(tt.key, tt.max, tt.window); err == nil {
			t.Errorf("Take(%d-byte key, %d, %s): no error", len(tt.key), tt.max, tt.window)
		}
	}
	if _, err := (Files{}).Take("relative", "k", 1, time.Minute); err == nil {
		t.Errorf("Files.Take in a relative directory: no error")
	}
}

func TestFilesUsesTheStateDirectory(t *testing.T) {
	dir := t.TempDir()
	f := Files{Now: newClock().now}
	if c, err := f.Take(dir, "k", 1, time.Minute); err != nil || !c.Counted {
		t.Fatalf("Take = %+v, %v", c, err)
	}
	if c, err := f.Peek(dir, "k", 1, time.Minute); err != nil || !c.Exceeded {
		t.Errorf("Peek = %+v, %v; want the call Take counted", c, err)
	}
	if _, err := os.Stat(File(dir)); err != nil {
		t.Errorf("no counters' file in the state directory: %v", err)
	}
	if fi, err := os.Stat(File(dir)); err == nil && fi.Mode().Perm() != 0o600 {
		t.Errorf("counters' file mode %v; want 0600", fi.Mode().Perm())
	}
}

func TestTakeConcurrentGoroutines(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), FileName), nil)
	var counted atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				c, err := s.Take("k", 25, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if c.Counted {
					counted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := counted.Load(); n != 25 {
		t.Errorf("%d of 120 calls counted; want exactly 25", n)
	}
}

const childEnv = "MOAT_RATELIMIT_TEST_CHILD"

// TestTakeConcurrentProcesses runs 20 copies of the test binary, each taking 5 calls
// under one key with a limit of 30: exactly 30 are counted among the 100.
func TestTakeConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 processes")
	}
	path := filepath.Join(t.TempDir(), FileName)
	var wg sync.WaitGroup
	var counted atomic.Int32
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := testbin.Rerun("TestChildTakes", childEnv+"="+path).Output()
			if err != nil {
				t.Errorf("child: %v", err)
				return
			}
			for _, line := range strings.Split(string(out), "\n") {
				if n, ok := strings.CutPrefix(line, "counted "); ok {
					k, _ := strconv.Atoi(n)
					counted.Add(int32(k))
				}
			}
		}()
	}
	wg.Wait()
	if n := counted.Load(); n != 30 {
		t.Errorf("%d of 100 calls counted across processes; want exactly 30", n)
	}
	data, _ := os.ReadFile(path)
	var st state
	if err := json.Unmarshal(data, &st); err != nil || len(st.Keys["k"].Calls) != 30 {
		t.Errorf("file holds %s; want 30 calls", data)
	}
}

// TestChildTakes is the child of TestTakeConcurrentProcesses.
func TestChildTakes(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("run by TestTakeConcurrentProcesses")
	}
	s := New(path, nil)
	n := 0
	for range 5 {
		c, err := s.Take("k", 30, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if c.Counted {
			n++
		}
	}
	fmt.Printf("counted %d\n", n)
}

// BenchmarkTake is the cost a limited rule adds to each recorded call it matches: lock,
// read, count and rewrite a file holding 20 counters of 20 calls.
func BenchmarkTake(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), FileName), nil)
	for i := range 20 {
		for range 20 {
			s.Take(fmt.Sprintf("policy#rule|session agent/%d", i), 20, time.Hour)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.Take("policy#rule|session agent/bench", 1000, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeek is the cost for a call only looked at: one read.
func BenchmarkPeek(b *testing.B) {
	s := New(filepath.Join(b.TempDir(), FileName), nil)
	for i := range 20 {
		for range 20 {
			s.Take(fmt.Sprintf("policy#rule|session agent/%d", i), 20, time.Hour)
		}
	}
	for b.Loop() {
		if _, err := s.Peek("policy#rule|session agent/5", 20, time.Hour); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzRead: whatever the file holds, Take either fails or answers within the limit, and
// what it writes reads back.
func FuzzRead(f *testing.F) {
	for _, tt := range corruptFiles {
		f.Add([]byte(tt.content))
	}
	f.Add([]byte(`{"version":1,"keys":{"k":{"window_ms":60000,"calls":[1,2,3]}}}`))
	f.Add([]byte(`{"version":1,"keys":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), FileName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := New(path, newClock().now)
		c, err := s.Take("k", 3, time.Minute)
		if err != nil {
			return
		}
		if c.Used > 3 && !c.Exceeded || c.Counted && c.Used > 3 {
			t.Fatalf("Take = %+v: counted over the limit", c)
		}
		if _, err := s.read(); err != nil {
			t.Fatalf("the file Take wrote does not read back: %v", err)
		}
	})
}
