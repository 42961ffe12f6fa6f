package httpproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// stream relays a server's event stream one event at a time, each flushed as soon as it
// is read: a progress notification or a server request must reach the client while the
// call it belongs to still runs. Each event's data is one JSON-RPC message, read by the
// Proxy like any other; the id, event and retry fields go on unchanged, so that a client
// can resume with Last-Event-ID.
func (h *handler) stream(w http.ResponseWriter, resp *http.Response, x exchange, refused [][]byte) {
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	if len(refused) > 0 {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", joinAnswers(refused)); err != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	rd := bufio.NewReaderSize(resp.Body, 64<<10)
	var ev event
	// handle takes one line; it returns false when the client has left.
	handle := func(line []byte) bool {
		if len(line) == 0 {
			out := h.event(&ev, x)
			ev = event{}
			if out == nil {
				return true
			}
			if _, err := w.Write(out); err != nil {
				return false // the client left: returning closes the upstream stream too
			}
			return rc.Flush() == nil
		}
		ev.size += len(line)
		if line[0] == ':' {
			return true // a comment, such as a keep-alive: the client reads nothing in it
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "data":
			ev.data = append(ev.data, string(value))
		case "id", "event", "retry":
			ev.fields = append(ev.fields, string(name)+": "+string(value))
		}
		// Other fields mean nothing to a client and are dropped.
		return true
	}
	for {
		line, err := readLine(rd, h.max-ev.size)
		if err != nil {
			if errors.Is(err, errTooLong) {
				// Nothing of an event moat cannot hold is relayed; the stream ends, as a
				// broken connection would, and the client may resume after the last id.
				fmt.Fprintf(h.o.Proxy.Log, "moat: an event from the MCP server is larger than %d bytes; closing the stream\n", h.max)
			}
			return // an event not ended by a blank line is discarded, as SSE says
		}
		// A lone CR ends a line too, for SSE: a field kept whole with a CR in it would
		// hide a data line from moat that the client then reads ("id: 1\rdata: …").
		for sub := range bytes.SplitSeq(line, []byte("\r")) {
			if !handle(sub) {
				return
			}
		}
	}
}

// event is an SSE event being read.
type event struct {
	fields []string // id, event and retry lines, in order
	data   []string // data lines
	size   int
}

// event returns the bytes to send for a finished event, or nil for none.
func (h *handler) event(ev *event, x exchange) []byte {
	if len(ev.fields) == 0 && len(ev.data) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, f := range ev.fields {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	data := []byte(joinLines(ev.data))
	if len(bytes.TrimSpace(data)) == 0 {
		// A priming event (an id and empty data, so that the client can resume from
		// it) carries no message.
		if len(ev.data) > 0 {
			b.WriteString("data: \n")
		}
		b.WriteByte('\n')
		return b.Bytes()
	}
	relay, answers := h.o.Proxy.FromServerOn(x.conn, oneLine(data))
	var msgs [][]byte
	for _, m := range append([][]byte{relay}, answers...) {
		if m != nil {
			h.params.learn(m)
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 0 && len(ev.fields) == 0 {
		return nil
	}
	// Without a message the event still carries its id, so that resuming does not
	// replay what moat refused.
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte('\n') // each further message is an event of its own
		}
		b.WriteString("data: ")
		b.Write(m)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

// readEvents reads an event stream and calls fn with the message of each event that
// carries one, as soon as the event ends, until the stream ends (nil), ctx is done, or an
// event is larger than max (errTooLong). An event the stream cuts short is discarded, as
// SSE says.
func readEvents(ctx context.Context, body io.Reader, max int, fn func(msg []byte)) error {
	rd := bufio.NewReaderSize(body, 64<<10)
	var data []string
	size := 0
	for {
		line, err := readLine(rd, max-size)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// A lone CR ends a line too.
		for sub := range bytes.SplitSeq(line, []byte("\r")) {
			if len(sub) == 0 {
				msg := []byte(joinLines(data))
				data, size = nil, 0
				if len(bytes.TrimSpace(msg)) > 0 {
					fn(oneLine(msg))
				}
				continue
			}
			size += len(sub)
			if name, value, _ := bytes.Cut(sub, []byte(":")); string(name) == "data" {
				data = append(data, string(bytes.TrimPrefix(value, []byte(" "))))
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

var errTooLong = errors.New("line too long")

// readLine reads one line without its ending ("\n" or "\r\n"), holding at most max
// bytes of it.
func readLine(rd *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := rd.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 { // +2: the line ending is not counted
			return nil, errTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}
