package bundle

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/testpg"
)

func TestPostgresBundle(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	ctx := context.Background()
	dsn := pg.DSN("fleet")
	ft := newFleetTest(t)
	ft.configure("  postgres: " + dsn + "\n  password_file: " + pg.PasswordFile + "\n")
	u := NewUpdater(ft.dirs, ft.key, NewPostgresFetcher(dsn, pg.PasswordFile), compilePolicy, nil)

	// Not migrated: refused as a fetch failure, nothing in force.
	if _, err := u.Check(ctx); ReasonOf(err) != ReasonFetch || !errors.Is(err, fleetdb.ErrNotMigrated) {
		t.Fatalf("before migrating: %v", err)
	}
	conn, err := fleetdb.Connect(ctx, dsn, pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, _, err := fleetdb.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Check(ctx); ReasonOf(err) != ReasonFetch || !strings.Contains(err.Error(), "holds no bundle") {
		t.Fatalf("empty table: %v", err)
	}

	if err := fleetdb.PublishBundle(ctx, conn, 5, string(ft.bundle(5, "v5.example"))); err != nil {
		t.Fatal(err)
	}
	if res, err := u.Check(ctx); err != nil || !res.Changed || res.Serial != 5 {
		t.Fatalf("v5: %+v, %v", res, err)
	}
	if got, err := ft.decides("v5.example"); err != nil || got != "deny v5.example" {
		t.Fatalf("curl v5.example: %q, %v", got, err)
	}
	if res, err := u.Check(ctx); err != nil || res.Changed {
		t.Fatalf("unchanged: %+v, %v", res, err)
	}

	// Publishing refuses a serial not above the newest.
	if err := fleetdb.PublishBundle(ctx, conn, 5, string(ft.bundle(5, "again.example"))); !errors.Is(err, fleetdb.ErrSerialNotNewer) {
		t.Fatalf("publish serial 5 again: %v", err)
	}
	// A row written behind publish's back (tampered) is refused by the machine; v5 stays.
	tampered := strings.Replace(string(ft.bundle(6, "v6.example")), "decision: deny", "decision: allow", 1)
	if _, err := conn.Exec(ctx, `INSERT INTO moat_policy_bundles (serial, bundle) VALUES (6, $1)`, tampered); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Check(ctx); ReasonOf(err) != ReasonSignature {
		t.Fatalf("tampered row: %v", err)
	}
	if got, _ := ft.decides("v5.example"); got != "deny v5.example" {
		t.Fatalf("after a refused row, curl v5.example: %q; want v5 still in force", got)
	}
	if err := fleetdb.PublishBundle(ctx, conn, 7, string(ft.bundle(7, "v7.example"))); err != nil {
		t.Fatal(err)
	}
	if res, err := u.Check(ctx); err != nil || res.Serial != 7 {
		t.Fatalf("v7: %+v, %v", res, err)
	}

	// The database goes away: a restart still decides with the kept v7.
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	res, err := NewUpdater(ft.dirs, ft.key, NewPostgresFetcher(dsn, pg.PasswordFile), compilePolicy, nil).Check(ctx)
	if ReasonOf(err) != ReasonFetch || res.Serial != 7 {
		t.Fatalf("database down: %+v, %v", res, err)
	}
	if got, _ := ft.decides("v7.example"); got != "deny v7.example" {
		t.Fatalf("database down, curl v7.example: %q", got)
	}
	if st := Describe(ft.dirs, ft.key); !st.InForce || st.Serial != 7 || !strings.HasPrefix(st.Source, "postgres 127.0.0.1:") || strings.Contains(st.Source, "moat@") {
		t.Errorf("status: %+v", st)
	}
}
