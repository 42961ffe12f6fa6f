package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/fleetdb"
)

// Fleet reads the fleet's PostgreSQL database, where many machines ship their records,
// for the fleet page. Its methods return an error wrapping ErrNoFleet while no database
// is configured (a nil Options.Fleet means the same): the page then says how to name one.
type Fleet interface {
	// Machines returns the machines that ship to the database.
	Machines(ctx context.Context) ([]fleetdb.MachineStatus, error)
	// Summary counts the decisions of the period from since, top machines listed.
	Summary(ctx context.Context, since time.Time, top int) (fleetdb.Summary, error)
	// Records returns the newest records f selects, at most limit.
	Records(ctx context.Context, f fleetdb.Filter, limit int) ([]fleetdb.RemoteRecord, error)
}

// ErrNoFleet says that no fleet database is configured.
var ErrNoFleet = errors.New("no fleet database: add an audit: section with postgres: to this environment's fleet.yaml")

// fleetTop is how many machines the fleet page's chart shows.
const fleetTop = 20

// fleetQuietAfter is how long without shipping makes a machine quiet on the page.
const fleetQuietAfter = 24 * time.Hour

func (s *Server) fleetRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/fleet", s.api(s.handleFleet))
	mux.Handle("GET /api/fleet/machines.svg", s.api(s.handleFleetChart))
	mux.Handle("GET /api/fleet/records", s.api(s.handleFleetRecords))
}

// fleetAnswer is the answer of GET /api/fleet.
type fleetAnswer struct {
	Since    time.Time           `json:"since"`
	Machines []fleetMachine      `json:"machines"`
	Summary  fleetdb.Summary     `json:"summary"`
	Chart    chartInfo           `json:"chart"`
	Top      []auditdb.KeyCounts `json:"top"`
}

// fleetMachine is a machine as the page lists it.
type fleetMachine struct {
	fleetdb.MachineStatus
	// Quiet says it has shipped nothing for fleetQuietAfter.
	Quiet bool `json:"quiet"`
}

// fleetSince reads range=24h|7d|30d (the charts page's ranges) as the start of the
// period.
func (s *Server) fleetSince(r *http.Request) (time.Time, string, bool) {
	name := r.URL.Query().Get("range")
	if name == "" {
		name = chartRanges[0].name
	}
	for _, cr := range chartRanges {
		if cr.name == name {
			return s.opts.Now().Add(-cr.span), name, true
		}
	}
	return time.Time{}, name, false
}

// fleetSummary answers for a request that needs the fleet's database, false when there is none
// or the range is wrong (the answer is written).
func (s *Server) fleetSummary(w http.ResponseWriter, r *http.Request) (fleetdb.Summary, bool) {
	if s.opts.Fleet == nil {
		writeError(w, http.StatusServiceUnavailable, ErrNoFleet.Error())
		return fleetdb.Summary{}, false
	}
	since, name, ok := s.fleetSince(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "range: "+strconv.Quote(name)+" (want 24h, 7d or 30d)")
		return fleetdb.Summary{}, false
	}
	sum, err := s.opts.Fleet.Summary(r.Context(), since, fleetTop)
	if err != nil {
		s.fleetFail(w, r, err)
		return fleetdb.Summary{}, false
	}
	return sum, true
}

// machineRows are the summary's machines as the bars of a top chart, keyed by name.
func machineRows(sum fleetdb.Summary) []auditdb.KeyCounts {
	rows := make([]auditdb.KeyCounts, 0, len(sum.ByMachine))
	for _, m := range sum.ByMachine {
		rows = append(rows, auditdb.KeyCounts{Key: machineName(m.Machine, m.MachineID), Counts: m.Counts})
	}
	return rows
}

func machineName(name, id string) string {
	if name == "" {
		return id
	}
	return name
}

const fleetChartTitle = "Decisions per machine"

func (s *Server) handleFleet(w http.ResponseWriter, r *http.Request, _ *session) {
	sum, ok := s.fleetSummary(w, r)
	if !ok {
		return
	}
	ms, err := s.opts.Fleet.Machines(r.Context())
	if err != nil {
		s.fleetFail(w, r, err)
		return
	}
	cutoff := s.opts.Now().Add(-fleetQuietAfter)
	ans := fleetAnswer{Since: sum.Since, Summary: sum, Machines: []fleetMachine{}, Top: machineRows(sum)}
	for _, m := range ms {
		ans.Machines = append(ans.Machines, fleetMachine{MachineStatus: m, Quiet: m.LastSeen.Before(cutoff)})
	}
	ans.Chart = chartInfo{Name: "machines", Title: fleetChartTitle, Alt: topAlt(fleetChartTitle, ans.Top, machineLabel)}
	writeJSON(w, http.StatusOK, ans)
}

func machineLabel(k string) string {
	if k == "" {
		return "(no machine name)"
	}
	return k
}

// handleFleetChart draws the decisions per machine: GET /api/fleet/machines.svg.
func (s *Server) handleFleetChart(w http.ResponseWriter, r *http.Request, _ *session) {
	sum, ok := s.fleetSummary(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(drawTop(fleetChartTitle, machineRows(sum), machineLabel))
}

// fleetRecord is one record of a machine, as the page lists it.
type fleetRecord struct {
	Machine   string       `json:"machine"`
	MachineID string       `json:"machine_id"`
	Record    audit.Record `json:"record"`
}

// handleFleetRecords lists the newest records of one machine (machine=ID or name), or
// of every machine: GET /api/fleet/records?machine=M&limit=N.
func (s *Server) handleFleetRecords(w http.ResponseWriter, r *http.Request, _ *session) {
	if s.opts.Fleet == nil {
		writeError(w, http.StatusServiceUnavailable, ErrNoFleet.Error())
		return
	}
	q := r.URL.Query()
	var f fleetdb.Filter
	if m := strings.TrimSpace(q.Get("machine")); m != "" {
		if len(m) > maxFilterText {
			writeError(w, http.StatusBadRequest, "machine is too long")
			return
		}
		f.Machines = []string{m}
	}
	limit := defaultPage
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxPage {
			writeError(w, http.StatusBadRequest, "limit: want a count from 1 to "+strconv.Itoa(maxPage))
			return
		}
		limit = n
	}
	recs, err := s.opts.Fleet.Records(r.Context(), f, limit)
	if err != nil {
		s.fleetFail(w, r, err)
		return
	}
	out := make([]fleetRecord, 0, len(recs))
	for _, rr := range recs {
		out = append(out, fleetRecord{Machine: rr.Machine, MachineID: rr.MachineID, Record: rr.Record})
	}
	writeJSON(w, http.StatusOK, struct {
		Records []fleetRecord `json:"records"`
	}{out})
}

// fleetFail answers a request the fleet's database could not serve: unavailable while
// none is configured, else a failure of the server, logged.
func (s *Server) fleetFail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, ErrNoFleet) {
		writeError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	s.fail(w, r, err)
}
