package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
)

// Sessions reads the agent sessions of the audit database of the dashboard's user.
type Sessions interface {
	// Sessions lists the sessions, the one with the newest record first.
	Sessions(ctx context.Context, f auditdb.SessionFilter) ([]auditdb.Session, error)
	// SessionRecords pages one session's records, oldest first.
	SessionRecords(ctx context.Context, agent, session string, after uint64, limit int) (auditdb.SessionPage, error)
}

// maxName bounds an agent's or a session's name in a request.
const maxName = 200

// sessionList is the answer of GET /api/sessions.
type sessionList struct {
	Sessions []auditdb.Session `json:"sessions"`
}

// sessionRecords is the answer of GET /api/sessions/{agent}/{session}: records oldest
// first; Next is the after of the next page, 0 when these reach the newest.
type sessionRecords struct {
	Agent   string         `json:"agent"`
	Session string         `json:"session"`
	Records []audit.Record `json:"records"`
	Next    uint64         `json:"next,omitempty"`
}

// sessionRoutes registers the sessions' API.
func (s *Server) sessionRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/sessions", s.api(s.handleSessions))
	mux.Handle("GET /api/sessions/{agent}/{session}", s.api(s.handleSessionRecords))
	mux.Handle("GET /api/sessions/{agent}/{session}/stream", s.api(s.handleSessionStream))
}

// sessionSource is the source of sessions, or false after answering why there is none.
func (s *Server) sessionSource(w http.ResponseWriter) (Sessions, bool) {
	if s.opts.Sessions == nil {
		writeError(w, http.StatusServiceUnavailable, "this dashboard has no audit database to read sessions from")
		return nil, false
	}
	return s.opts.Sessions, true
}

func (s *Server) handleSessions(w http.ResponseWriter, r *http.Request, _ *session) {
	src, ok := s.sessionSource(w)
	if !ok {
		return
	}
	var f auditdb.SessionFilter
	var err error
	q := r.URL.Query()
	if f.Since, err = sinceParam(q.Get("since"), s.opts.Now()); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if f.Limit, err = limitParam(q.Get("limit"), auditdb.MaxSessionPage); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	list, err := src.Sessions(r.Context(), f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sessionList{Sessions: emptyIfNil(list)})
}

// sessionName reads the agent and session of the request's path, or says why they are
// not names.
func sessionName(r *http.Request) (agent, sid string, err error) {
	agent, sid = r.PathValue("agent"), r.PathValue("session")
	if agent == "" || sid == "" || len(agent) > maxName || len(sid) > maxName {
		return "", "", fmt.Errorf("an agent and a session of 1 to %d bytes each", maxName)
	}
	return agent, sid, nil
}

func (s *Server) handleSessionRecords(w http.ResponseWriter, r *http.Request, _ *session) {
	src, ok := s.sessionSource(w)
	if !ok {
		return
	}
	agent, sid, err := sessionName(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q := r.URL.Query()
	after, err := seqParam(q, "after")
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit, err := limitParam(q.Get("limit"), auditdb.MaxSessionPage)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	page, err := src.SessionRecords(r.Context(), agent, sid, after, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, sessionRecords{Agent: agent, Session: sid, Records: emptyIfNil(page.Records), Next: page.Next})
}

// handleSessionStream sends the session's records numbered after ?after (or the
// browser's Last-Event-ID on a reconnection) as "records" events, a page at a time, as
// they are stored.
func (s *Server) handleSessionStream(w http.ResponseWriter, r *http.Request, _ *session) {
	src, ok := s.sessionSource(w)
	if !ok {
		return
	}
	agent, sid, err := sessionName(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	name, from := "after", r.URL.Query().Get("after")
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		name, from = "Last-Event-ID", id
	}
	after, err := parseSeq(name, from)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.stream(w, r, func(ctx context.Context) ([]Event, error) {
		page, err := src.SessionRecords(ctx, agent, sid, after, auditdb.MaxSessionPage)
		if err != nil || len(page.Records) == 0 {
			return nil, err
		}
		after = page.Records[len(page.Records)-1].Seq
		return []Event{{Name: "records", ID: strconv.FormatUint(after, 10), Data: page.Records}}, nil
	})
}

// sinceParam reads a since parameter: an RFC 3339 time, or a duration ("24h") before
// now; "" is no bound.
func sinceParam(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("since %q: an RFC 3339 time or a duration such as 24h", clipParam(v))
}

// limitParam reads a limit parameter: 1 to most; "" is 0, the default.
func limitParam(v string, most int) (int, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > most {
		return 0, fmt.Errorf("limit %q: a number from 1 to %d", clipParam(v), most)
	}
	return n, nil
}

// clipParam bounds a parameter echoed in an error.
func clipParam(v string) string {
	if len(v) > 40 {
		return v[:40] + "…"
	}
	return v
}
