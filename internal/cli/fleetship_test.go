package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/testpg"
)

// migratedFleet is a throwaway server with a migrated database "fleet".
func migratedFleet(t *testing.T) *testpg.Server {
	t.Helper()
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	ctx := context.Background()
	conn, err := fleetdb.Connect(ctx, pg.DSN("fleet"), pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, _, err := fleetdb.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return pg
}

// shippedRows returns, per machine, the numbers of the records the fleet's database holds, in order.
func shippedRows(t *testing.T, pg *testpg.Server) map[string][]uint64 {
	t.Helper()
	ctx := context.Background()
	conn, err := fleetdb.Connect(ctx, pg.DSN("fleet"), pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT machine, seq FROM moat_records ORDER BY machine, seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]uint64{}
	for rows.Next() {
		var machine string
		var seq int64
		if err := rows.Scan(&machine, &seq); err != nil {
			t.Fatal(err)
		}
		out[machine] = append(out[machine], uint64(seq))
	}
	return out
}

// waitShipped waits until rec's shipping has stored n records and has none waiting, and
// returns its status.
func waitShipped(t *testing.T, rec *envRecorder, n int, log fmt.Stringer) *daemon.ShipStatus {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st := rec.status(context.Background()).Ship
		if st != nil && st.Backlog == 0 && st.Shipped == uint64(n) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("status %+v after 30s; log:\n%s", st, log)
		}
	}
}

// The daemon's recorder of an environment whose fleet.yaml has an audit section ships
// every record of its log, the daemon's and other processes' alike, and says so in its
// status and metrics.
func TestRecorderShips(t *testing.T) {
	pg := migratedFleet(t)
	home := t.TempDir()
	writeFleetConfig(t, home, fmt.Sprintf("machine: laptop\naudit:\n  postgres: %s\n  password_file: %s\n  batch: 2\n", pg.DSN("fleet"), pg.PasswordFile))
	rs := sampleRecords() // from three days ago: the retention of a day must not drop them unshipped
	rec, m, log := newRecorder(t, home, 24*time.Hour)
	for _, r := range rs[:4] {
		if err := rec.write(r); err != nil {
			t.Fatal(err)
		}
	}
	// A fallback hook writes the log without the daemon.
	other := writeLog(t, filepath.Join(stateOf(home), "audit.jsonl"), nil, 0)
	for _, r := range rs[4:] {
		if err := other.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	other.Close()
	want := []uint64{1, 2, 3, 4, 5, 6}
	ctx := context.Background()
	st := waitShipped(t, rec, len(want), log)
	if got := shippedRows(t, pg)["laptop"]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the fleet's database holds %v, want %v", got, want)
	}
	if st.Target != fmt.Sprintf("127.0.0.1:%d/fleet", pg.Port) || st.LastError != "" || st.LastSuccess == nil || len(st.MachineID) != 32 {
		t.Errorf("status %+v", st)
	}
	var b bytes.Buffer
	writeSinkStatus(&b, &daemon.SinkStatus{Audit: []daemon.AuditStatus{rec.status(ctx)}})
	if !strings.Contains(b.String(), "shipping   "+st.Target) || !strings.Contains(b.String(), "6 shipped, 0 waiting") || strings.Contains(b.String(), pg.Password()) {
		t.Errorf("daemon status:\n%s", &b)
	}
	if got := counterOf(t, m, "moat_audit_shipped_total"); got != 6 {
		t.Errorf("moat_audit_shipped_total %v, want 6", got)
	}
	rec.close()
	if strings.Contains(log.String(), pg.Password()) {
		t.Errorf("the daemon's log holds the password:\n%s", log)
	}
}

// A record the fleet's database refuses for its values (a rule too long for its index,
// in random letters that compression cannot shorten) is set aside: the records after it
// are shipped, and the status, the text of moat daemon status and the metrics say so.
func TestRecorderSetsAsideRefusedRecords(t *testing.T) {
	pg := migratedFleet(t)
	home := t.TempDir()
	writeFleetConfig(t, home, fmt.Sprintf("machine: laptop\naudit:\n  postgres: %s\n  password_file: %s\n", pg.DSN("fleet"), pg.PasswordFile))
	rec, m, log := newRecorder(t, home, 0)
	rs := sampleRecords()[:3]
	rng := rand.New(rand.NewPCG(3, 4))
	long := make([]byte, 8000)
	for i := range long {
		long[i] = byte('a' + rng.IntN(26))
	}
	rs[1].Rule = string(long)
	for _, r := range rs {
		if err := rec.write(r); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	st := waitShipped(t, rec, 2, log)
	if got := shippedRows(t, pg)["laptop"]; fmt.Sprint(got) != "[1 3]" {
		t.Errorf("the fleet's database holds %v, want [1 3]", got)
	}
	if st.Refused != 1 || !strings.Contains(st.LastRefused, "record 2:") || st.LastError != "" {
		t.Errorf("status %+v", st)
	}
	var b bytes.Buffer
	writeSinkStatus(&b, &daemon.SinkStatus{Audit: []daemon.AuditStatus{rec.status(ctx)}})
	if !strings.Contains(b.String(), "1 refused by the database, kept here only; last: record 2:") {
		t.Errorf("daemon status:\n%s", &b)
	}
	if got := counterOf(t, m, "moat_audit_ship_refused_total"); got != 1 {
		t.Errorf("moat_audit_ship_refused_total %v, want 1", got)
	}
	if !strings.Contains(log.String(), "refused record 2:") {
		t.Errorf("the daemon's log does not name the record:\n%s", log)
	}
	rec.close()
	if n := len(logRecords(t, home)); n != 3 {
		t.Errorf("%d records in the JSONL log, want 3: a record set aside stays", n)
	}
}

// A fleet configuration that does not parse ships nothing and says why; decisions are
// recorded as ever.
func TestRecorderShipBadConfig(t *testing.T) {
	home := t.TempDir()
	path := writeFleetConfig(t, home, "audit:\n  postgress: postgres://db/moat\n")
	rec, _, log := newRecorder(t, home, 0)
	if err := rec.write(sampleRecords()[0]); err != nil {
		t.Fatal(err)
	}
	st := rec.status(context.Background()).Ship
	if st == nil || st.Config != path || !strings.Contains(st.LastError, path) || st.Target != "" {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(log.String(), "audit shipping is off") {
		t.Errorf("log:\n%s", log)
	}
	rec.close()
	if n := len(logRecords(t, home)); n != 1 {
		t.Errorf("%d records in the log, want 1", n)
	}
}

// Without a fleet configuration nothing is shipped and the status has no shipping.
func TestRecorderNoFleet(t *testing.T) {
	rec, _, _ := newRecorder(t, t.TempDir(), 0)
	if st := rec.status(context.Background()).Ship; st != nil {
		t.Errorf("status %+v, want none", st)
	}
}
