package fleetdb_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/fleetdb/fleetdbtest"
	"github.com/moatdev/moat/internal/logview"
	"github.com/moatdev/moat/internal/testpg"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

var machines = []fleetdbtest.Machine{
	{ID: "aaaa", Name: "alpha", OSUser: "ann", Version: "1.4.0", ManagedSerial: 7},
	{ID: "bbbb", Name: "beta", OSUser: "bob", Version: "1.4.0", ManagedSerial: 6},
	{ID: "cccc", Name: "gamma", OSUser: "cid", Version: "1.3.2"},
}

// record is the n-th made-up decision of a machine: agents, tools, verdicts, sessions
// and failures vary with n, and times fall between microseconds.
func record(machine, n int) audit.Record {
	agents := []string{"claude-code", "cursor", "codex", ""}
	verdicts := []call.Verdict{call.Allow, call.Deny, call.Ask, call.Audit}
	r := audit.Record{
		Time:    t0.Add(time.Duration(n)*time.Second + time.Duration(machine)*333*time.Nanosecond),
		Agent:   agents[(n+machine)%len(agents)],
		Session: fmt.Sprintf("s%d", n%4),
		Class:   "shell", Tool: "Bash", Args: map[string]any{"command": fmt.Sprintf("ls %d", n)},
		Decision: verdicts[(n*7+machine)%len(verdicts)],
		Rule:     fmt.Sprintf("rule-%d", n%3),
	}
	switch n % 5 {
	case 1:
		r.Class, r.Tool, r.Args = "file.read", "read_file", map[string]any{"path": "/etc/passwd"}
	case 2:
		r.Class, r.Tool, r.MCP = "mcp", "mcp__github__create_issue", "mcp:github/create_issue"
	case 3:
		r.Class, r.Tool, r.Failure, r.Rule = "other", "?", true, "fail-closed"
	}
	if machine == 0 {
		r.ManagedSerial = 7
	}
	return r
}

// filled is a migrated database holding count records of each machine, and the records
// as stored, each with its machine.
func filled(t *testing.T, pg *testpg.Server, name string, count int) (*pgx.Conn, []stored) {
	t.Helper()
	conn := fleetdbtest.Open(t, pg, name)
	var all []stored
	for i, m := range machines {
		recs := make([]audit.Record, count)
		for n := range recs {
			recs[n] = record(i, n)
		}
		for _, r := range fleetdbtest.Insert(t, conn, m, recs...) {
			all = append(all, stored{m, r})
		}
	}
	return conn, all
}

type stored struct {
	m fleetdbtest.Machine
	r audit.Record
}

// key names a record across the fleet.
func key(machineID string, seq uint64) string { return fmt.Sprintf("%s/%d", machineID, seq) }

func TestQueryFilters(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	ctx := context.Background()
	conn, all := filled(t, pg, "filters", 60)
	since := t0.Add(30*time.Second + 333*time.Nanosecond) // machine 1's record 30 is at it, machine 2's 333 ns after
	tests := []struct {
		name string
		f    fleetdb.Filter
	}{
		{"none", fleetdb.Filter{}},
		{"decision", fleetdb.Filter{Filter: logview.Filter{Decisions: []call.Verdict{call.Deny, call.Ask}}}},
		{"agent", fleetdb.Filter{Filter: logview.Filter{Agents: []string{"cursor"}}}},
		{"no agent", fleetdb.Filter{Filter: logview.Filter{Agents: []string{""}}}},
		{"session", fleetdb.Filter{Filter: logview.Filter{Sessions: []string{"s1", "s3"}}}},
		{"since, between microseconds", fleetdb.Filter{Filter: logview.Filter{Since: since}}},
		{"failures", fleetdb.Filter{Filter: logview.Filter{Failures: true}}},
		{"tool by native name, any case", fleetdb.Filter{Filter: logview.Filter{Tools: []string{"bash"}}}},
		{"tool by class", fleetdb.Filter{Filter: logview.Filter{Tools: []string{"FILE.READ"}}}},
		{"tool by MCP name", fleetdb.Filter{Filter: logview.Filter{Tools: []string{"mcp:GitHub/create_issue"}}}},
		{"seq", fleetdb.Filter{Filter: logview.Filter{Seqs: []uint64{3, 41}}}},
		{"machine by name", fleetdb.Filter{Machines: []string{"beta"}}},
		{"machine by id", fleetdb.Filter{Machines: []string{"cccc", "alpha"}}},
		{"unknown machine", fleetdb.Filter{Machines: []string{"delta"}}},
		{"combined", fleetdb.Filter{Filter: logview.Filter{Agents: []string{"claude-code", "codex"}, Decisions: []call.Verdict{call.Deny, call.Ask}, Tools: []string{"shell", "file.read"}}, Machines: []string{"alpha", "gamma"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for _, s := range all {
				if tt.f.Match(s.m.ID, s.m.Name, s.r) {
					want = append(want, key(s.m.ID, s.r.Seq))
				}
			}
			if tt.name != "unknown machine" && len(want) == 0 {
				t.Fatal("the test's filter matches nothing")
			}
			// The SQL alone selects what Match does, and beyond it only records in the
			// microsecond of Since (the database keeps microseconds): Match drops those.
			sql, err := fleetdb.SelectForTest(ctx, conn, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rr := range sql {
				if !tt.f.Match(rr.MachineID, rr.Machine, rr.Record) && rr.Record.Time.Before(tt.f.Since) && !rr.Record.Time.Before(tt.f.Since.Truncate(time.Microsecond)) {
					continue
				}
				got = append(got, key(rr.MachineID, rr.Record.Seq))
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("SQL selects %d records, Match %d:\n got %v\nwant %v", len(got), len(want), got, want)
			}

			// Read: all of them, oldest first, as stored.
			var read []fleetdb.RemoteRecord
			if _, err := fleetdb.Read(ctx, conn, tt.f, fleetdb.Cursor{}, func(rr fleetdb.RemoteRecord) error {
				read = append(read, rr)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var readKeys []string
			for _, rr := range read {
				readKeys = append(readKeys, key(rr.MachineID, rr.Record.Seq))
			}
			slices.Sort(readKeys)
			if !slices.Equal(readKeys, want) {
				t.Fatalf("Read: %v, want %v", readKeys, want)
			}
			for i := 1; i < len(read); i++ {
				if read[i].Record.Time.Before(read[i-1].Record.Time) {
					t.Fatalf("Read is not oldest first at %d", i)
				}
			}
			// Query: pages of 7, newest first, together the same records.
			var paged []fleetdb.RemoteRecord
			page := fleetdb.Page{Limit: 7}
			for {
				res, err := fleetdb.Query(ctx, conn, tt.f, page)
				if err != nil {
					t.Fatal(err)
				}
				paged = append(paged, res.Records...)
				if !res.More {
					break
				}
				page.Before = res.Next
			}
			slices.Reverse(paged)
			if len(paged) != len(read) {
				t.Fatalf("Query's pages hold %d records, Read %d", len(paged), len(read))
			}
			for i := range paged {
				if paged[i].MachineID != read[i].MachineID || !reflect.DeepEqual(paged[i].Record, read[i].Record) {
					t.Fatalf("record %d: pages %s/%d, Read %s/%d", i, paged[i].MachineID, paged[i].Record.Seq, read[i].MachineID, read[i].Record.Seq)
				}
			}
		})
	}
	// The records read back are the records stored, line for line.
	var read []fleetdb.RemoteRecord
	if _, err := fleetdb.Read(ctx, conn, fleetdb.Filter{Machines: []string{"alpha"}}, fleetdb.Cursor{}, func(rr fleetdb.RemoteRecord) error {
		read = append(read, rr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, rr := range read {
		line, _ := json.Marshal(all[i].r)
		if rr.Line != string(line) || rr.Machine != "alpha" || rr.OSUser != "ann" || !reflect.DeepEqual(rr.Record, all[i].r) {
			t.Fatalf("record %d read back as %s/%s %s, stored %s", i, rr.Machine, rr.OSUser, rr.Line, line)
		}
	}
}

func TestRowOf(t *testing.T) {
	r := record(2, 2)
	r.Seq, r.Cwd, r.Event, r.Policy, r.ManagedSerial = 9, "/w", "pre_tool_use", "/p/moat.yaml", 4
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fleetdb.RowOf("id", "host", "u", 9, append(line, '\n'))
	if err != nil {
		t.Fatal(err)
	}
	want := fleetdb.Row{MachineID: "id", Seq: 9, Machine: "host", OSUser: "u", Time: r.Time, Agent: r.Agent, Session: r.Session,
		Event: "pre_tool_use", Class: "mcp", Tool: r.Tool, MCP: r.MCP, Decision: r.Decision.String(), Rule: r.Rule,
		Policy: "/p/moat.yaml", ManagedSerial: 4, Cwd: "/w", Line: string(line)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RowOf:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []struct {
		name string
		id   string
		seq  uint64
		line string
	}{
		{"no number", "id", 0, string(line)},
		{"other number", "id", 8, string(line)},
		{"no machine", "", 9, string(line)},
		{"not a record", "id", 9, "{"},
	} {
		if _, err := fleetdb.RowOf(bad.id, "host", "u", bad.seq, []byte(bad.line)); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

func TestSummarizeAndMachines(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	ctx := context.Background()
	conn, all := filled(t, pg, "summary", 40)
	// A fourth machine, long quiet, with one record.
	old := fleetdbtest.Machine{ID: "dddd", Name: "delta", OSUser: "dee", Version: "1.2.0", LastSeen: t0.Add(-30 * 24 * time.Hour)}
	for _, r := range fleetdbtest.Insert(t, conn, old, audit.Record{Time: t0.Add(-31 * 24 * time.Hour), Class: "shell", Tool: "Bash", Decision: call.Deny}) {
		all = append(all, stored{old, r})
	}
	since := t0.Add(10 * time.Second)
	s, err := fleetdb.Summarize(ctx, conn, fleetdb.SummaryQuery{Since: since, Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The same counts, made in Go from the records.
	perMachine := map[string]int64{}
	var total, deny int64
	serials := map[int64]map[string]bool{}
	for _, st := range all {
		if st.r.Time.Before(since) {
			continue
		}
		total++
		perMachine[st.m.ID]++
		if st.r.Decision == call.Deny {
			deny++
		}
		if serials[st.r.ManagedSerial] == nil {
			serials[st.r.ManagedSerial] = map[string]bool{}
		}
		serials[st.r.ManagedSerial][st.m.ID] = true
	}
	if s.Decisions.Total() != total || s.Decisions.Deny != deny || s.Machines != len(perMachine) || s.Machines != 3 {
		t.Errorf("summary %+v: want %d decisions (%d deny) on %d machines", s, total, deny, len(perMachine))
	}
	if len(s.ByMachine) != 2 {
		t.Fatalf("top 2 machines: %+v", s.ByMachine)
	}
	for _, mc := range s.ByMachine {
		if mc.Counts.Total() != perMachine[mc.MachineID] {
			t.Errorf("machine %s: %d decisions, want %d", mc.Machine, mc.Counts.Total(), perMachine[mc.MachineID])
		}
	}
	want := []fleetdb.SerialCount{{Serial: 7, Machines: 1, Decisions: perMachine["aaaa"]}, {Serial: 0, Machines: 2, Decisions: perMachine["bbbb"] + perMachine["cccc"]}}
	if !reflect.DeepEqual(s.Serials, want) {
		t.Errorf("serials %+v, want %+v (%v)", s.Serials, want, serials)
	}

	ms, err := fleetdb.Machines(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, fmt.Sprintf("%s/%s/%s/%d/%d", m.Machine, m.OSUser, m.Version, m.ManagedSerial, m.LastSeq))
	}
	if w := []string{"alpha/ann/1.4.0/7/40", "beta/bob/1.4.0/6/40", "delta/dee/1.2.0/0/1", "gamma/cid/1.3.2/0/40"}; !slices.Equal(names, w) {
		t.Errorf("machines %v, want %v", names, w)
	}
	quiet := fleetdb.Quiet(ms, time.Now().Add(-24*time.Hour))
	if len(quiet) != 1 || quiet[0].Machine != "delta" {
		t.Errorf("quiet machines: %+v", quiet)
	}
}

func TestFollow(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	conn := fleetdbtest.Open(t, pg, "follow")
	dsn := pg.DSN("follow")
	fleetdbtest.Insert(t, conn, machines[0], record(0, 0), record(0, 1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reader, err := fleetdb.Connect(ctx, dsn, pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close(context.Background())
	var mu sync.Mutex
	var got []string
	caught := make(chan struct{})
	done := make(chan error, 1)
	f := fleetdb.Filter{Filter: logview.Filter{Decisions: []call.Verdict{call.Allow, call.Deny}}}
	go func() {
		done <- fleetdb.Follow(ctx, reader, f, true, 20*time.Millisecond, func() error { close(caught); return nil }, func(rr fleetdb.RemoteRecord) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, key(rr.MachineID, rr.Record.Seq))
			return nil
		})
	}()
	<-caught
	// A record shipped late (older than those seen) from a new machine, and more of the
	// first machine's.
	late := record(1, 0)
	late.Time = t0.Add(-time.Hour)
	fleetdbtest.Insert(t, conn, machines[1], late)
	fleetdbtest.Insert(t, conn, machines[0], record(0, 2), record(0, 3), record(0, 4))
	want := []string{}
	for _, s := range []struct {
		m fleetdbtest.Machine
		r audit.Record
		n uint64
	}{{machines[0], record(0, 0), 1}, {machines[0], record(0, 1), 2}, {machines[1], late, 1}, {machines[0], record(0, 2), 3}, {machines[0], record(0, 3), 4}, {machines[0], record(0, 4), 5}} {
		if f.Match(s.m.ID, s.m.Name, s.r) {
			want = append(want, key(s.m.ID, s.n))
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("followed %v, want %v", got, want)
	}
}
