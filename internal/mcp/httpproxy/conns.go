package httpproxy

import (
	"sync"

	"github.com/moatdev/moat/internal/mcp"
)

// sessions holds the mcp.Conn of each legacy session, so that a response is read against
// the request of its own client whichever exchange brings it (a resumed GET stream, say),
// and ids pass unchanged: clients count their ids from 1, but each within its session.
// An exchange without a session (initialize, the 2026-07-28 revision) has a Conn of its
// own, forgotten when the exchange ends; a response it did not ask for is dropped. Each
// session vets its tools on its own (a server may list other tools to each); the
// exchanges without one share what was vetted.
type sessions struct {
	// stateless holds the tools vetted for the exchanges without a session: the
	// 2026-07-28 revision lists a server's tools for every client alike.
	stateless mcp.Tools

	mu    sync.Mutex
	conns map[string]*mcp.Conn
	order []string // oldest first, to bound conns
}

// maxSessions bounds the sessions remembered. The requests of a session forgotten this
// long ago get no answer through moat: their responses are dropped, not relayed unread.
const maxSessions = 1 << 12

// conn returns the Conn of a session, or a new one for an exchange without a session.
func (s *sessions) conn(session string) *mcp.Conn {
	if session == "" {
		return &mcp.Conn{Tools: &s.stateless}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[session]; ok {
		return c
	}
	if s.conns == nil {
		s.conns = map[string]*mcp.Conn{}
	}
	c := &mcp.Conn{}
	s.conns[session] = c
	s.order = append(s.order, session)
	for len(s.order) > maxSessions {
		delete(s.conns, s.order[0])
		s.order = s.order[1:]
	}
	return c
}

// end forgets a session the client ended (DELETE).
func (s *sessions) end(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[session]; !ok {
		return
	}
	delete(s.conns, session)
	for i, id := range s.order {
		if id == session {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}
