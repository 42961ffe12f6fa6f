package cli

import (
	"context"
	"fmt"
	"io"
	"os/user"
	"path/filepath"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/auditship"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/fleet"
	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/scan"
)

// shipSpoolRetry is how long the shipping waits before it opens the audit database
// again after failing to.
const shipSpoolRetry = 5 * time.Second

// auditShipping ships one environment's audit database to the fleet's PostgreSQL
// database, as its fleet.yaml's audit section asks, in its own goroutine: decisions never
// wait for it, and the audit database (which the mirror fills) is its spool.
type auditShipping struct {
	config    string
	machineID string
	target    string
	cancel    context.CancelFunc
	done      chan struct{}
	wakeUp    func() // the shipper's Wake, once it runs

	mu      sync.Mutex
	shipper *auditship.Shipper // nil until the audit database is open
	err     string             // why it does not ship (the configuration, the database)
	spool   *auditdb.DB
}

// startAuditShipping starts shipping the audit of the environment with directories d,
// or returns nil when its fleet configuration ships nothing. A configuration that
// cannot be read ships nothing either, but says so in the status and the daemon's log:
// a machine meant to ship its audit must not go quiet unnoticed.
func (s *daemonSinks) startAuditShipping(d dirs.Dirs) *auditShipping {
	cfg, err := fleet.Load(d)
	if err != nil {
		path, _, _ := fleet.Locate(d)
		s.log("warning: audit shipping is off: " + err.Error())
		return &auditShipping{config: path, err: err.Error()}
	}
	if cfg == nil || cfg.Audit == nil {
		return nil
	}
	sh := &auditShipping{config: cfg.Path, target: fleetdb.Target(cfg.Audit.Postgres), done: make(chan struct{})}
	id, err := fleet.MachineID(d)
	if err != nil {
		close(sh.done)
		sh.err = err.Error()
		s.log("warning: audit shipping is off: " + err.Error())
		return sh
	}
	sh.machineID = id
	ctx, cancel := context.WithCancel(context.Background())
	sh.cancel = cancel
	opts := auditship.Options{
		Connect: func(ctx context.Context) (*pgx.Conn, error) {
			return fleetdb.Connect(ctx, cfg.Audit.Postgres, cfg.Audit.PasswordFile)
		},
		Target:  sh.target,
		Machine: fleetdb.Machine{ID: id, Name: cfg.Machine, OSUser: osUserName(d), Version: buildInfo().Version},
		Batch:   cfg.Audit.Batch,
		Log:     s.log,
	}
	if m := s.metrics; m != nil {
		opts.Shipped, opts.Failed = m.AuditShipped, func(error) { m.AuditShipFailed() }
		opts.Backlog = func(n int64) { m.AuditShipBacklog(d.State, n) }
		opts.Refused = func(uint64, error) { m.AuditShipRefused() }
	}
	go sh.run(ctx, auditdb.Path(d.State), opts, s.log)
	return sh
}

// run opens the audit database (again after a failure) and ships it until ctx ends.
func (sh *auditShipping) run(ctx context.Context, path string, opts auditship.Options, log func(string)) {
	defer close(sh.done)
	for {
		// The shipper's own handle: the mirror's is busy importing, and SQLite lets
		// both read while one writes.
		spool, err := auditdb.Open(ctx, auditdb.Options{Path: path, Redactor: scan.Redactor{}})
		if err == nil {
			opts.Spool = spool
			shipper := auditship.New(opts)
			sh.mu.Lock()
			sh.spool, sh.shipper, sh.err = spool, shipper, ""
			sh.mu.Unlock()
			shipper.Run(ctx)
			return
		}
		sh.mu.Lock()
		changed := sh.err != err.Error()
		sh.err = err.Error()
		sh.mu.Unlock()
		if changed {
			log("warning: audit shipping: " + err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(shipSpoolRetry):
		}
	}
}

// wake tells the shipper the audit database gained records. It may be called on a nil
// shipping.
func (sh *auditShipping) wake() {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	shipper := sh.shipper
	sh.mu.Unlock()
	if shipper != nil {
		shipper.Wake()
	}
}

// afterImport is the mirror's imported callback with the shipper woken too.
func (sh *auditShipping) afterImport(imported func()) func() {
	if sh == nil {
		return imported
	}
	return func() {
		if imported != nil {
			imported()
		}
		sh.wake()
	}
}

// stop ends the shipping and closes its handle of the audit database; what is not
// shipped yet is shipped by the next daemon. It may be called on a nil shipping.
func (sh *auditShipping) stop() {
	if sh == nil || sh.cancel == nil {
		return
	}
	sh.cancel()
	<-sh.done
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.spool != nil {
		sh.spool.Close()
		sh.spool = nil
	}
}

// status is the shipping's part of `moat daemon status`; nil for a nil shipping.
func (sh *auditShipping) status(ctx context.Context) *daemon.ShipStatus {
	if sh == nil {
		return nil
	}
	st := &daemon.ShipStatus{Config: sh.config, Target: sh.target, MachineID: sh.machineID}
	sh.mu.Lock()
	shipper, err := sh.shipper, sh.err
	sh.mu.Unlock()
	st.LastError = err
	if shipper != nil {
		ss := shipper.Status(ctx)
		st.Shipped, st.Backlog, st.LastError = ss.Shipped, ss.Backlog, ss.LastError
		st.Refused, st.LastRefused = ss.Refused, ss.LastRefused
		if !ss.LastSuccess.IsZero() {
			st.LastSuccess = &ss.LastSuccess
		}
	}
	return st
}

// osUserName names the user whose audit is shipped: the account the daemon runs as, or
// the environment's own name for it when the system has none.
func osUserName(d dirs.Dirs) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return filepath.Base(d.Home)
}

// writeShipStatus adds an environment's shipping to `moat daemon status`.
func writeShipStatus(w io.Writer, st *daemon.ShipStatus) {
	if st == nil {
		return
	}
	target := st.Target
	if target == "" {
		target = "(off)"
	}
	fmt.Fprintf(w, "  shipping   %s (%s): %d shipped, %d waiting", target, st.Config, st.Shipped, st.Backlog)
	if st.LastSuccess != nil {
		fmt.Fprintf(w, ", last success %s", st.LastSuccess.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintln(w)
	if st.LastError != "" {
		fmt.Fprintf(w, "  shipping   error: %s\n", st.LastError)
	}
	if st.Refused > 0 {
		fmt.Fprintf(w, "  shipping   %d refused by the database, kept here only; last: %s\n", st.Refused, st.LastRefused)
	}
}
