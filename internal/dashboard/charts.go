package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit/auditdb"
)

// Stats counts the decisions of the audit database for the charts.
type Stats interface {
	Stats(ctx context.Context, q auditdb.StatsQuery) (auditdb.Stats, error)
}

// chartRange is a time range the charts page offers, and the width of its bars.
type chartRange struct {
	name   string
	span   time.Duration
	bucket time.Duration
}

// chartRanges are the ranges of the page's selector; the first is the default.
var chartRanges = []chartRange{
	{"24h", 24 * time.Hour, time.Hour},
	{"7d", 7 * 24 * time.Hour, 6 * time.Hour},
	{"30d", 30 * 24 * time.Hour, 24 * time.Hour},
}

// maxChartSpan bounds a range given by since and until.
const maxChartSpan = 400 * 24 * time.Hour

// chartQuery reads the range of a charts request: range=24h|7d|30d, or since and until
// (RFC 3339; until defaults to now). Ranges end at the end of the current hour, so that
// the last bar is the hour under way.
func (s *Server) chartQuery(r *http.Request) (auditdb.StatsQuery, error) {
	q := r.URL.Query()
	until := s.opts.Now().Truncate(time.Hour).Add(time.Hour)
	if v := q.Get("until"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return auditdb.StatsQuery{}, fmt.Errorf("until: %q is no RFC 3339 time", v)
		}
		until = t
	}
	if v := q.Get("since"); v != "" {
		if q.Get("range") != "" {
			return auditdb.StatsQuery{}, fmt.Errorf("give range, or since and until, not both")
		}
		since, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return auditdb.StatsQuery{}, fmt.Errorf("since: %q is no RFC 3339 time", v)
		}
		span := until.Sub(since)
		if span <= 0 || span > maxChartSpan {
			return auditdb.StatsQuery{}, fmt.Errorf("since to until: %s, which is not between an hour and %d days", span, maxChartSpan/(24*time.Hour))
		}
		// The narrowest bars that fit at most 48 in the range.
		bucket := time.Hour
		for _, b := range []time.Duration{time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour} {
			bucket = b
			if span <= 48*b {
				break
			}
		}
		return auditdb.StatsQuery{Since: since, Until: until, Bucket: bucket}, nil
	}
	name := q.Get("range")
	if name == "" {
		name = chartRanges[0].name
	}
	for _, cr := range chartRanges {
		if cr.name == name {
			return auditdb.StatsQuery{Since: until.Add(-cr.span), Until: until, Bucket: cr.bucket}, nil
		}
	}
	return auditdb.StatsQuery{}, fmt.Errorf("range: %q (want 24h, 7d or 30d)", name)
}

// chartInfo names one chart and says what it shows, for the page.
type chartInfo struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	// Alt is the chart's text alternative: its numbers in a sentence.
	Alt string `json:"alt"`
}

// chartsAnswer is the answer of GET /api/charts: the numbers and the charts drawn of them.
type chartsAnswer struct {
	Stats  auditdb.Stats `json:"stats"`
	Charts []chartInfo   `json:"charts"`
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request) (auditdb.Stats, bool) {
	if s.opts.Stats == nil {
		writeError(w, http.StatusServiceUnavailable, "the audit database is not available to this dashboard")
		return auditdb.Stats{}, false
	}
	q, err := s.chartQuery(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return auditdb.Stats{}, false
	}
	st, err := s.opts.Stats.Stats(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return auditdb.Stats{}, false
	}
	return st, true
}

func (s *Server) handleCharts(w http.ResponseWriter, r *http.Request, _ *session) {
	st, ok := s.stats(w, r)
	if !ok {
		return
	}
	ans := chartsAnswer{Stats: st}
	for _, c := range charts {
		ans.Charts = append(ans.Charts, chartInfo{Name: c.name, Title: c.title, Alt: c.alt(st, s.location())})
	}
	writeJSON(w, http.StatusOK, ans)
}

// handleChartSVG draws one chart: GET /api/charts/NAME.svg.
func (s *Server) handleChartSVG(w http.ResponseWriter, r *http.Request, _ *session) {
	name, ok := strings.CutSuffix(r.PathValue("file"), ".svg")
	c, found := chartNamed(name)
	if !ok || !found {
		writeError(w, http.StatusNotFound, "no chart "+r.PathValue("file"))
		return
	}
	st, ok := s.stats(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(c.draw(st, s.location()))
}

// location is the time zone of the charts' labels: the daemon's, which is its user's.
func (s *Server) location() *time.Location { return s.opts.Now().Location() }
