package httpproxy

import (
	"context"
	"sync/atomic"
	"time"
)

// DefaultMaxInFlight is how many requests (and, apart, how many GET streams) a proxy
// handles at once unless told otherwise: far more than a person's agents send, few
// enough that a flood cannot exhaust memory or file descriptors.
const DefaultMaxInFlight = 64

// Back-pressure: a request beyond the limit waits at most queueWait for a slot, and at
// most queueFactor times the limit wait at once; the others are answered 503 at once.
// Waiting smooths a burst of an agent's parallel calls; the bounds keep a flood from
// holding connections, goroutines and memory for long.
const (
	queueWait   = time.Second
	queueFactor = 4
	retryAfter  = "1" // seconds, in the 503's Retry-After
)

// limiter bounds the requests in flight. A parked goroutine holds no OS thread, so
// waiting for a slot costs a goroutine and a connection only, and both are bounded.
type limiter struct {
	slots   chan struct{}
	waiting atomic.Int64
	maxWait int64
}

func newLimiter(n int) *limiter {
	return &limiter{slots: make(chan struct{}, n), maxWait: int64(n * queueFactor)}
}

// acquire takes a slot, waiting a little if none is free, and reports whether it got
// one; a true answer must be followed by release.
func (l *limiter) acquire(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	if l.waiting.Add(1) > l.maxWait {
		l.waiting.Add(-1)
		return false
	}
	defer l.waiting.Add(-1)
	t := time.NewTimer(queueWait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func (l *limiter) release() { <-l.slots }
