package dashboard

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/logview"
)

// Records reads the audit database of the dashboard's user.
type Records interface {
	// Query returns one page of the records f selects, newest first.
	Query(ctx context.Context, f auditdb.Filter, p auditdb.Page) (auditdb.Result, error)
	// Read calls fn for the records f selects numbered after after, oldest first, and
	// returns the number of the last one delivered.
	Read(ctx context.Context, f auditdb.Filter, after uint64, fn func(audit.Record) error) (uint64, error)
}

// Bounds of the records API.
const (
	// maxPage is the largest page a request may ask for.
	maxPage = 500
	// defaultPage is the page of a request that names none.
	defaultPage = 100
	// maxFilterText bounds each text of a filter, in bytes.
	maxFilterText = 200
	// maxStreamBatch bounds the records one poll of a stream sends; the rest follow
	// at the next.
	maxStreamBatch = 500
)

// recordsPage is the answer of GET /api/records.
type recordsPage struct {
	Records []audit.Record `json:"records"`
	// Next is the "before" of the next page, 0 when there is none.
	Next uint64 `json:"next"`
}

// recordFilter reads the filters of the live page from q: decision, agent, session,
// rule, tool, since, until (RFC 3339 times, or for since a span back from now as moat
// logs takes it) and q (text the stored record contains). The error says which is wrong.
func recordFilter(q url.Values, now time.Time) (auditdb.Filter, error) {
	var f auditdb.Filter
	for _, name := range []string{"decision", "agent", "session", "rule", "tool", "since", "until", "q"} {
		if v := q.Get(name); len(v) > maxFilterText {
			return f, fmt.Errorf("%s is longer than %d bytes", name, maxFilterText)
		}
	}
	if v := q.Get("decision"); v != "" {
		ds, err := logview.ParseDecisions([]string{v})
		if err != nil {
			return f, fmt.Errorf("decision %q: want allow, audit, ask or deny", v)
		}
		f.Decisions = ds
	}
	one := func(name string) []string {
		if v := strings.TrimSpace(q.Get(name)); v != "" {
			return []string{v}
		}
		return nil
	}
	f.Agents, f.Sessions, f.Rules, f.Tools = one("agent"), one("session"), one("rule"), one("tool")
	var err error
	if v := q.Get("since"); v != "" {
		if f.Since, err = logview.ParseSince(v, now, time.UTC); err != nil {
			return f, fmt.Errorf("since %q: want a time such as 2026-01-02T15:04:05Z or a span such as 90m, 2h or 7d", v)
		}
	}
	if v := q.Get("until"); v != "" {
		if f.Until, err = logview.ParseSince(v, now, time.UTC); err != nil {
			return f, fmt.Errorf("until %q: want a time such as 2026-01-02T15:04:05Z or a span such as 90m, 2h or 7d", v)
		}
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return f, errors.New("since is not before until")
	}
	f.Text = q.Get("q")
	return f, nil
}

// seqParam reads the record number name of q: 0 when absent.
func seqParam(q url.Values, name string) (uint64, error) { return parseSeq(name, q.Get(name)) }

// parseSeq reads v, the record number given as name: 0 when empty.
func parseSeq(name, v string) (uint64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > 1<<62 {
		return 0, fmt.Errorf("%s %q: want a record number", name, clipParam(v))
	}
	return n, nil
}

// recordsQuery is the filter of a request for records, or false once it has answered
// the request with why there is none.
func (s *Server) recordsQuery(w http.ResponseWriter, q url.Values) (auditdb.Filter, bool) {
	if s.opts.Records == nil {
		writeError(w, http.StatusServiceUnavailable, "no audit database")
		return auditdb.Filter{}, false
	}
	f, err := recordFilter(q, s.opts.Now())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return auditdb.Filter{}, false
	}
	return f, true
}

// handleRecords answers GET /api/records: one page of the records the filters select.
func (s *Server) handleRecords(w http.ResponseWriter, r *http.Request, _ *session) {
	q := r.URL.Query()
	f, ok := s.recordsQuery(w, q)
	if !ok {
		return
	}
	before, err := seqParam(q, "before")
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit, err := limitParam(q.Get("limit"), maxPage)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	limit = cmp.Or(limit, defaultPage)
	res, err := s.opts.Records.Query(r.Context(), f, auditdb.Page{Before: before, Limit: limit})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, recordsPage{Records: emptyIfNil(res.Records), Next: res.Next})
}

// handleRecord answers GET /api/records/{seq}: the record of that number.
func (s *Server) handleRecord(w http.ResponseWriter, r *http.Request, _ *session) {
	if s.opts.Records == nil {
		writeError(w, http.StatusServiceUnavailable, "no audit database")
		return
	}
	seq, err := strconv.ParseUint(r.PathValue("seq"), 10, 64)
	if err != nil || seq == 0 || seq > 1<<62 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("record %q: want a record number", r.PathValue("seq")))
		return
	}
	res, err := s.opts.Records.Query(r.Context(), auditdb.Filter{}, auditdb.Page{Before: seq + 1, Limit: 1})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if len(res.Records) == 0 || res.Records[0].Seq != seq {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no record %d", seq))
		return
	}
	writeJSON(w, http.StatusOK, res.Records[0])
}

// errBatchFull stops a Read once a stream's batch is full.
var errBatchFull = errors.New("batch full")

// handleRecordStream answers GET /api/records/stream: the records the filters select
// as they are stored, oldest first, as "record" events numbered by seq. It starts after
// the record "after" names, or the browser's Last-Event-ID on a reconnection, or else
// after the newest record.
func (s *Server) handleRecordStream(w http.ResponseWriter, r *http.Request, _ *session) {
	q := r.URL.Query()
	f, ok := s.recordsQuery(w, q)
	if !ok {
		return
	}
	after, err := seqParam(q, "after")
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if after, err = parseSeq("Last-Event-ID", id); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
	} else if q.Get("after") == "" {
		res, err := s.opts.Records.Query(r.Context(), auditdb.Filter{}, auditdb.Page{Limit: 1})
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if len(res.Records) > 0 {
			after = res.Records[0].Seq
		}
	}
	s.stream(w, r, func(ctx context.Context) ([]Event, error) {
		var evs []Event
		last, err := s.opts.Records.Read(ctx, f, after, func(rec audit.Record) error {
			evs = append(evs, Event{Name: "record", ID: strconv.FormatUint(rec.Seq, 10), Data: rec})
			if len(evs) == maxStreamBatch {
				return errBatchFull
			}
			return nil
		})
		if err != nil && !errors.Is(err, errBatchFull) {
			return nil, err
		}
		after = last
		return evs, nil
	})
}
