package cli

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/policy"
)

// Hook deadlines. An agent lets a hook that does not answer in time proceed (Claude Code
// after 600 s, Gemini CLI after 60 s), so whatever moat waits on (a lock someone holds, a
// FIFO, a slow disk) must end in an answer of moat's, in the agent's fail-closed form.
const (
	// defaultHookDeadline leaves room for a cold start on a loaded machine; a hook
	// usually answers in a few milliseconds.
	defaultHookDeadline = 2 * time.Second
	// envHookDeadline overrides the policy's hooks.deadline: the policy cannot bound the
	// time it takes to read the policy itself.
	envHookDeadline = "MOAT_HOOK_DEADLINE"
	// recordGrace is how long, after answering on the deadline, moat tries to record the
	// timeout before it exits: what hung may be the recording itself.
	recordGrace = 300 * time.Millisecond
)

// hookDeadline is the deadline MOAT_HOOK_DEADLINE sets, and whether it sets one; an
// invalid value is an error, which the hook answers as a failure (closed) at the default
// deadline.
func hookDeadline(getenv func(string) string) (time.Duration, bool, error) {
	s := getenv(envHookDeadline)
	if s == "" {
		return defaultHookDeadline, false, nil
	}
	d, err := policy.ParseHookDeadline(s)
	if err != nil {
		return defaultHookDeadline, false, fmt.Errorf("%s: %w", envHookDeadline, err)
	}
	return d, true, nil
}

// watchdog bounds the time moat's own work takes. The work runs in its own goroutine and
// may move the deadline once (the policy's hooks.deadline, when the environment set
// none) and stop the clock while a person is being asked; whoever waits gets an answer
// at the deadline whatever the work is blocked in.
type watchdog struct {
	limit   time.Duration
	fixed   bool               // set by the environment: the policy does not move it
	policy  chan time.Duration // the policy's deadline, sent once
	hold    chan bool          // true: a person is being asked, the clock stops; false: it runs again
	stopped chan struct{}      // closed when the waiter gave up, so the work never blocks on it
	// spawn starts the work; nil is a goroutine of its own (go).
	spawn func(func())
}

func newWatchdog(limit time.Duration, fixed bool) *watchdog {
	return &watchdog{limit: limit, fixed: fixed, policy: make(chan time.Duration, 1), hold: make(chan bool), stopped: make(chan struct{})}
}

// usePolicy moves the deadline to the policy's, unless the environment set one or the
// policy sets none. The deadline still counts from the start of the work.
func (w *watchdog) usePolicy(d time.Duration) {
	if w.fixed || d <= 0 {
		return
	}
	select {
	case w.policy <- d:
	default:
	}
}

// holding stops the clock (on) while the work waits for a person, and starts it again.
func (w *watchdog) holding(on bool) {
	select {
	case w.hold <- on:
	case <-w.stopped:
	}
}

// within runs work in its own goroutine and returns its result, or ok false when the
// deadline passed first (the work is then left to the process's exit) and the deadline it
// was. A panic in the work is the work's to recover.
func within[T any](w *watchdog, work func() T) (result T, limit time.Duration, ok bool) {
	done := make(chan T, 1)
	if w.spawn != nil {
		w.spawn(func() { done <- work() })
	} else {
		go func() { done <- work() }()
	}
	defer close(w.stopped)
	start, limit, held := time.Now(), w.limit, time.Duration(0)
	var heldSince time.Time
	timer := time.NewTimer(limit)
	defer timer.Stop()
	remaining := func() time.Duration { return max(0, time.Until(start.Add(limit+held))) }
	for {
		select {
		case r := <-done:
			return r, limit, true
		case d := <-w.policy:
			limit = d
			if heldSince.IsZero() {
				timer.Reset(remaining())
			}
		case on := <-w.hold:
			switch {
			case on && heldSince.IsZero():
				timer.Stop()
				heldSince = time.Now()
			case !on && !heldSince.IsZero():
				held += time.Since(heldSince)
				heldSince = time.Time{}
				timer.Reset(remaining())
			}
		case <-timer.C:
			var zero T
			return zero, limit, false
		}
	}
}

// lockedBuffer is a buffer written by work that may outlive its waiter: what it holds
// reaches the real stream only through flush, once, from the waiter.
type lockedBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	flushed bool
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.flushed {
		return len(p), nil // too late to be shown: the answer is out
	}
	return l.b.Write(p)
}

// flush writes what was buffered to w, and drops whatever is written afterwards.
func (l *lockedBuffer) flush(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushed = true
	w.Write(l.b.Bytes())
}

// detached is a copy of a whose standard error is buffered, for work that may outlive
// the command that waits for it: it then writes nowhere the command is still writing.
func (a *app) detached() (*app, *lockedBuffer) {
	buf := &lockedBuffer{}
	c := *a
	c.env.Stderr = buf
	return &c, buf
}

// recordWithin runs record (recording a failure) in the background and returns a wait
// that lets it finish for at most recordGrace, saying on stderr when it could not.
func (a *app) recordWithin(record func(a *app)) (wait func()) {
	bg, buf := a.detached()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { recover() }() // the answer is out; a panic here must not undo it
		record(bg)
	}()
	return func() {
		select {
		case <-done:
			buf.flush(a.env.Stderr)
		case <-time.After(recordGrace):
			buf.flush(a.env.Stderr)
			fmt.Fprintf(a.env.Stderr, "moat: the failure could not be recorded within %s either\n", recordGrace)
		}
	}
}
