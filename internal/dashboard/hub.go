package dashboard

import "sync"

// Hub tells live pages that something they show changed: the daemon calls Notify after
// it stored records or the approval queue changed, and each open stream reads again.
// A zero Hub is not usable; use NewHub.
type Hub struct {
	mu      sync.Mutex
	changed chan struct{}
}

// NewHub returns a hub with nothing waiting.
func NewHub() *Hub { return &Hub{changed: make(chan struct{})} }

// Notify wakes everything waiting on the channel Changed returned before.
func (h *Hub) Notify() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.changed)
	h.changed = make(chan struct{})
}

// Changed returns a channel closed at the next Notify.
func (h *Hub) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}
