package cli

import "sync/atomic"

// workers runs functions on goroutines that outlive them. A long-lived process (the
// daemon) that ran each hook request on a new goroutine would grow and copy that
// goroutine's small first stack at every request; a worker kept from one request to the
// next has grown it already. A function is run by an idle worker when there is one, else
// by a new worker; at most maxIdleWorkers stay idle, so that a burst leaves no crowd
// behind, until close ends them.
type workers struct {
	// idle holds the inbox of each idle worker: a worker puts it there before it waits
	// on it, so that a function handed to an inbox taken from idle is always run.
	idle    chan chan func()
	started atomic.Int32 // workers started, for tests
}

const maxIdleWorkers = 32

func newWorkers() *workers { return &workers{idle: make(chan chan func(), maxIdleWorkers)} }

// run runs f on a worker goroutine and returns at once.
func (p *workers) run(f func()) {
	select {
	case inbox := <-p.idle:
		inbox <- f
	default:
		p.started.Add(1)
		go p.work(f)
	}
}

// work runs f, then each function given to its inbox while it is idle, until there are
// enough idle workers or close ends it (a nil function).
func (p *workers) work(f func()) {
	inbox := make(chan func(), 1)
	for f != nil {
		f()
		select {
		case p.idle <- inbox:
		default:
			return
		}
		f = <-inbox
	}
}

// close ends the idle workers; a worker running a function ends when it is done.
func (p *workers) close() {
	for {
		select {
		case inbox := <-p.idle:
			inbox <- nil
		default:
			return
		}
	}
}
