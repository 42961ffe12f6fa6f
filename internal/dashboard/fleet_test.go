package dashboard

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fleetdb"
)

// fakeFleet is a fleet database of three machines, one with a hostile name; it records
// the questions asked.
type fakeFleet struct {
	since   []time.Time
	filters []fleetdb.Filter
	fail    error
}

const hostileMachine = `</text><script>alert("m")</script>`

func (f *fakeFleet) Machines(context.Context) ([]fleetdb.MachineStatus, error) {
	now := time.Date(2026, 5, 6, 12, 30, 0, 0, time.UTC)
	return []fleetdb.MachineStatus{
		{MachineID: "a1", Machine: "alpha", OSUser: "ann", Version: "1.5.0", ManagedSerial: 3, LastSeq: 40, LastSeen: now.Add(-time.Minute)},
		{MachineID: "b2", Machine: hostileMachine, OSUser: "bob", Version: "1.4.0", LastSeq: 2, LastSeen: now.Add(-72 * time.Hour)},
		{MachineID: "c3", OSUser: "cid", LastSeq: 1, LastSeen: now.Add(-time.Hour)},
	}, f.fail
}

func (f *fakeFleet) Summary(_ context.Context, since time.Time, top int) (fleetdb.Summary, error) {
	f.since = append(f.since, since)
	return fleetdb.Summary{Since: since, Machines: 3, Decisions: auditdb.VerdictCounts{Allow: 30, Deny: 12, Ask: 1},
		ByMachine: []fleetdb.MachineCounts{
			{MachineID: "a1", Machine: "alpha", Counts: auditdb.VerdictCounts{Allow: 30, Deny: 10}},
			{MachineID: "b2", Machine: hostileMachine, Counts: auditdb.VerdictCounts{Deny: 2}},
			{MachineID: "c3", Counts: auditdb.VerdictCounts{Ask: 1}},
		}[:min(top, 3)]}, f.fail
}

func (f *fakeFleet) Records(_ context.Context, flt fleetdb.Filter, limit int) ([]fleetdb.RemoteRecord, error) {
	f.filters = append(f.filters, flt)
	return []fleetdb.RemoteRecord{{MachineID: "b2", Machine: hostileMachine, Record: audit.Record{Seq: 2, Class: "shell", Tool: "Bash",
		Args: map[string]any{"command": hostileCommand}, Decision: call.Deny}}}[:min(limit, 1)], f.fail
}

func TestFleetPage(t *testing.T) {
	now := time.Date(2026, 5, 6, 12, 30, 0, 0, time.UTC)
	fleet := &fakeFleet{}
	s := New(Options{Fleet: fleet, Now: func() time.Time { return now }})
	origin := served(t, s)
	c := browser(t)
	login(t, s, c)

	code, body := request(t, c, origin, "", "GET", "/api/fleet?range=7d", nil)
	if code != http.StatusOK {
		t.Fatalf("GET /api/fleet: %d %s", code, body)
	}
	var ans fleetAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		t.Fatal(err)
	}
	if !fleet.since[0].Equal(now.Add(-7 * 24 * time.Hour)) {
		t.Errorf("asked since %s", fleet.since[0])
	}
	var quiet []string
	for _, m := range ans.Machines {
		if m.Quiet {
			quiet = append(quiet, m.MachineID)
		}
	}
	if len(ans.Machines) != 3 || !slices.Equal(quiet, []string{"b2"}) || ans.Summary.Decisions.Deny != 12 {
		t.Errorf("answer %+v", ans)
	}
	// Bars keyed by name, by id for a machine without one.
	if keys := []string{ans.Top[0].Key, ans.Top[1].Key, ans.Top[2].Key}; !slices.Equal(keys, []string{"alpha", hostileMachine, "c3"}) || ans.Chart.Alt == "" {
		t.Errorf("top %v, chart %+v", keys, ans.Chart)
	}
	// The JSON escapes markup.
	if strings.Contains(string(body), "<script") {
		t.Errorf("unescaped markup in %s", body)
	}

	// The chart is SVG that parses, with the hostile name as text.
	resp, err := c.Get(origin + "/api/fleet/machines.svg?range=24h")
	if err != nil {
		t.Fatal(err)
	}
	svg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || strings.Contains(string(svg), "<script") {
		t.Fatalf("chart: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), svg)
	}
	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	var texts []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not XML: %v\n%s", err, svg)
		}
		if cd, ok := tok.(xml.CharData); ok {
			texts = append(texts, string(cd))
		}
	}
	if all := strings.Join(texts, "|"); !strings.Contains(all, hostileMachine) || !strings.Contains(all, "alpha") || !strings.Contains(all, "40") {
		t.Errorf("chart texts %q", all)
	}

	// A machine's records.
	code, body = request(t, c, origin, "", "GET", "/api/fleet/records?machine=b2&limit=5", nil)
	var recs struct {
		Records []fleetRecord `json:"records"`
	}
	if err := json.Unmarshal(body, &recs); code != http.StatusOK || err != nil || len(recs.Records) != 1 || recs.Records[0].Record.Args["command"] != hostileCommand {
		t.Fatalf("records: %d %s", code, body)
	}
	if f := fleet.filters[0]; !slices.Equal(f.Machines, []string{"b2"}) || !f.Filter.Empty() {
		t.Errorf("records asked with %+v", f)
	}

	for _, tt := range []struct {
		path string
		code int
	}{
		{"/api/fleet?range=1y", http.StatusBadRequest},
		{"/api/fleet/machines.svg?range=nope", http.StatusBadRequest},
		{"/api/fleet/records?limit=0", http.StatusBadRequest},
		{"/api/fleet/records?limit=100000", http.StatusBadRequest},
		{"/api/fleet/records?machine=" + strings.Repeat("x", maxFilterText+1), http.StatusBadRequest},
	} {
		if code, body := request(t, c, origin, "", "GET", tt.path, nil); code != tt.code {
			t.Errorf("GET %s: %d %s, want %d", tt.path, code, body, tt.code)
		}
	}
	// Not logged in: nothing.
	resp, err = http.Get(origin + "/api/fleet")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without a session: %d", resp.StatusCode)
	}
	// A failing database is an error of the server, said.
	fleet.fail = errors.New("connection refused")
	if code, body := request(t, c, origin, "", "GET", "/api/fleet", nil); code != http.StatusInternalServerError || !strings.Contains(string(body), "connection refused") {
		t.Errorf("failing database: %d %s", code, body)
	}
}

func TestFleetPageWithoutDatabase(t *testing.T) {
	for _, fleet := range []Fleet{nil, &fakeFleet{fail: fmt.Errorf("fleet: %w", ErrNoFleet)}} {
		s := New(Options{Fleet: fleet})
		origin := served(t, s)
		c := browser(t)
		login(t, s, c)
		for _, path := range []string{"/api/fleet", "/api/fleet/machines.svg", "/api/fleet/records"} {
			code, body := request(t, c, origin, "", "GET", path, nil)
			if code != http.StatusServiceUnavailable || !strings.Contains(string(body), "fleet.yaml") {
				t.Errorf("GET %s (%T): %d %s", path, fleet, code, body)
			}
		}
	}
}
