// Package fleetdbtest fills a migrated fleet database with the records of made-up
// machines, standing in for the shipper in tests of what reads the fleet.
package fleetdbtest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/testpg"
)

// Machine is a made-up machine of the fleet.
type Machine struct {
	ID, Name, OSUser, Version string
	ManagedSerial             int64
	// LastSeen is what moat_machines says; zero means the database's now.
	LastSeen time.Time
}

// Open creates the database name on pg, migrates it and returns a
// connection to it, closed when t ends.
func Open(t testing.TB, pg *testpg.Server, name string) *pgx.Conn {
	t.Helper()
	pg.CreateDatabase(t, name)
	ctx := context.Background()
	conn, err := fleetdb.Connect(ctx, pg.DSN(name), pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, _, err := fleetdb.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	return conn
}

// Insert stores recs as records of m, numbered on from m's last shipped record (a
// record's own Seq, when set, is kept), each marshalled as the log writes its line, and
// updates m's row in moat_machines as a shipper does. It returns the records as stored.
func Insert(t testing.TB, conn *pgx.Conn, m Machine, recs ...audit.Record) []audit.Record {
	t.Helper()
	ctx := context.Background()
	var last int64
	if err := conn.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM moat_records WHERE machine_id = $1`, m.ID).Scan(&last); err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Record, 0, len(recs))
	for _, r := range recs {
		if r.Seq == 0 {
			r.Seq = uint64(last) + 1
		}
		last = max(last, int64(r.Seq))
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		row, err := fleetdb.RowOf(m.ID, m.Name, m.OSUser, r.Seq, line)
		if err != nil {
			t.Fatal(err)
		}
		// Stored as a shipper stores it; the machine's row is set below as m says.
		if _, err := fleetdb.Ship(ctx, conn, fleetdb.Machine{ID: m.ID, Name: m.Name, OSUser: m.OSUser, Version: m.Version}, []fleetdb.Row{row}); err != nil {
			t.Fatal(err)
		}
		back, err := audit.ParseLine(line)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, back)
	}
	seen := any(nil)
	if !m.LastSeen.IsZero() {
		seen = m.LastSeen
	}
	if _, err := conn.Exec(ctx, `INSERT INTO moat_machines (machine_id, machine, os_user, moat_version, managed_serial, last_seq, last_seen)
		VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()))
		ON CONFLICT (machine_id) DO UPDATE SET machine = $2, os_user = $3, moat_version = $4, managed_serial = $5,
			last_seq = greatest(moat_machines.last_seq, $6), last_seen = coalesce($7::timestamptz, now())`,
		m.ID, m.Name, m.OSUser, m.Version, m.ManagedSerial, last, seen); err != nil {
		t.Fatal(err)
	}
	return out
}
