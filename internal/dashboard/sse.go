package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// streamPoll is how often a stream reads again without being woken: the hub is not told
// of every change (records another process wrote reach the database in a second).
const streamPoll = 2 * time.Second

// streamKeepAlive is how often an idle stream sends a comment, so that a dead client is
// noticed and no proxy closes the connection.
const streamKeepAlive = 20 * time.Second

// Event is one Server-Sent Event.
type Event struct {
	// Name is the event's type ("" is "message").
	Name string
	// ID becomes the browser's Last-Event-ID on a reconnection.
	ID string
	// Data is sent as JSON.
	Data any
}

// Poll returns the events to send now; it is called at once, on every change the hub
// reports and every streamPoll, with the stream's context.
type Poll func(ctx context.Context) ([]Event, error)

// stream serves Server-Sent Events from poll until the client leaves or the server
// stops. A failing poll ends the stream with an "error" event; the browser reconnects.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, poll Poll) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	ctx := r.Context()
	tick := time.NewTicker(streamPoll)
	defer tick.Stop()
	idle := time.Now()
	for {
		var changed <-chan struct{}
		if s.opts.Changes != nil {
			changed = s.opts.Changes.Changed()
		}
		evs, err := poll(ctx)
		if err != nil {
			if ctx.Err() == nil {
				writeEvent(w, Event{Name: "error", Data: apiError{Error: err.Error()}})
				flusher.Flush()
			}
			return
		}
		for _, ev := range evs {
			if err := writeEvent(w, ev); err != nil {
				return
			}
		}
		if len(evs) > 0 {
			idle = time.Now()
			flusher.Flush()
		} else if time.Since(idle) >= streamKeepAlive {
			idle = time.Now()
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-tick.C:
		}
	}
}

// writeEvent writes one event in the text/event-stream format.
func writeEvent(w http.ResponseWriter, ev Event) error {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return err
	}
	var b strings.Builder
	if ev.Name != "" {
		fmt.Fprintf(&b, "event: %s\n", oneLine(ev.Name))
	}
	if ev.ID != "" {
		fmt.Fprintf(&b, "id: %s\n", oneLine(ev.ID))
	}
	fmt.Fprintf(&b, "data: %s\n\n", data)
	_, err = w.Write([]byte(b.String()))
	return err
}

// oneLine keeps a field of an event on its line.
func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }
