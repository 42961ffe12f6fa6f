package cli

import (
	"sync"
	"testing"
	"time"
)

// waitFor waits until cond holds, for a second at most.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after a second: %s", what)
		}
	}
}

// Functions run one after another are run by the same worker; a burst is run by as
// many as it needs, of which at most maxIdleWorkers stay, until close ends them.
func TestWorkers(t *testing.T) {
	tests := []struct {
		name     string
		rounds   int // rounds run one after another
		perRound int // functions run at once in a round
		// Bounds of the workers started: a new worker per function is rounds*perRound.
		minStarted, maxStarted int32
	}{
		{name: "one at a time", rounds: 100, perRound: 1, minStarted: 1, maxStarted: 1},
		{name: "a burst", rounds: 1, perRound: 3 * maxIdleWorkers, minStarted: 3 * maxIdleWorkers, maxStarted: 3 * maxIdleWorkers},
		{name: "bursts after the first reuse the idle workers", rounds: 3, perRound: maxIdleWorkers / 2, minStarted: maxIdleWorkers / 2, maxStarted: maxIdleWorkers / 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newWorkers()
			ran := 0
			var mu sync.Mutex
			for range tt.rounds {
				release := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(tt.perRound)
				for range tt.perRound {
					p.run(func() {
						defer wg.Done()
						<-release // every function of the round runs at once
						mu.Lock()
						ran++
						mu.Unlock()
					})
				}
				close(release)
				wg.Wait()
				// The round's workers are idle again before the next round.
				want := min(tt.perRound, maxIdleWorkers)
				waitFor(t, "the workers are idle", func() bool { return len(p.idle) == want })
			}
			if want := tt.rounds * tt.perRound; ran != want {
				t.Errorf("%d functions ran, want %d", ran, want)
			}
			if got := p.started.Load(); got < tt.minStarted || got > tt.maxStarted {
				t.Errorf("%d workers started, want %d to %d", got, tt.minStarted, tt.maxStarted)
			}
			// close ends the idle workers: none takes a function any more.
			p.close()
			if n := len(p.idle); n != 0 {
				t.Errorf("%d idle workers after close", n)
			}
		})
	}
}
