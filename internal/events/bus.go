package events

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Sink takes events from a bus. A sink is handed one event at a time, in the order they
// were published, so it need not be safe for concurrent use.
type Sink interface {
	Handle(ctx context.Context, ev Event) error
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(ctx context.Context, ev Event) error

// Handle calls f.
func (f SinkFunc) Handle(ctx context.Context, ev Event) error { return f(ctx, ev) }

// Registration is a sink as a bus is built with it: see Lossless and Lossy.
type Registration struct {
	name   string
	sink   Sink
	buffer int // 0: lossless
}

// Lossless registers a sink that must lose nothing (the audit): Publish hands it each
// event in the caller's goroutine and returns its error, so a slow sink slows the
// publisher rather than being skipped.
func Lossless(name string, s Sink) Registration { return Registration{name: name, sink: s} }

// Lossy registers a sink that may miss events rather than slow anyone down (metrics,
// notifications): events wait for it in a buffer of the given size, and an event that
// finds the buffer full is dropped and counted.
func Lossy(name string, s Sink, buffer int) Registration {
	return Registration{name: name, sink: s, buffer: max(buffer, 1)}
}

// Options are a bus's reporting and limits. Every field may be left zero.
type Options struct {
	// SlowAfter is how long a lossless delivery may take before it is reported as slow;
	// zero never reports one.
	SlowAfter time.Duration
	// OnError receives every sink failure (also published as a SinkError to the lossy
	// sinks); it is called from the publishing or the sink's goroutine, and must be safe
	// for concurrent use.
	OnError func(SinkError)
	// OnDrop is called for each event a lossy sink's full buffer dropped; it must be fast
	// and safe for concurrent use.
	OnDrop func(sink string, ev Event)
}

// SinkStats counts what one sink was handed.
type SinkStats struct {
	Name      string
	Lossy     bool
	Delivered uint64 // handed to the sink, whatever it answered
	Failed    uint64 // delivered with an error or a panic
	Dropped   uint64 // never delivered: the buffer was full, or the bus closed first
}

// Bus fans events out to the sinks it was built with. It is safe for concurrent use.
type Bus struct {
	opts     Options
	lossless []*lossless
	lossy    []*lossy

	// mu guards closing, queuesClosed and the lossy queues' channels: sends hold it for
	// reading, Close for writing, so nothing is sent on a closed channel. It is never
	// held while a sink works.
	mu sync.RWMutex
	// closing refuses new events; queuesClosed says the lossy queues are closed.
	closing, queuesClosed bool
	// publishing counts the Publish calls under way, which Close waits for.
	publishing sync.WaitGroup

	// stop cancels the lossy sinks' deliveries when Close runs out of time.
	stop    context.Context
	cancel  context.CancelFunc
	workers sync.WaitGroup
}

type counters struct {
	name                       string
	delivered, failed, dropped atomic.Uint64
}

type lossless struct {
	counters
	sink Sink
	mu   sync.Mutex // one event at a time, in order
}

type lossy struct {
	counters
	sink  Sink
	queue chan Event
}

// New returns a bus delivering to the sinks registered, and starts one goroutine for
// each lossy sink; Close stops them. Sink names must be unique and non-empty.
func New(opts Options, regs ...Registration) (*Bus, error) {
	b := &Bus{opts: opts}
	seen := map[string]bool{}
	for _, r := range regs {
		switch {
		case r.name == "":
			return nil, errors.New("events: a sink has no name")
		case r.sink == nil:
			return nil, fmt.Errorf("events: sink %q is nil", r.name)
		case seen[r.name]:
			return nil, fmt.Errorf("events: two sinks are named %q", r.name)
		}
		seen[r.name] = true
		if r.buffer == 0 {
			b.lossless = append(b.lossless, &lossless{counters: counters{name: r.name}, sink: r.sink})
		} else {
			b.lossy = append(b.lossy, &lossy{counters: counters{name: r.name}, sink: r.sink, queue: make(chan Event, r.buffer)})
		}
	}
	b.stop, b.cancel = context.WithCancel(context.Background())
	for _, s := range b.lossy {
		b.workers.Add(1)
		go b.run(s)
	}
	return b, nil
}

// Publish hands ev to every lossless sink, in the order they were registered, and queues
// it for every lossy sink. It returns the lossless sinks' errors, joined: the event did
// not reach them. A lossy sink's failure or full buffer is reported (Options, Stats),
// never returned. After Close, Publish returns ErrClosed.
func (b *Bus) Publish(ctx context.Context, ev Event) error {
	if ev == nil {
		return errors.New("events: nil event")
	}
	b.mu.RLock()
	closing := b.closing
	if !closing {
		b.publishing.Add(1)
	}
	b.mu.RUnlock()
	if closing {
		return ErrClosed
	}
	defer b.publishing.Done()
	// The lossless sinks are handed the event outside the lock, so that one stuck in a
	// write cannot keep Close from ending the lossy sinks' work.
	var errs []error
	var reports []SinkError
	for _, s := range b.lossless {
		report, err := b.deliverLossless(ctx, s, ev)
		if err != nil {
			errs = append(errs, err)
		}
		if report != nil {
			reports = append(reports, *report)
		}
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	for _, r := range reports {
		b.reportLocked(r, "")
	}
	for _, s := range b.lossy {
		if b.queuesClosed {
			s.dropped.Add(1)
			continue
		}
		b.enqueue(s, ev)
	}
	return errors.Join(errs...)
}

// deliverLossless hands ev to s. It returns what to report of a failure or a slow
// delivery, and the sink's error.
func (b *Bus) deliverLossless(ctx context.Context, s *lossless, ev Event) (*SinkError, error) {
	s.mu.Lock()
	start := time.Now()
	err := handle(ctx, s.sink, ev)
	took := time.Since(start)
	s.mu.Unlock()
	s.delivered.Add(1)
	if err != nil {
		s.failed.Add(1)
		err = fmt.Errorf("events: sink %q on %s: %w", s.name, ev.Kind(), err)
		return &SinkError{Sink: s.name, Event: ev.Kind(), Err: err}, err
	}
	if b.opts.SlowAfter > 0 && took > b.opts.SlowAfter {
		return &SinkError{Sink: s.name, Event: ev.Kind(),
			Err: fmt.Errorf("events: sink %q took %v on %s: %w", s.name, took.Round(time.Millisecond), ev.Kind(), ErrSlow)}, nil
	}
	return nil, nil
}

// enqueue queues ev for s, or drops it when s's buffer is full. The caller holds mu.
func (b *Bus) enqueue(s *lossy, ev Event) {
	select {
	case s.queue <- ev:
	default:
		s.dropped.Add(1)
		if b.opts.OnDrop != nil {
			b.opts.OnDrop(s.name, ev)
		}
	}
}

// reportLocked reports a sink's failure to OnError and, unless the failure was on a
// SinkError itself (which would let two failing sinks feed each other), to the lossy
// sinks other than skip, while the bus is open. The caller holds mu for reading.
func (b *Bus) reportLocked(e SinkError, skip string) {
	if b.opts.OnError != nil {
		b.opts.OnError(e)
	}
	if b.queuesClosed || e.Event == (SinkError{}).Kind() {
		return
	}
	for _, s := range b.lossy {
		if s.name != skip {
			b.enqueue(s, e)
		}
	}
}

// run delivers s's queue until Close closes it; once Close has run out of time, what
// is left is counted as dropped.
func (b *Bus) run(s *lossy) {
	defer b.workers.Done()
	for ev := range s.queue {
		if b.stop.Err() != nil {
			s.dropped.Add(1)
			continue
		}
		s.delivered.Add(1)
		err := handle(b.stop, s.sink, ev)
		if err == nil {
			continue
		}
		s.failed.Add(1)
		e := SinkError{Sink: s.name, Event: ev.Kind(), Err: fmt.Errorf("events: sink %q on %s: %w", s.name, ev.Kind(), err)}
		b.mu.RLock()
		b.reportLocked(e, s.name)
		b.mu.RUnlock()
	}
}

// handle hands ev to s, turning a panic into an error wrapping ErrPanicked.
func handle(ctx context.Context, s Sink, ev Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return s.Handle(ctx, ev)
}

// Close stops taking events, waits for the Publish calls under way, and then until the
// lossy sinks have been handed what their buffers hold: once it returns nil, no sink is
// handed anything more, and the stores behind them can be closed. When ctx ends first,
// the deliveries under way are cancelled, what is still queued is counted as dropped,
// and ctx's error is returned without waiting for a sink that ignores cancellation.
// Close is safe to call more than once.
func (b *Bus) Close(ctx context.Context) error {
	b.mu.Lock()
	b.closing = true
	b.mu.Unlock()
	err := waitCtx(ctx, &b.publishing)
	b.mu.Lock()
	if !b.queuesClosed {
		b.queuesClosed = true
		for _, s := range b.lossy {
			close(s.queue)
		}
	}
	b.mu.Unlock()
	if err == nil {
		err = waitCtx(ctx, &b.workers)
	}
	b.cancel()
	if err != nil {
		return fmt.Errorf("events: closing the bus: %w", err)
	}
	return nil
}

// waitCtx waits for wg, or until ctx ends and returns its error.
func waitCtx(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stats counts, for each sink in the order registered (lossless first), what it was
// handed.
func (b *Bus) Stats() []SinkStats {
	var out []SinkStats
	for _, s := range b.lossless {
		out = append(out, s.stats(false))
	}
	for _, s := range b.lossy {
		out = append(out, s.stats(true))
	}
	return out
}

func (c *counters) stats(lossy bool) SinkStats {
	return SinkStats{Name: c.name, Lossy: lossy, Delivered: c.delivered.Load(), Failed: c.failed.Load(), Dropped: c.dropped.Load()}
}
