package auditship

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/testpg"
)

const machineID = "0123456789abcdef0123456789abcdef"

// fleet is a migrated database on a throwaway server.
type fleet struct {
	pg  *testpg.Server
	dsn string
}

func newFleet(t *testing.T, migrate bool) *fleet {
	t.Helper()
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	f := &fleet{pg: pg, dsn: pg.DSN("fleet")}
	if migrate {
		f.migrate(t)
	}
	return f
}

func (f *fleet) migrate(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := fleetdb.Connect(ctx, f.dsn, f.pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, _, err := fleetdb.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
}

func (f *fleet) connect(ctx context.Context) (*pgx.Conn, error) {
	return fleetdb.Connect(ctx, f.dsn, f.pg.PasswordFile)
}

// stored returns the numbers of the machine's records in the database, in order, and
// checks that each is stored once (the key makes it so) with its line.
func (f *fleet) stored(t *testing.T) []uint64 {
	t.Helper()
	ctx := context.Background()
	conn, err := f.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT seq, line, machine, decision FROM moat_records WHERE machine_id = $1 ORDER BY seq`, machineID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []uint64
	for rows.Next() {
		var seq int64
		var line, machine, decision string
		if err := rows.Scan(&seq, &line, &machine, &decision); err != nil {
			t.Fatal(err)
		}
		r, err := audit.ParseLine([]byte(line))
		if err != nil || r.Seq != uint64(seq) || machine != "laptop" || decision != r.Decision.String() {
			t.Fatalf("row %d: %v %+v machine %q decision %q", seq, err, r, machine, decision)
		}
		out = append(out, uint64(seq))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func newSpool(t *testing.T, ret auditdb.Retention) *auditdb.DB {
	t.Helper()
	d, err := auditdb.Open(context.Background(), auditdb.Options{Path: filepath.Join(t.TempDir(), auditdb.FileName), Redactor: scan.Redactor{}, Retention: ret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func appendN(t testing.TB, d *auditdb.DB, from, n int) {
	t.Helper()
	if err := appendRecords(d, from, n); err != nil {
		t.Fatal(err)
	}
}

func appendRecords(d *auditdb.DB, from, n int) error {
	rs := make([]audit.Record, n)
	for i := range rs {
		rs[i] = audit.Record{
			Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(from+i) * time.Second), Agent: "claude-code",
			Class: "shell", Tool: "Bash", Args: map[string]any{"command": fmt.Sprintf("echo %d", from+i)},
			Decision: call.Allow, Rule: "default", Policy: "embedded:recommended", ManagedSerial: 7,
		}
	}
	return d.AppendBatch(context.Background(), rs)
}

// run starts a shipper and returns it with a function that stops it.
func run(t *testing.T, opts Options) (*Shipper, func()) {
	t.Helper()
	opts.Target = "fleet"
	opts.Machine = fleetdb.Machine{ID: machineID, Name: "laptop", OSUser: "dev", Version: "test"}
	opts.Poll = cmpOr(opts.Poll, 20*time.Millisecond)
	opts.MaxBackoff = cmpOr(opts.MaxBackoff, 200*time.Millisecond)
	opts.Log = func(s string) { t.Log(s) }
	s := New(opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(stop)
	return s, stop
}

func cmpOr(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func checkExactlyOnce(t *testing.T, got []uint64, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("%d records stored, want %d", len(got), n)
	}
	for i, seq := range got {
		if seq != uint64(i+1) {
			t.Fatalf("record %d stored as %d: a gap or a duplicate", i+1, seq)
		}
	}
}

func TestShipsEveryRecordOnce(t *testing.T) {
	f := newFleet(t, true)
	spool := newSpool(t, auditdb.Retention{})
	appendN(t, spool, 0, 1234)
	var shippedCalls atomic.Int64
	s, stop := run(t, Options{Spool: spool, Connect: f.connect, Batch: 100, Shipped: func(n int) { shippedCalls.Add(int64(n)) }})
	ctx := context.Background()
	waitFor(t, "the backlog to drain", func() bool { return s.Status(ctx).Backlog == 0 && s.Status(ctx).Shipped == 1234 })
	// Records appended later are shipped when the shipper is woken.
	appendN(t, spool, 1234, 10)
	s.Wake()
	waitFor(t, "the new records", func() bool { return s.Status(ctx).Shipped == 1244 })
	stop()
	checkExactlyOnce(t, f.stored(t), 1244)
	if shippedCalls.Load() != 1244 {
		t.Errorf("Shipped told of %d records", shippedCalls.Load())
	}
	if c, err := spool.ShipCursor(ctx); err != nil || c != 1244 {
		t.Errorf("cursor %d %v", c, err)
	}
	conn, err := f.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var name, user, version string
	var serial, last int64
	if err := conn.QueryRow(ctx, `SELECT machine, os_user, moat_version, managed_serial, last_seq FROM moat_machines WHERE machine_id = $1`, machineID).
		Scan(&name, &user, &version, &serial, &last); err != nil {
		t.Fatal(err)
	}
	if name != "laptop" || user != "dev" || version != "test" || serial != 7 || last != 1244 {
		t.Errorf("machine row: %s %s %s %d %d", name, user, version, serial, last)
	}
	st := s.Status(ctx)
	if st.LastError != "" || st.LastSuccess.IsZero() || st.Target != "fleet" {
		t.Errorf("status %+v", st)
	}
}

// lossySpool loses the acknowledgement of the first batch: the database committed it,
// the spool never recorded so (an answer lost, a crash after the commit).
type lossySpool struct {
	*auditdb.DB
	lost atomic.Bool
}

func (l *lossySpool) SetShipCursor(ctx context.Context, seq uint64) error {
	if seq > 0 && l.lost.CompareAndSwap(false, true) {
		return errors.New("the answer was lost")
	}
	return l.DB.SetShipCursor(ctx, seq)
}

func TestLostAnswerIsNotDuplicated(t *testing.T) {
	f := newFleet(t, true)
	spool := newSpool(t, auditdb.Retention{})
	appendN(t, spool, 0, 300)
	lossy := &lossySpool{DB: spool}
	s, stop := run(t, Options{Spool: lossy, Connect: f.connect, Batch: 100})
	ctx := context.Background()
	waitFor(t, "the backlog to drain", func() bool { return s.Status(ctx).Backlog == 0 })
	stop()
	if !lossy.lost.Load() {
		t.Fatal("no answer was lost")
	}
	checkExactlyOnce(t, f.stored(t), 300)

	// The same batch sent twice is stored once.
	batch, err := spool.After(ctx, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	m := fleetdb.Machine{ID: machineID, Name: "laptop", OSUser: "dev", Version: "test"}
	recs := make([]fleetdb.Row, len(batch))
	for i, b := range batch {
		recs[i] = fleetdb.RowFrom(m, b.Seq, b.Record, b.Line)
	}
	conn, err := f.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if n, err := fleetdb.Ship(ctx, conn, m, recs); err != nil || n != 0 {
		t.Fatalf("sent again: %d new, %v", n, err)
	}
	var last int64
	if err := conn.QueryRow(ctx, `SELECT last_seq FROM moat_machines WHERE machine_id = $1`, machineID).Scan(&last); err != nil || last != 300 {
		t.Errorf("last_seq went back to %d (%v)", last, err)
	}
	checkExactlyOnce(t, f.stored(t), 300)
}

// While the database is down the spool keeps taking records (decisions never wait for
// the shipper) and retention keeps what is unshipped; once it is back every record
// arrives, in order, once.
func TestOutage(t *testing.T) {
	f := newFleet(t, true)
	// Every record is older than a second: without the floor, prune would remove all.
	spool := newSpool(t, auditdb.Retention{MaxAge: time.Second, KeepUnshipped: true})
	appendN(t, spool, 0, 200)
	var failures atomic.Int64
	s, stop := run(t, Options{Spool: spool, Connect: f.connect, Batch: 50, Failed: func(error) { failures.Add(1) }})
	ctx := context.Background()
	waitFor(t, "the first records", func() bool { return s.Status(ctx).Shipped == 200 })

	// Records keep coming while the database goes down and comes back.
	appending := make(chan struct{})
	var written atomic.Int64
	written.Store(200)
	go func() {
		defer close(appending)
		for i := range 40 {
			start := time.Now()
			if err := appendRecords(spool, 200+i*10, 10); err != nil {
				t.Error(err)
				return
			}
			written.Add(10)
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("an append took %v while the database was down", took)
			}
			time.Sleep(25 * time.Millisecond)
		}
	}()
	if err := f.pg.Stop(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the failure to show", func() bool { return s.Status(ctx).LastError != "" && failures.Load() > 0 })
	waitFor(t, "a backlog", func() bool { return s.Status(ctx).Backlog > 0 })
	shipped, err := spool.ShipCursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spool.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := spool.After(ctx, 0, 1); err != nil || len(got) == 0 || got[0].Seq != shipped+1 {
		t.Fatalf("the oldest record left after pruning: %v %v; want %d (the shipped ones go, the others stay)", got, err, shipped+1)
	}
	time.Sleep(300 * time.Millisecond) // a few backoffs
	if err := f.pg.Restart(); err != nil {
		t.Fatal(err)
	}
	// While it catches up the database always holds a prefix: no record overtakes one
	// before it.
	<-appending
	total := int(written.Load())
	waitFor(t, "every record", func() bool {
		ok := prefix(t, f)
		if !ok {
			t.Fatal("the database holds a record without every one before it")
		}
		return s.Status(ctx).Backlog == 0 && s.Status(ctx).LastError == ""
	})
	stop()
	checkExactlyOnce(t, f.stored(t), total)
}

// prefix reports whether the database holds records 1 to n for some n, and nothing else;
// a failed connection (the server restarting) counts as true.
func prefix(t *testing.T, f *fleet) bool {
	ctx := context.Background()
	conn, err := f.connect(ctx)
	if err != nil {
		return true
	}
	defer conn.Close(ctx)
	var count, last int64
	if err := conn.QueryRow(ctx, `SELECT count(*), coalesce(max(seq), 0) FROM moat_records WHERE machine_id = $1`, machineID).Scan(&count, &last); err != nil {
		return true
	}
	return count == last
}

func TestNotMigrated(t *testing.T) {
	f := newFleet(t, false)
	spool := newSpool(t, auditdb.Retention{})
	appendN(t, spool, 0, 20)
	s, stop := run(t, Options{Spool: spool, Connect: f.connect})
	ctx := context.Background()
	waitFor(t, "the error", func() bool { return s.Status(ctx).LastError != "" })
	st := s.Status(ctx)
	if !strings.Contains(st.LastError, "moat fleet migrate") || st.Backlog != 20 || st.Shipped != 0 {
		t.Fatalf("status %+v", st)
	}
	// Once an administrator migrates, the machine ships at its next attempt.
	f.migrate(t)
	waitFor(t, "shipping", func() bool { return s.Status(ctx).Shipped == 20 })
	stop()
	checkExactlyOnce(t, f.stored(t), 20)
}

// A record whose values the database refuses (here a rule too long for the rule's index:
// random letters, which no compression shortens) is set aside, reported, and does not
// keep the records after it from the database.
func TestRefusedRecordIsSetAside(t *testing.T) {
	f := newFleet(t, true)
	spool := newSpool(t, auditdb.Retention{})
	appendN(t, spool, 0, 7)
	rng := rand.New(rand.NewPCG(1, 2))
	long := make([]byte, 8000)
	for i := range long {
		long[i] = byte('a' + rng.IntN(26))
	}
	refusedRec := audit.Record{Time: time.Date(2026, 1, 1, 0, 0, 7, 0, time.UTC), Agent: "claude-code", Class: "shell", Tool: "Bash",
		Args: map[string]any{"command": "echo 7"}, Decision: call.Deny, Rule: string(long), Policy: "embedded:recommended"}
	if err := spool.AppendBatch(context.Background(), []audit.Record{refusedRec}); err != nil {
		t.Fatal(err)
	}
	appendN(t, spool, 8, 12)
	var refused []uint64
	var mu sync.Mutex
	s, stop := run(t, Options{Spool: spool, Connect: f.connect, Batch: 10, Refused: func(seq uint64, err error) {
		if !fleetdb.Refused(err) {
			t.Errorf("told of %v, not a refusal", err)
		}
		mu.Lock()
		refused = append(refused, seq)
		mu.Unlock()
	}})
	ctx := context.Background()
	waitFor(t, "the backlog to drain", func() bool { return s.Status(ctx).Backlog == 0 })
	stop()
	st := s.Status(ctx)
	if st.Refused != 1 || !strings.Contains(st.LastRefused, "record 8:") || st.LastError != "" || st.Shipped != 19 {
		t.Errorf("status %+v", st)
	}
	if len(refused) != 1 || refused[0] != 8 {
		t.Errorf("Refused told of %v, want [8]", refused)
	}
	got := f.stored(t)
	want := []uint64{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored %v, want %v", got, want)
	}
	if c, err := spool.ShipCursor(ctx); err != nil || c != 20 {
		t.Errorf("cursor %d %v", c, err)
	}
}

// A failure that is no refusal of one record's values (here a constraint an
// administrator added, which may refuse every record) sets nothing aside: it is retried
// until it passes.
func TestOtherFailuresSetNothingAside(t *testing.T) {
	f := newFleet(t, true)
	ctx := context.Background()
	conn, err := f.connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `ALTER TABLE moat_records ADD CONSTRAINT not_five CHECK (seq <> 5)`); err != nil {
		t.Fatal(err)
	}
	spool := newSpool(t, auditdb.Retention{})
	appendN(t, spool, 0, 10)
	s, stop := run(t, Options{Spool: spool, Connect: f.connect, Batch: 3})
	waitFor(t, "the failure", func() bool { return s.Status(ctx).LastError != "" })
	if st := s.Status(ctx); st.Refused != 0 || st.Shipped != 3 {
		t.Fatalf("status %+v", st)
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE moat_records DROP CONSTRAINT not_five`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every record", func() bool { return s.Status(ctx).Backlog == 0 })
	stop()
	checkExactlyOnce(t, f.stored(t), 10)
}
