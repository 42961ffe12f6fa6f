package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// recorder is a sink that keeps what it is handed, and can be made to wait before each.
type recorder struct {
	mu   sync.Mutex
	got  []Event
	gate chan struct{} // when set, each Handle waits for a value
	err  error
}

func (r *recorder) Handle(ctx context.Context, ev Event) error {
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, ev)
	return r.err
}

func (r *recorder) events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

func decision(i int) Decision {
	return Decision{Record: audit.Record{Tool: fmt.Sprint(i), Decision: call.Allow}}
}

// tools lists the tools of the decisions among evs, in order.
func tools(evs []Event) []string {
	var out []string
	for _, ev := range evs {
		if d, ok := ev.(Decision); ok {
			out = append(out, d.Record.Tool)
		}
	}
	return out
}

func newBus(t *testing.T, opts Options, regs ...Registration) *Bus {
	t.Helper()
	b, err := New(opts, regs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close(context.Background()) })
	return b
}

func closeBus(t *testing.T, b *Bus) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

func statsOf(b *Bus, name string) SinkStats {
	for _, s := range b.Stats() {
		if s.Name == name {
			return s
		}
	}
	return SinkStats{}
}

func TestNewRefusesBadRegistrations(t *testing.T) {
	r := &recorder{}
	for _, tc := range []struct {
		name string
		regs []Registration
	}{
		{"no name", []Registration{Lossless("", r)}},
		{"nil sink", []Registration{Lossy("metrics", nil, 1)}},
		{"same name twice", []Registration{Lossless("audit", r), Lossy("audit", r, 4)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := New(Options{}, tc.regs...); err == nil {
				b.Close(context.Background())
				t.Fatal("New accepted the registrations")
			}
		})
	}
}

// TestOrder: every sink sees one publisher's events in the order they were published,
// and all of them once the bus is closed.
func TestOrder(t *testing.T) {
	audit, metrics := &recorder{}, &recorder{}
	b := newBus(t, Options{}, Lossless("audit", audit), Lossy("metrics", metrics, 1000))
	var want []string
	for i := range 500 {
		ev := decision(i)
		want = append(want, ev.Record.Tool)
		if err := b.Publish(context.Background(), ev); err != nil {
			t.Fatal(err)
		}
	}
	closeBus(t, b)
	for name, r := range map[string]*recorder{"audit": audit, "metrics": metrics} {
		if got := tools(r.events()); !slices.Equal(got, want) {
			t.Errorf("%s got %d events, want the %d published, in order", name, len(got), len(want))
		}
	}
}

// TestBackPressure: a slow lossless sink holds its publisher until it has the event; a
// slow lossy sink never does, and what its full buffer cannot take is counted as dropped.
func TestBackPressure(t *testing.T) {
	t.Run("lossless", func(t *testing.T) {
		slow := &recorder{gate: make(chan struct{})}
		b := newBus(t, Options{}, Lossless("audit", slow))
		done := make(chan error)
		go func() { done <- b.Publish(context.Background(), decision(1)) }()
		select {
		case <-done:
			t.Fatal("Publish returned before the lossless sink took the event")
		case <-time.After(50 * time.Millisecond):
		}
		slow.gate <- struct{}{}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if len(slow.events()) != 1 {
			t.Fatal("the sink does not have the event Publish returned for")
		}
	})
	t.Run("lossy", func(t *testing.T) {
		slow := &recorder{gate: make(chan struct{})}
		var dropMu sync.Mutex
		var drops []string
		b := newBus(t, Options{OnDrop: func(sink string, ev Event) {
			dropMu.Lock()
			defer dropMu.Unlock()
			drops = append(drops, sink+" "+ev.(Decision).Record.Tool)
		}}, Lossy("notify", slow, 2))
		start := time.Now()
		for i := range 10 {
			if err := b.Publish(context.Background(), decision(i)); err != nil {
				t.Fatal(err)
			}
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("Publish waited %v for a lossy sink", took)
		}
		// The sink holds at most one event in hand and two in its buffer.
		st := statsOf(b, "notify")
		if st.Dropped < 7 || st.Dropped > 8 {
			t.Errorf("dropped %d of 10 with a buffer of 2, want 7 or 8", st.Dropped)
		}
		dropMu.Lock()
		if uint64(len(drops)) != st.Dropped || drops[len(drops)-1] != "notify 9" {
			t.Errorf("OnDrop heard of %v, Stats counts %d", drops, st.Dropped)
		}
		dropMu.Unlock()
		close(slow.gate)
		closeBus(t, b)
		if st := statsOf(b, "notify"); st.Delivered+st.Dropped != 10 {
			t.Errorf("delivered %d + dropped %d, want 10 in all", st.Delivered, st.Dropped)
		}
	})
}

// TestFailingLosslessSink: an audit sink that fails makes Publish fail and is reported
// to OnError and the lossy sinks; the other sinks still get the event.
func TestFailingLosslessSink(t *testing.T) {
	bad := &recorder{err: errors.New("disk full")}
	good, metrics := &recorder{}, &recorder{}
	var reported []SinkError
	var mu sync.Mutex
	b := newBus(t, Options{OnError: func(e SinkError) { mu.Lock(); reported = append(reported, e); mu.Unlock() }},
		Lossless("audit", bad), Lossless("copy", good), Lossy("metrics", metrics, 8))
	err := b.Publish(context.Background(), decision(1))
	if err == nil || !errors.Is(err, bad.err) {
		t.Fatalf("Publish = %v, want the audit sink's error", err)
	}
	closeBus(t, b)
	if len(good.events()) != 1 {
		t.Error("a failing sink kept the next one from the event")
	}
	got := metrics.events()
	if len(got) != 2 {
		t.Fatalf("metrics got %v, want the decision and the audit sink's failure", got)
	}
	if se, ok := got[0].(SinkError); !ok || se.Sink != "audit" || se.Event != "decision" {
		t.Errorf("metrics got %#v first, want the audit sink's failure", got[0])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) != 1 || !errors.Is(reported[0].Err, bad.err) {
		t.Errorf("OnError heard %v", reported)
	}
	if st := statsOf(b, "audit"); st.Failed != 1 || st.Delivered != 1 {
		t.Errorf("audit stats %+v", st)
	}
}

func TestSlowLosslessSinkIsReported(t *testing.T) {
	slow := SinkFunc(func(context.Context, Event) error { time.Sleep(30 * time.Millisecond); return nil })
	var reported []SinkError
	b := newBus(t, Options{SlowAfter: 5 * time.Millisecond, OnError: func(e SinkError) { reported = append(reported, e) }},
		Lossless("audit", slow))
	if err := b.Publish(context.Background(), decision(1)); err != nil {
		t.Fatalf("a slow delivery failed: %v", err)
	}
	if len(reported) != 1 || !errors.Is(reported[0].Err, ErrSlow) {
		t.Errorf("reported %v, want one slow delivery", reported)
	}
}

// TestPanickingSink: a sink's panic is an error, for a lossless sink returned, for a
// lossy one reported; either way the bus and the other sinks go on.
func TestPanickingSink(t *testing.T) {
	boom := SinkFunc(func(_ context.Context, ev Event) error {
		if d, ok := ev.(Decision); ok && d.Record.Tool == "1" {
			panic("boom")
		}
		return nil
	})
	after := &recorder{}
	var mu sync.Mutex
	var reported []SinkError
	b := newBus(t, Options{OnError: func(e SinkError) { mu.Lock(); reported = append(reported, e); mu.Unlock() }},
		Lossless("audit", boom), Lossy("notify", boom, 8), Lossy("metrics", after, 8))
	err := b.Publish(context.Background(), decision(1))
	if !errors.Is(err, ErrPanicked) {
		t.Fatalf("Publish = %v, want the panic as an error", err)
	}
	if err := b.Publish(context.Background(), decision(2)); err != nil {
		t.Fatalf("the bus did not recover: %v", err)
	}
	closeBus(t, b)
	mu.Lock()
	defer mu.Unlock()
	var sinks []string
	for _, e := range reported {
		if !errors.Is(e.Err, ErrPanicked) {
			t.Errorf("reported %v, want a panic", e.Err)
		}
		sinks = append(sinks, e.Sink)
	}
	slices.Sort(sinks)
	if !slices.Equal(sinks, []string{"audit", "notify"}) {
		t.Errorf("panics reported for %v, want audit and notify", sinks)
	}
	var decisions int
	for _, ev := range after.events() {
		if _, ok := ev.(Decision); ok {
			decisions++
		}
	}
	if decisions != 2 {
		t.Errorf("the sink after the panicking one got %d decisions, want 2", decisions)
	}
	if st := statsOf(b, "notify"); st.Delivered < 2 || st.Failed != 1 {
		t.Errorf("notify stats %+v, want the panic counted and deliveries going on", st)
	}
}

// TestFailingSinksDoNotFeedEachOther: two lossy sinks that fail on everything report each
// other's failure once, not forever.
func TestFailingSinksDoNotFeedEachOther(t *testing.T) {
	a, c := &recorder{err: errors.New("a")}, &recorder{err: errors.New("c")}
	b := newBus(t, Options{}, Lossy("a", a, 64), Lossy("c", c, 64))
	if err := b.Publish(context.Background(), decision(1)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	closeBus(t, b)
	for name, r := range map[string]*recorder{"a": a, "c": c} {
		if n := len(r.events()); n > 2 {
			t.Errorf("%s got %d events, want at most the decision and the other's failure", name, n)
		}
	}
}

// TestCloseDrains: Close hands the lossy sinks what their buffers hold, then refuses
// events; a Close that runs out of time cancels and counts the rest as dropped.
func TestCloseDrains(t *testing.T) {
	t.Run("drains", func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})}
		b := newBus(t, Options{}, Lossy("metrics", r, 100))
		for i := range 50 {
			b.Publish(context.Background(), decision(i))
		}
		close(r.gate)
		closeBus(t, b)
		if n := len(r.events()); n != 50 {
			t.Errorf("after Close the sink had %d of 50 events", n)
		}
		if err := b.Publish(context.Background(), decision(51)); !errors.Is(err, ErrClosed) {
			t.Errorf("Publish after Close = %v, want ErrClosed", err)
		}
		if err := b.Close(context.Background()); err != nil {
			t.Errorf("a second Close = %v", err)
		}
	})
	t.Run("times out", func(t *testing.T) {
		r := &recorder{gate: make(chan struct{})} // never opened: the sink waits for cancellation
		b := newBus(t, Options{}, Lossy("notify", r, 100))
		for i := range 20 {
			b.Publish(context.Background(), decision(i))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		if err := b.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Close = %v, want the deadline", err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			st := statsOf(b, "notify")
			if st.Delivered+st.Dropped == 20 {
				if st.Dropped < 19 {
					t.Errorf("dropped %d, want the events left after the deadline", st.Dropped)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("stats %+v never accounted for the 20 events", st)
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// TestConcurrentPublishAndClose: publishers racing Close never panic on a closed queue,
// and every event is either delivered, dropped or refused.
func TestConcurrentPublishAndClose(t *testing.T) {
	r := &recorder{}
	b := newBus(t, Options{}, Lossy("metrics", r, 16))
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				if err := b.Publish(context.Background(), decision(g*1000+i)); errors.Is(err, ErrClosed) {
					mu.Lock()
					refused++
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(time.Millisecond)
	closeBus(t, b)
	wg.Wait()
	st := statsOf(b, "metrics")
	if got := st.Delivered + st.Dropped + uint64(refused); got != 1600 {
		t.Errorf("delivered %d + dropped %d + refused %d = %d, want 1600", st.Delivered, st.Dropped, refused, got)
	}
}

func TestRecordsReachOnlyTheStore(t *testing.T) {
	var got []audit.Record
	fail := errors.New("database is locked")
	store := Records(func(_ context.Context, r audit.Record) error {
		got = append(got, r)
		if r.Tool == "fail" {
			return fail
		}
		return nil
	})
	b := newBus(t, Options{}, Lossless("audit", store))
	if err := b.Record(audit.Record{Tool: "Bash", Decision: call.Deny}); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(context.Background(), RoundTrip{Agent: "codex"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(audit.Record{Tool: "fail", Decision: call.Deny}); !errors.Is(err, fail) {
		t.Errorf("Record = %v, want the store's error", err)
	}
	if len(got) != 2 || got[0].Tool != "Bash" {
		t.Errorf("stored %v, want the two decisions only", got)
	}
}

// TestCloseWaitsForPublish: Close returns only once a Publish under way has been handed
// to the lossless sinks, so the store behind them can be closed after it; a Publish that
// starts after Close is refused.
func TestCloseWaitsForPublish(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	slow := SinkFunc(func(context.Context, Event) error {
		close(entered)
		<-release
		return nil
	})
	after := &recorder{}
	b := newBus(t, Options{}, Lossless("audit", slow), Lossy("metrics", after, 4))
	published := make(chan error)
	go func() { published <- b.Publish(context.Background(), decision(1)) }()
	<-entered
	closed := make(chan error)
	go func() { closed <- b.Close(context.Background()) }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a Publish was under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	if err := b.Publish(context.Background(), decision(2)); !errors.Is(err, ErrClosed) {
		t.Errorf("Publish while closing = %v, want ErrClosed", err)
	}
	close(release)
	if err := <-published; err != nil {
		t.Fatal(err)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if got := tools(after.events()); !slices.Equal(got, []string{"1"}) {
		t.Errorf("the lossy sink got %v, want the event published before Close", got)
	}
}
