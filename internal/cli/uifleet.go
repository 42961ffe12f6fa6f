package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/fleetdb"
)

// uiFleet is the dashboard's fleet page's view of the fleet's database named by the
// environment's fleet.yaml, read at each request: a database named (or renamed) after
// the dashboard started is read without a restart. Each request connects on its own: the
// page is read now and then, and a connection held between requests would only have to
// be watched and restored.
type uiFleet struct {
	dirs dirs.Dirs
}

// uiFleetTimeout bounds one request of the page to the database.
const uiFleetTimeout = 15 * time.Second

// with runs fn over a new connection to the fleet's database; without one configured,
// it returns dashboard.ErrNoFleet.
func (f *uiFleet) with(ctx context.Context, fn func(context.Context, *pgx.Conn) error) error {
	cfg, err := fleet.Load(f.dirs)
	if err != nil {
		return err
	}
	if cfg == nil || cfg.Audit == nil {
		return dashboard.ErrNoFleet
	}
	ctx, cancel := context.WithTimeout(ctx, uiFleetTimeout)
	defer cancel()
	conn, err := fleetdb.Connect(ctx, cfg.Audit.Postgres, cfg.Audit.PasswordFile)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := fleetdb.CheckSchema(ctx, conn); err != nil {
		return fmt.Errorf("fleet database: %w", err)
	}
	return fn(ctx, conn)
}

func (f *uiFleet) Machines(ctx context.Context) (ms []fleetdb.MachineStatus, err error) {
	err = f.with(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		ms, err = fleetdb.Machines(ctx, conn)
		return err
	})
	return ms, err
}

func (f *uiFleet) Summary(ctx context.Context, since time.Time, top int) (s fleetdb.Summary, err error) {
	err = f.with(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		s, err = fleetdb.Summarize(ctx, conn, fleetdb.SummaryQuery{Since: since, Top: top})
		return err
	})
	return s, err
}

func (f *uiFleet) Records(ctx context.Context, flt fleetdb.Filter, limit int) (recs []fleetdb.RemoteRecord, err error) {
	err = f.with(ctx, func(ctx context.Context, conn *pgx.Conn) error {
		res, err := fleetdb.Query(ctx, conn, flt, fleetdb.Page{Limit: limit})
		recs = res.Records
		return err
	})
	return recs, err
}
