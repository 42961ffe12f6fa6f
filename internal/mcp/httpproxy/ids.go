package httpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"

	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// ids gives every request relayed upstream an id of moat's own, and gives responses back
// their client's id. The Proxy matches a response to its request by id, as one stdio
// connection allows; but over HTTP many clients share one Proxy, and each counts its ids
// from 1: without this, one client's tools/call could take the place of another's
// tools/list, whose result would then reach the client unread.
type ids struct {
	mu   sync.Mutex
	next uint64
	// back holds the client id of each of moat's ids until the response passes.
	back  map[string]origID
	order []string // moat's ids, oldest first, to bound back
	// forward finds moat's id from a session and a client id, for the legacy
	// notifications/cancelled that name a request by its client id.
	forward map[string]string
}

type origID struct {
	id      json.RawMessage
	session string
	fwdKey  string
}

// maxIDs bounds the requests remembered; a response to a request forgotten this long
// ago reaches its client with moat's id, which the client does not know and ignores.
const maxIDs = 1 << 14

const idPrefix = "moat-"

// edit replaces frame[off:off+n] with repl.
type edit struct {
	off, n int
	repl   []byte
}

func splice(frame []byte, edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return a.off - b.off })
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(frame[at:e.off])
		out.Write(e.repl)
		at = e.off + e.n
	}
	out.Write(frame[at:])
	return out.Bytes()
}

// offset returns where sub, a slice of frame as jsonrpc.Parse returns them, starts.
func offset(frame, sub []byte) (int, bool) {
	off := cap(frame) - cap(sub)
	if off < 0 || off+len(sub) > len(frame) || !bytes.Equal(frame[off:off+len(sub)], sub) {
		return 0, false
	}
	return off, true
}

// rewrite returns frame with moat's ids in its requests, and those ids. A
// notifications/cancelled of the session names moat's id of the request it cancels.
func (m *ids) rewrite(frame []byte, f jsonrpc.Frame, session string) ([]byte, []string, error) {
	var edits []edit
	var mine []string
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.back == nil {
		m.back, m.forward = map[string]origID{}, map[string]string{}
	}
	for _, msg := range f.Messages {
		switch {
		case msg.Kind == jsonrpc.Request:
			off, ok := offset(frame, msg.ID)
			if !ok {
				return nil, nil, errors.New("moat could not place a request's id")
			}
			m.next++
			id := idPrefix + strconv.FormatUint(m.next, 10)
			fwd := session + "\x00" + idKey(msg.ID)
			m.back[id] = origID{id: slices.Clone(msg.ID), session: session, fwdKey: fwd}
			m.forward[fwd] = id
			m.order = append(m.order, id)
			mine = append(mine, id)
			edits = append(edits, edit{off, len(msg.ID), []byte(strconv.Quote(id))})
		case msg.Kind == jsonrpc.Notification && msg.Method == "notifications/cancelled":
			if e, ok := m.cancelled(frame, msg, session); ok {
				edits = append(edits, e)
			}
		}
	}
	for len(m.order) > maxIDs {
		m.forget(m.order[0])
	}
	if len(edits) == 0 {
		return frame, mine, nil
	}
	return splice(frame, edits), mine, nil
}

// cancelled returns the edit that makes a cancellation name moat's id of its request.
func (m *ids) cancelled(frame []byte, msg jsonrpc.Message, session string) (edit, bool) {
	var p map[string]json.RawMessage
	if json.Unmarshal(msg.Params, &p) != nil || p["requestId"] == nil {
		return edit{}, false
	}
	id, ok := m.forward[session+"\x00"+idKey(p["requestId"])]
	if !ok {
		return edit{}, false
	}
	p["requestId"], _ = json.Marshal(id)
	params, err := json.Marshal(p)
	if err != nil {
		return edit{}, false
	}
	off, ok := offset(frame, msg.Params)
	if !ok {
		return edit{}, false
	}
	return edit{off, len(msg.Params), params}, true
}

// forget drops one of moat's ids; the caller holds mu.
func (m *ids) forget(id string) {
	o, ok := m.back[id]
	if ok {
		delete(m.back, id)
		if m.forward[o.fwdKey] == id {
			delete(m.forward, o.fwdKey)
		}
	}
	if i := slices.Index(m.order, id); i >= 0 {
		m.order = slices.Delete(m.order, i, i+1)
	}
}

// restore returns msg (a message or a batch) with the client's ids in the responses to
// requests of the session: of this exchange only, when mine is not nil. Any other
// response with one of moat's ids is dropped: it belongs to another client, and passing
// it on would let a server answer one client's request on another's stream.
func (m *ids) restore(msg []byte, session string, mine []string) []byte {
	f, err := jsonrpc.Parse(msg)
	if err != nil {
		return msg // moat's own refusals parse; anything else was refused upstream of here
	}
	var edits []edit
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range f.Messages {
		if r.Kind != jsonrpc.Response || len(r.ID) == 0 || r.ID[0] != '"' {
			continue
		}
		var id string
		if json.Unmarshal(r.ID, &id) != nil {
			continue
		}
		o, ok := m.back[id]
		if !ok || o.session != session || (mine != nil && !slices.Contains(mine, id)) {
			if bytes.HasPrefix([]byte(id), []byte(idPrefix)) {
				return nil
			}
			continue
		}
		off, ok := offset(msg, r.ID)
		if !ok {
			return nil
		}
		edits = append(edits, edit{off, len(r.ID), o.id})
		m.forget(id)
	}
	if len(edits) == 0 {
		return msg
	}
	return splice(msg, edits)
}

// idKey is the same for every spelling of an id, as the Proxy's is.
func idKey(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}

// abandon forgets those of mine that are still waiting for a response, and returns
// them as JSON ids.
func (m *ids) abandon(mine []string) []json.RawMessage {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []json.RawMessage
	for _, id := range mine {
		if _, ok := m.back[id]; ok {
			m.forget(id)
			out = append(out, json.RawMessage(strconv.Quote(id)))
		}
	}
	return out
}
