package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/fleetdb/fleetdbtest"
	"github.com/moatdev/moat/internal/report"
	"github.com/moatdev/moat/internal/testpg"
)

// remoteFixture is a fleet database with the sample records shipped by two machines
// (the second's an hour later), a home whose fleet.yaml names it, and the home of a
// user with the first machine's records in its own log.
type remoteFixture struct {
	pg                *testpg.Server
	fleetHome, alphas string
	dsn               string
}

var (
	alpha = fleetdbtest.Machine{ID: "a1a1", Name: "alpha", OSUser: "ann", Version: "1.5.0", ManagedSerial: 3}
	beta  = fleetdbtest.Machine{ID: "b2b2", Name: "beta", OSUser: "bob", Version: "1.4.0", LastSeen: logsNow.Add(-48 * time.Hour)}
)

func newRemoteFixture(t *testing.T) remoteFixture {
	t.Helper()
	pg := testpg.Start(t, testpg.Options{})
	conn := fleetdbtest.Open(t, pg, "fleet")
	fx := remoteFixture{pg: pg, fleetHome: t.TempDir(), alphas: t.TempDir(), dsn: pg.DSN("fleet")}
	// The first machine's records as its log holds them (redacted, numbered), shipped
	// line for line.
	rs := dbSampleRecords()
	rs[0].Findings = []call.Finding{findings.New("destructive.fs.recursive-delete", "rm -rf ~")}
	for i := range rs {
		rs[i].ManagedSerial = 3
	}
	writeLog(t, filepath.Join(fx.alphas, ".local/state/moat/audit.jsonl"), rs, 0)
	var logged []audit.Record
	if err := audit.Read(filepath.Join(fx.alphas, ".local/state/moat/audit.jsonl"), func(r audit.Record) error {
		logged = append(logged, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	fleetdbtest.Insert(t, conn, alpha, logged...)
	var later []audit.Record
	for _, r := range sampleRecords() {
		r.Time = r.Time.Add(time.Hour)
		later = append(later, r)
	}
	fleetdbtest.Insert(t, conn, beta, later...)
	writeFleetYAML(t, fx.fleetHome, fmt.Sprintf("machine: reader\naudit:\n  postgres: %s\n  password_file: %s\n", fx.dsn, pg.PasswordFile))
	return fx
}

func writeFleetYAML(t *testing.T, home, doc string) {
	t.Helper()
	dir := filepath.Join(home, ".config/moat")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "fleet.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestFleetRemote(t *testing.T) {
	fx := newRemoteFixture(t)
	run := func(t *testing.T, home string, args ...string) (string, string) {
		t.Helper()
		a, stdout, stderr := testApp(home)
		if code := Main(args, a.env); code != 0 {
			t.Fatalf("moat %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return stdout.String(), stderr.String()
	}

	// logs --remote --machine alpha prints what moat logs prints on alpha, with the
	// machine added, for every filter.
	t.Run("logs, same as on the machine", func(t *testing.T) {
		for _, filter := range [][]string{
			nil, {"--decision", "deny,ask"}, {"--agent", "codex"}, {"--tool", "SHELL"}, {"--tool", "mcp:github/create_issue"},
			{"--session", "s1"}, {"--failures"}, {"--since", "4h"}, {"--seq", "2,5"},
		} {
			local, _ := run(t, fx.alphas, append([]string{"logs", "--json"}, filter...)...)
			remote, _ := run(t, fx.fleetHome, append([]string{"logs", "--remote", "--machine", "alpha", "--json"}, filter...)...)
			prefix := `{"machine":"alpha","machine_id":"a1a1","os_user":"ann",`
			var stripped []string
			for _, l := range strings.SplitAfter(remote, "\n") {
				if l == "" {
					continue
				}
				rest, ok := strings.CutPrefix(l, prefix)
				if !ok {
					t.Fatalf("%v: a remote line without its machine: %s", filter, l)
				}
				stripped = append(stripped, "{"+rest)
			}
			// The machine's log is in the order records were written, the fleet's
			// records in the order of their times.
			localLines := strings.SplitAfter(local, "\n")
			slices.Sort(localLines)
			slices.Sort(stripped)
			if got := strings.Join(stripped, ""); got != strings.Join(localLines, "") || local == "" {
				t.Errorf("logs %v:\nremote %s\nlocal  %s", filter, got, local)
			}
			// The table: the local table, after a machine column.
			localTable, _ := run(t, fx.alphas, append([]string{"logs"}, filter...)...)
			remoteTable, _ := run(t, fx.fleetHome, append([]string{"logs", "--remote", "--machine", "a1a1"}, filter...)...)
			if !strings.HasPrefix(remoteTable, "MACHINE ") || !strings.Contains(remoteTable, "\nalpha          ") {
				t.Errorf("logs %v: table\n%s", filter, remoteTable)
			}
			if n, m := strings.Count(remoteTable, "\n"), strings.Count(localTable, "\n"); n != m {
				t.Errorf("logs %v: %d lines of table, on the machine %d", filter, n, m)
			}
		}
	})

	t.Run("logs across machines", func(t *testing.T) {
		out, _ := run(t, fx.fleetHome, "logs", "--remote", "--json", "--decision", "deny")
		got := machineSeqs(t, out)
		// Oldest first across machines: beta's records are an hour after alpha's.
		want := []string{"alpha/1", "beta/1", "alpha/8", "alpha/5", "beta/5"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("denies %v, want %v", got, want)
		}
		summary, _ := run(t, fx.fleetHome, "logs", "--remote", "--summary", "--json")
		var s struct {
			Total int `json:"total"`
		}
		if err := json.Unmarshal([]byte(summary), &s); err != nil || s.Total != 15 {
			t.Errorf("summary %s (%v)", summary, err)
		}
		// --last: the newest records across machines, shown oldest first.
		last, _ := run(t, fx.fleetHome, "logs", "--remote", "--json", "--decision", "allow,audit", "--last", "3")
		if got := machineSeqs(t, last); !reflect.DeepEqual(got, []string{"alpha/9", "alpha/6", "beta/6"}) {
			t.Errorf("--last 3: %v", got)
		}
		// --postgres names the database without fleet.yaml.
		out2, _ := run(t, t.TempDir(), "logs", "--remote", "--json", "--decision", "deny", "--postgres", fx.dsn, "--password-file", fx.pg.PasswordFile)
		if out2 != out {
			t.Errorf("with --postgres:\n%s\nwith fleet.yaml:\n%s", out2, out)
		}
	})

	// report --remote counts what a report of the machines' logs counts, and adds the
	// fleet.
	t.Run("report", func(t *testing.T) {
		out, _ := run(t, fx.fleetHome, "report", "--remote", "--format", "json", "--quiet-after", "24h")
		var got report.Report
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		b := report.NewBuilder(time.Time{}, 0)
		recs := readRemote(t, fx)
		for _, r := range recs {
			b.Add(r)
		}
		want := b.Report(logsNow)
		fl := got.Fleet
		got.Fleet = nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("report:\n%+v\nwant\n%+v", got, want)
		}
		if fl == nil || fl.Machines != 2 || fl.Known != 2 || len(fl.TopMachines) != 2 || fl.TopMachines[0].Machine != "alpha" ||
			fl.TopMachines[0].Total != 9 || fl.TopMachines[0].Deny != 3 || fl.TopMachines[1].Total != 6 ||
			len(fl.Quiet) != 1 || fl.Quiet[0].Machine != "beta" ||
			!reflect.DeepEqual(fl.Serials, []report.SerialCount{{Serial: 3, Machines: 1, Decisions: 9}, {Serial: 0, Machines: 1, Decisions: 6}}) {
			t.Errorf("fleet section %+v", fl)
		}
		md, _ := run(t, fx.fleetHome, "report", "--remote", "--since", "2h")
		if !strings.Contains(md, "## Fleet") || !strings.Contains(md, "| beta |") {
			t.Errorf("markdown:\n%s", md)
		}
	})

	t.Run("dashboard source", func(t *testing.T) {
		a, _, _ := testApp(fx.fleetHome)
		d, err := a.dirs()
		if err != nil {
			t.Fatal(err)
		}
		src := &uiFleet{dirs: d}
		ctx := context.Background()
		ms, err := src.Machines(ctx)
		if err != nil || len(ms) != 2 {
			t.Fatalf("machines %+v %v", ms, err)
		}
		sum, err := src.Summary(ctx, logsNow.Add(-2*time.Hour), 1)
		if err != nil || sum.Machines != 2 || len(sum.ByMachine) != 1 || sum.ByMachine[0].Machine != "alpha" {
			t.Errorf("summary %+v %v", sum, err)
		}
		recs, err := src.Records(ctx, fleetdb.Filter{Machines: []string{"b2b2"}}, 4)
		if err != nil || len(recs) != 4 || recs[0].Machine != "beta" || recs[0].Record.Seq != 6 {
			t.Errorf("records %+v %v", recs, err)
		}
		// Without fleet.yaml, or with one without audit:, there is no fleet page; one
		// that does not load says why.
		other := t.TempDir()
		for _, doc := range []string{"", "machine: x\n", "audit: [\n"} {
			if doc != "" {
				writeFleetYAML(t, other, doc)
			}
			a, _, _ := testApp(other)
			d, _ := a.dirs()
			_, err := (&uiFleet{dirs: d}).Machines(ctx)
			if broken := strings.Contains(doc, "["); broken == errors.Is(err, dashboard.ErrNoFleet) || err == nil || broken && !strings.Contains(err.Error(), "fleet.yaml") {
				t.Errorf("fleet.yaml %q: %v", doc, err)
			}
		}
	})

	t.Run("not migrated", func(t *testing.T) {
		// A database without moat's schema says to migrate.
		a, _, stderr := testApp(t.TempDir())
		if code := Main([]string{"fleet", "machines", "--postgres", fx.pg.DSN("postgres"), "--password-file", fx.pg.PasswordFile}, a.env); code != exitError ||
			!strings.Contains(stderr.String(), "moat fleet migrate") {
			t.Errorf("not migrated: exit %d, %s", code, stderr)
		}
	})

	t.Run("fleet machines", func(t *testing.T) {
		out, _ := run(t, fx.fleetHome, "fleet", "machines", "--json")
		var ms []fleetdb.MachineStatus
		if err := json.Unmarshal([]byte(out), &ms); err != nil {
			t.Fatal(err)
		}
		if len(ms) != 2 || ms[0].Machine != "alpha" || ms[0].LastSeq != 9 || ms[0].ManagedSerial != 3 || ms[0].Version != "1.5.0" ||
			ms[1].Machine != "beta" || ms[1].OSUser != "bob" || ms[1].LastSeq != 6 {
			t.Errorf("machines %+v", ms)
		}
		table, _ := run(t, fx.fleetHome, "fleet", "machines")
		if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "MACHINE") ||
			!strings.HasPrefix(lines[1], "alpha") || !strings.Contains(lines[2], "1.4.0") {
			t.Errorf("table:\n%s", table)
		}
	})
}

// machineSeqs names the records of logs --remote --json output by machine and number.
func machineSeqs(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Machine string `json:"machine"`
			Seq     uint64 `json:"seq"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%d", r.Machine, r.Seq))
	}
	return got
}

// readRemote is every record of the fleet's database of fx.
func readRemote(t *testing.T, fx remoteFixture) []audit.Record {
	t.Helper()
	a, stdout, stderr := testApp(fx.fleetHome)
	if code := Main([]string{"logs", "--remote", "--json"}, a.env); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out []audit.Record
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		r, err := audit.ParseLine([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestFleetRemoteErrors(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"logs", "--remote"}, exitUsage, "no fleet database"},
		{[]string{"report", "--remote"}, exitUsage, "no fleet database"},
		{[]string{"fleet", "machines"}, exitUsage, "no fleet database"},
		{[]string{"logs", "--machine", "x"}, exitUsage, "add --remote"},
		{[]string{"report", "--postgres", "postgres://u@127.0.0.1:1/x"}, exitUsage, "add --remote"},
		{[]string{"logs", "--remote", "--verify"}, exitUsage, "--verify checks this machine's log"},
		{[]string{"logs", "--remote", "--file", "x.jsonl"}, exitUsage, "give one"},
		{[]string{"logs", "--remote", "--password-file", "pw"}, exitUsage, "--password-file goes with --postgres"},
		{[]string{"report", "--remote", "--quiet-after", "-1h"}, exitUsage, "--quiet-after"},
		// Nothing listens on port 1: an error, and the connection string's password
		// (there is none to leak) is not needed to say so.
		{[]string{"fleet", "machines", "--postgres", "postgres://u@127.0.0.1:1/x?connect_timeout=2"}, exitError, "connect to postgres 127.0.0.1:1/x"},
	} {
		a, _, stderr := testApp(home)
		if code := Main(tt.args, a.env); code != tt.code || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("moat %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, tt.code, tt.err)
		}
	}
}
