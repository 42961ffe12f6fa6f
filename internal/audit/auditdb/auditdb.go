// Package auditdb stores audit records in a SQLite database that several processes share, indexed for `moat logs`.
package auditdb

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the pure Go SQLite driver, registered as "sqlite"

	"github.com/moatdev/moat/internal/audit"
)

// FileName is the database's name in moat's state directory.
const FileName = "audit.db"

// Path is the database of the state directory stateDir.
func Path(stateDir string) string { return filepath.Join(stateDir, FileName) }

// DefaultBusyTimeout is how long a writer waits for another (a daemon, a fallback hook)
// to finish its transaction when Options.BusyTimeout is zero.
const DefaultBusyTimeout = 10 * time.Second

// Retention says which records Prune removes. A zero field removes nothing on its own.
type Retention struct {
	// MaxAge removes the records older than it.
	MaxAge time.Duration
	// MaxRecords keeps at most this many records, the newest.
	MaxRecords int
	// KeepUnshipped keeps every record above the ship cursor (see ShipCursor), whatever
	// the limits above say: a machine shipping its audit to a fleet database keeps the
	// records the database has not acknowledged, however long it is down.
	KeepUnshipped bool
}

// Options configures a DB.
type Options struct {
	// Path is the database file, typically Path(state directory). Its directory is
	// created (0700) when missing, the file (0600) too unless ReadOnly.
	Path string
	// Redactor masks secrets before a record is stored, as the JSONL log does. It is
	// required to Append.
	Redactor audit.Redactor
	// Now stamps records whose Time is zero and is the clock of Prune; nil means time.Now.
	Now func() time.Time
	// MaxRecordBytes caps one record as audit.Options.MaxRecordBytes does.
	MaxRecordBytes int
	// BusyTimeout bounds the wait for another writer; zero means DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Retention is what Prune removes.
	Retention Retention
	// ReadOnly opens an existing database to read it: a missing one is an error
	// wrapping fs.ErrNotExist, and Append and Prune fail.
	ReadOnly bool
}

// DB is the audit database. It is safe for concurrent use, and any number of processes may
// open the same file: each Append is one transaction that takes SQLite's write lock
// before it reads the last record it chains to, so writers never lose or interleave
// records.
type DB struct {
	db        *sql.DB
	path      string
	red       audit.Redactor
	now       func() time.Time
	maxRecord int
	retention Retention
	readOnly  bool
	// pageWindow replaces the package's pageWindow when not zero (tests).
	pageWindow int

	// mu serializes this process's writers, so that they queue here rather than in
	// SQLite's busy handler, which polls; SQLite's lock serializes processes.
	mu sync.Mutex
}

// Open opens the database at opts.Path, creating it and bringing its schema up to date.
//
// The database lives in a private directory: Open refuses a file or directory that is a
// link or not of the expected kind, and on unix a directory or file that others may
// write (or, for the file, read).
func Open(ctx context.Context, opts Options) (*DB, error) {
	switch {
	case opts.Path == "":
		return nil, errors.New("open audit database: no path")
	case opts.BusyTimeout < 0:
		return nil, fmt.Errorf("open audit database %s: negative BusyTimeout %v", opts.Path, opts.BusyTimeout)
	case opts.Retention.MaxAge < 0 || opts.Retention.MaxRecords < 0:
		return nil, fmt.Errorf("open audit database %s: negative retention %+v", opts.Path, opts.Retention)
	}
	d := &DB{
		path:      opts.Path,
		red:       opts.Redactor,
		now:       opts.Now,
		maxRecord: opts.MaxRecordBytes,
		retention: opts.Retention,
		readOnly:  opts.ReadOnly,
	}
	if d.now == nil {
		d.now = time.Now
	}
	if err := prepareFile(opts.Path, opts.ReadOnly); err != nil {
		return nil, fmt.Errorf("open audit database: %w", err)
	}
	busy := cmp.Or(opts.BusyTimeout, DefaultBusyTimeout)
	db, err := sql.Open("sqlite", dsn(opts.Path, busy, opts.ReadOnly))
	if err != nil {
		return nil, fmt.Errorf("open audit database %s: %w", opts.Path, err)
	}
	d.db = db
	// A connection's first statement switches the database to WAL, which needs a lock
	// that SQLite's busy handler does not wait for: a process opening the database while
	// another switches it is told "database is locked" at once. Opening waits for that
	// as the busy timeout waits for a writer.
	for deadline := time.Now().Add(busy); ; {
		if opts.ReadOnly {
			err = d.checkSchema(ctx)
		} else {
			err = d.migrate(ctx)
		}
		if err == nil || !isBusy(err) || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(openRetry)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open audit database %s: %w", opts.Path, err)
	}
	return d, nil
}

// openRetry is how long Open waits before it tries again a database another process
// holds locked while switching it to WAL.
const openRetry = 5 * time.Millisecond

// isBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY, whose
// extended codes keep 5 in their low byte).
func isBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}

// dsn is the driver's name for the database at path: a URI, so that SQLite neither
// creates the file (prepareFile did, with its mode) nor reads anything else of the name.
// WAL lets readers go on while a writer writes; synchronous=NORMAL keeps every committed
// transaction through the crash of a process (a power loss may take the last ones);
// transactions begin IMMEDIATE, taking the write lock before their first read.
func dsn(path string, busy time.Duration, readOnly bool) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows volume: file:/C:/…
	}
	mode := "rw"
	if readOnly {
		mode = "ro"
	}
	q := url.Values{}
	q.Set("mode", mode)
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	if !readOnly {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return (&url.URL{Scheme: "file", OmitHost: true, Path: p, RawQuery: q.Encode()}).String()
}

// prepareFile checks the database's directory and file, creating them when missing
// (unless readOnly), each private to the user.
func prepareFile(path string, readOnly bool) error {
	dir := filepath.Dir(path)
	if !readOnly {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	if err := checkEntry(dir, true); err != nil {
		return err
	}
	err := checkEntry(path, false)
	if !errors.Is(err, fs.ErrNotExist) || readOnly {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return checkEntry(path, false) // another process made it first
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// ErrRefused is wrapped by the error of Open when the database or its directory is a
// link, not of the expected kind, or open to others.
var ErrRefused = errors.New("refused")

// checkEntry refuses a link, a non-directory (dir) or a non-regular file, and what
// private (per platform) refuses.
func checkEntry(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s: %w: it is a symbolic link", path, ErrRefused)
	case dir && !fi.IsDir():
		return fmt.Errorf("%s: %w: it is not a directory", path, ErrRefused)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: %w: it is not a regular file", path, ErrRefused)
	}
	if why := notPrivate(fi, dir); why != "" {
		return fmt.Errorf("%s: %w: %s", path, ErrRefused, why)
	}
	return nil
}

// Close closes the database.
func (d *DB) Close() error {
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("close audit database %s: %w", d.path, err)
	}
	return nil
}

// Append redacts r and stores it, numbered and chained to the record before it, exactly
// as audit.Log.Append would write it to the JSONL log; r itself is not modified. It
// returns nil once the record is committed.
func (d *DB) Append(ctx context.Context, r audit.Record) error {
	if err := d.appendAll(ctx, []audit.Record{r}); err != nil {
		return fmt.Errorf("append to audit database %s: %w", d.path, err)
	}
	return nil
}

// AppendBatch stores rs, in order, in one transaction, as Append stores each: a writer
// with several records at hand (the daemon under load) commits once rather than once per
// record, which is most of the cost of storing one. Either every record is stored or none.
func (d *DB) AppendBatch(ctx context.Context, rs []audit.Record) error {
	if err := d.appendAll(ctx, rs); err != nil {
		return fmt.Errorf("append to audit database %s: %w", d.path, err)
	}
	return nil
}

// appendAll stores rs, in order, in one transaction.
func (d *DB) appendAll(ctx context.Context, rs []audit.Record) error {
	if d.readOnly {
		return errors.New("opened read-only")
	}
	if d.red == nil {
		return errors.New("no Redactor")
	}
	rows := make([]row, len(rs))
	for i, r := range rs {
		body, err := audit.Encode(r, d.red, d.now, d.maxRecord)
		if err != nil {
			return err
		}
		// The columns hold what the line holds: the redacted record.
		rec, err := audit.ParseLine(body)
		if err != nil {
			return fmt.Errorf("encoded record does not read back: %w", err)
		}
		rows[i] = row{rec: rec, body: body}
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	seq, chain, err := tip(ctx, tx)
	if err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	for _, rw := range rows {
		seq++
		line := audit.Seal(rw.body, seq, chain)
		if _, err := stmt.ExecContext(ctx, rw.args(seq, line)...); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		chain = audit.ChainOf(line)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// tip returns the number of the last record and the chain value of the next one: after
// the last stored record, or after the last pruned one when every record was pruned.
func tip(ctx context.Context, tx *sql.Tx) (uint64, string, error) {
	var seq uint64
	var line string
	err := tx.QueryRowContext(ctx, `SELECT seq, line FROM records ORDER BY seq DESC LIMIT 1`).Scan(&seq, &line)
	switch {
	case err == nil:
		return seq, audit.ChainOf([]byte(line)), nil
	case !errors.Is(err, sql.ErrNoRows):
		return 0, "", fmt.Errorf("read the last record: %w", err)
	}
	seq, chain, err := prunedTip(ctx, tx)
	if err != nil {
		return 0, "", err
	}
	return seq, chain, nil
}

// row is one record about to be inserted: its redacted record and its unsealed line.
type row struct {
	rec  audit.Record
	body []byte
}

const insertSQL = `INSERT INTO records (seq, time, agent, session, event, class, tool, mcp,
	decision, rule, failure, policy, cwd, tool_key, class_key, mcp_key, line)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

func (rw row) args(seq uint64, line []byte) []any {
	r := rw.rec
	return []any{
		int64(seq), timeKey(r.Time), r.Agent, r.Session, r.Event, r.Class, r.Tool, r.MCP,
		r.Decision.String(), r.Rule, r.Failure, r.Policy, r.Cwd,
		foldKey(r.Tool), foldKey(r.Class), foldKey(r.MCP), string(line),
	}
}

// timeKey is t as the time column holds it: UTC, fixed width, so that comparing the text
// compares the times. Times outside years 1 to 9999 (which no record has) are clamped.
func timeKey(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Year() < 1:
		t = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	case t.Year() > 9999:
		t = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}
