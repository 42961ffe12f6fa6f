// Package auditship ships a machine's audit records from its audit database (the spool)
// to the fleet's PostgreSQL database, in order, at least once and stored once.
package auditship

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/fleetdb"
)

// Defaults of the Options left zero.
const (
	DefaultPoll = time.Second
	// DefaultGather is how long a woken shipper waits for the records that follow the
	// ones that woke it: a run of decisions goes in one transaction rather than one
	// each, which costs the machine (and the database) far less CPU. The spool holds the
	// records meanwhile.
	DefaultGather     = 500 * time.Millisecond
	DefaultMaxBackoff = 30 * time.Second
	// firstBackoff is the wait after the first failure; it doubles up to MaxBackoff.
	firstBackoff = time.Second
	// batchTimeout bounds one batch's transaction: a database that stops answering
	// (a network that drops packets) is given up on and dialled again.
	batchTimeout = 30 * time.Second
	// connectTimeout bounds a connection attempt.
	connectTimeout = 10 * time.Second
)

// Spool is the audit database as a shipper reads it (auditdb.DB).
type Spool interface {
	After(ctx context.Context, seq uint64, limit int) ([]auditdb.Spooled, error)
	CountAfter(ctx context.Context, seq uint64) (int64, error)
	ShipCursor(ctx context.Context) (uint64, error)
	SetShipCursor(ctx context.Context, seq uint64) error
}

// Options configure a Shipper.
type Options struct {
	// Spool is the environment's audit database.
	Spool Spool
	// Connect opens a connection to the fleet's database (fleetdb.Connect).
	Connect func(ctx context.Context) (*pgx.Conn, error)
	// Target names the database in the status and the log (host:port/db): never a
	// password.
	Target string
	// Machine is what the records and moat_machines say of this machine.
	Machine fleetdb.Machine
	// Batch bounds the records of one transaction; zero means 500.
	Batch int
	// Poll is how often the spool is read when nothing wakes the shipper (records other
	// processes wrote); zero means DefaultPoll.
	Poll time.Duration
	// Gather is how long a woken shipper waits before it reads the spool; zero means
	// DefaultGather.
	Gather time.Duration
	// MaxBackoff caps the wait between attempts while the database fails; zero means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// Log, when set, is told of each change between working and failing, once.
	Log func(string)
	// Shipped and Failed, when set, are told of each batch stored and each failure
	// (metrics).
	Shipped func(n int)
	Failed  func(error)
	// Backlog, when set, is told the backlog each time it is counted (a gauge).
	Backlog func(n int64)
	// Refused, when set, is told of each record the database refused for its values
	// and that was set aside (fleetdb.Refused).
	Refused func(seq uint64, err error)
	// Now is the clock of the status; nil means time.Now.
	Now func() time.Time
}

// Shipper ships one spool to one database. Run does the work; the other methods may be
// called from any goroutine.
type Shipper struct {
	opts  Options
	woken chan struct{}

	shipped atomic.Uint64 // records stored by this shipper (new ones, not resent ones)
	backlog atomic.Int64  // records of the spool not yet acknowledged, as last counted
	refused atomic.Uint64 // records the database refused, set aside

	mu          sync.Mutex
	lastSuccess time.Time
	lastError   string
	lastRefused string
	cursor      uint64
}

// New returns a shipper; Run starts it.
func New(opts Options) *Shipper {
	opts.Batch = cmp.Or(opts.Batch, 500)
	opts.Poll = cmp.Or(opts.Poll, DefaultPoll)
	opts.Gather = cmp.Or(opts.Gather, DefaultGather)
	opts.MaxBackoff = cmp.Or(opts.MaxBackoff, DefaultMaxBackoff)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = func(string) {}
	}
	return &Shipper{opts: opts, woken: make(chan struct{}, 1)}
}

// Wake asks the shipper to read the spool now (the spool gained records); it never
// waits. While the database fails the shipper keeps to its backoff.
func (s *Shipper) Wake() {
	select {
	case s.woken <- struct{}{}:
	default:
	}
}

// Status is what a shipper says of itself.
type Status struct {
	Target string
	// Shipped counts the records this shipper stored since it started.
	Shipped uint64
	// Backlog is how many records of the spool the database has not acknowledged.
	Backlog int64
	// LastSuccess is when a batch was last stored, or the spool found caught up.
	LastSuccess time.Time
	// LastError is the last failure while it lasts; empty once shipping works again.
	LastError string
	// Refused counts the records the database refused for their values, set aside since
	// the shipper started; LastRefused says which was last, and why.
	Refused     uint64
	LastRefused string
}

// Status reports the shipper's figures, counting the backlog afresh when ctx allows.
func (s *Shipper) Status(ctx context.Context) Status {
	s.mu.Lock()
	st := Status{Target: s.opts.Target, LastSuccess: s.lastSuccess, LastError: s.lastError, LastRefused: s.lastRefused}
	cursor := s.cursor
	s.mu.Unlock()
	st.Shipped = s.shipped.Load()
	st.Refused = s.refused.Load()
	st.Backlog = s.backlog.Load()
	if n, err := s.opts.Spool.CountAfter(ctx, cursor); err == nil {
		st.Backlog = n
	}
	return st
}

// Backlog is the backlog as last counted, without reading the spool (a gauge).
func (s *Shipper) Backlog() int64 { return s.backlog.Load() }

// Run ships until ctx ends: at once, then whenever woken or every Poll, and after a
// failure again after a backoff that doubles up to MaxBackoff. A batch under way when
// ctx ends is abandoned: the database rolls it back, and it is sent again next time.
func (s *Shipper) Run(ctx context.Context) {
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			conn.Close(closeCtx)
			cancel()
		}
	}()
	if c, err := s.opts.Spool.ShipCursor(ctx); err == nil {
		s.setCursor(c)
	}
	tick := time.NewTicker(s.opts.Poll)
	defer tick.Stop()
	backoff := time.Duration(0)
	for ctx.Err() == nil {
		err := s.cycle(ctx, &conn)
		s.countBacklog(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if conn != nil {
				closeCtx, cancel := context.WithTimeout(ctx, time.Second)
				conn.Close(closeCtx)
				cancel()
				conn = nil
			}
			s.failed(err)
			backoff = min(max(2*backoff, firstBackoff), s.opts.MaxBackoff)
			wait := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				wait.Stop()
				return
			case <-wait.C:
			}
			continue
		}
		backoff = 0
		s.succeeded()
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-s.woken:
			gather := time.NewTimer(s.opts.Gather)
			select {
			case <-ctx.Done():
				gather.Stop()
				return
			case <-gather.C:
			}
		}
	}
}

// cycle connects when needed and ships until the spool is caught up.
func (s *Shipper) cycle(ctx context.Context, conn **pgx.Conn) error {
	if *conn == nil {
		c, err := s.connect(ctx)
		if err != nil {
			return err
		}
		*conn = c
	}
	for ctx.Err() == nil {
		s.mu.Lock()
		cursor := s.cursor
		s.mu.Unlock()
		batch, err := s.opts.Spool.After(ctx, cursor, s.opts.Batch)
		if err != nil {
			return fmt.Errorf("reading the spool: %w", err)
		}
		if len(batch) == 0 {
			return nil
		}
		recs := make([]fleetdb.Row, len(batch))
		for i, b := range batch {
			recs[i] = fleetdb.RowFrom(s.opts.Machine, b.Seq, b.Record, b.Line)
		}
		n, err := s.shipBatch(ctx, *conn, recs)
		if fleetdb.Refused(err) {
			err = s.shipEach(ctx, *conn, recs)
			if err == nil {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("shipping to %s: %w", s.opts.Target, err)
		}
		// The cursor advances only after the commit: a crash before this line sends the
		// batch again, which the database stores once.
		if err := s.advance(ctx, recs[len(recs)-1].Seq, n); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// shipBatch stores recs in one transaction.
func (s *Shipper) shipBatch(ctx context.Context, conn *pgx.Conn, recs []fleetdb.Row) (int64, error) {
	bctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	return fleetdb.Ship(bctx, conn, s.opts.Machine, recs)
}

// shipEach stores recs one record at a time, after the database refused the batch for
// the values of one of them (fleetdb.Refused). A record refused on its own is set aside
// (refuse): it stays in this machine's audit, and the records after it are shipped, so
// that one record the database cannot hold does not keep every later one from the
// fleet. The cursor moves past each record stored or set aside, so that a failure
// half-way sends neither again.
func (s *Shipper) shipEach(ctx context.Context, conn *pgx.Conn, recs []fleetdb.Row) error {
	for _, r := range recs {
		n, err := s.shipBatch(ctx, conn, []fleetdb.Row{r})
		switch {
		case fleetdb.Refused(err):
			s.refuse(r.Seq, err)
		case err != nil:
			return err
		}
		if err := s.advance(ctx, r.Seq, n); err != nil {
			return err
		}
	}
	return nil
}

// advance records that the records up to seq were stored (n of them new) or set aside.
func (s *Shipper) advance(ctx context.Context, seq uint64, n int64) error {
	if err := s.opts.Spool.SetShipCursor(ctx, seq); err != nil {
		return fmt.Errorf("recording what was shipped: %w", err)
	}
	s.setCursor(seq)
	s.shipped.Add(uint64(n))
	if s.opts.Shipped != nil && n > 0 {
		s.opts.Shipped(int(n))
	}
	s.mu.Lock()
	s.lastSuccess = s.opts.Now()
	s.mu.Unlock()
	return nil
}

// refuse sets aside the record seq, which the database refused (err): it is counted,
// shown in the status and logged, each time, since each is a record missing from the
// fleet's database.
func (s *Shipper) refuse(seq uint64, err error) {
	why := fmt.Sprintf("record %d: %v", seq, err)
	s.refused.Add(1)
	s.mu.Lock()
	s.lastRefused = why
	s.mu.Unlock()
	if s.opts.Refused != nil {
		s.opts.Refused(seq, err)
	}
	s.opts.Log(fmt.Sprintf("warning: audit shipping: %s refused %s; it stays in this machine's audit log and database, and the records after it are shipped", s.opts.Target, why))
}

// connect dials the database, checks its schema and resumes after the newest record it
// holds of this machine: the database's own figure, which a lost answer leaves ahead of
// the spool's cursor and a restored backup behind it.
func (s *Shipper) connect(ctx context.Context) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	conn, err := s.opts.Connect(cctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*pgx.Conn, error) {
		conn.Close(context.Background())
		return nil, err
	}
	if err := fleetdb.CheckSchema(cctx, conn); err != nil {
		if errors.Is(err, fleetdb.ErrNotMigrated) {
			return fail(fmt.Errorf("%s: %w", s.opts.Target, err))
		}
		return fail(fmt.Errorf("%s: checking the schema: %w", s.opts.Target, err))
	}
	last, err := fleetdb.LastSeq(cctx, conn, s.opts.Machine.ID)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", s.opts.Target, err))
	}
	if err := s.opts.Spool.SetShipCursor(ctx, last); err != nil {
		return fail(fmt.Errorf("recording what was shipped: %w", err))
	}
	s.setCursor(last)
	return conn, nil
}

func (s *Shipper) setCursor(seq uint64) {
	s.mu.Lock()
	s.cursor = seq
	s.mu.Unlock()
}

func (s *Shipper) countBacklog(ctx context.Context) {
	s.mu.Lock()
	cursor := s.cursor
	s.mu.Unlock()
	if n, err := s.opts.Spool.CountAfter(ctx, cursor); err == nil {
		s.backlog.Store(n)
		if s.opts.Backlog != nil {
			s.opts.Backlog(n)
		}
	}
}

// failed notes err: in the status, the metrics, and the log when it differs from the
// last one logged.
func (s *Shipper) failed(err error) {
	if s.opts.Failed != nil {
		s.opts.Failed(err)
	}
	msg := err.Error()
	s.mu.Lock()
	changed := msg != s.lastError
	s.lastError = msg
	s.mu.Unlock()
	if changed {
		s.opts.Log(fmt.Sprintf("warning: audit shipping: %s; the audit database keeps every record and ships them once the database works", msg))
	}
}

func (s *Shipper) succeeded() {
	s.mu.Lock()
	wasFailing := s.lastError != ""
	s.lastError = ""
	s.lastSuccess = s.opts.Now()
	s.mu.Unlock()
	if wasFailing {
		s.opts.Log("audit shipping to " + s.opts.Target + ": shipping again")
	}
}
