package fleetdb

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/logview"
)

// Reader is what reading the fleet's records needs: a connection (or a pool, or a
// transaction). Every query it is given takes its values as parameters.
type Reader interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Filter selects the fleet's records: the conditions of `moat logs` on each record,
// and the machines they come from. Its conditions combine with AND.
type Filter struct {
	logview.Filter
	// Machines keeps the records of these machines, each named by its name or its id.
	Machines []string
}

// Match reports whether r, made on the machine machineID named machine, passes f.
func (f Filter) Match(machineID, machine string, r audit.Record) bool {
	if len(f.Machines) > 0 && !slices.Contains(f.Machines, machine) && !slices.Contains(f.Machines, machineID) {
		return false
	}
	return f.Filter.Match(r)
}

// RemoteRecord is a record of one machine of the fleet.
type RemoteRecord struct {
	MachineID string
	Machine   string
	OSUser    string
	Record    audit.Record
	// Line is the record exactly as the machine's log holds it.
	Line string
	// at is the time column (microseconds, as PostgreSQL keeps it): the order of pages.
	at time.Time
}

// Cursor is a place in the fleet's records, ordered by time, then machine id, then
// number: Query's pages continue below one, Read above one. The zero Cursor is before
// every record.
type Cursor struct {
	Time      time.Time `json:"time"`
	MachineID string    `json:"machine_id"`
	Seq       uint64    `json:"seq"`
}

// IsZero reports whether c is the zero Cursor.
func (c Cursor) IsZero() bool { return c.Time.IsZero() && c.MachineID == "" && c.Seq == 0 }

func (rr RemoteRecord) cursor() Cursor {
	return Cursor{Time: rr.at, MachineID: rr.MachineID, Seq: rr.Record.Seq}
}

// DefaultPageSize is the page of Query when Page.Limit is zero; MaxPageSize bounds it.
const (
	DefaultPageSize = 100
	MaxPageSize     = 10000
)

// Page says which records of a Query to return: at most Limit (zero: DefaultPageSize),
// newest first, below Before (zero: from the newest on).
type Page struct {
	Before Cursor
	Limit  int
}

// Result is one page of records, newest first. Next is the Page.Before of the page after
// it; More says there is one.
type Result struct {
	Records []RemoteRecord
	Next    Cursor
	More    bool
}

// Query returns the records f selects, newest first, one page at a time.
func Query(ctx context.Context, db Reader, f Filter, p Page) (Result, error) {
	limit := cmp.Or(p.Limit, DefaultPageSize)
	if limit < 0 || limit > MaxPageSize {
		return Result{}, fmt.Errorf("query the fleet's records: limit %d is not between 1 and %d", limit, MaxPageSize)
	}
	var w where
	f.render(&w)
	if !p.Before.IsZero() {
		w.add("(time, machine_id, seq) < (" + w.arg(p.Before.Time) + ", " + w.arg(p.Before.MachineID) + ", " + w.arg(int64(p.Before.Seq)) + ")")
	}
	var res Result
	n := 0
	err := scan(ctx, db, w, "DESC", limit+1, func(rr RemoteRecord) {
		n++
		if n > limit {
			res.More = true
			return
		}
		res.Next = rr.cursor()
		if f.Match(rr.MachineID, rr.Machine, rr.Record) {
			res.Records = append(res.Records, rr)
		}
	})
	if err != nil {
		return Result{}, fmt.Errorf("query the fleet's records: %w", err)
	}
	if !res.More {
		res.Next = Cursor{}
	}
	return res, nil
}

// readBatch is how many records Read takes in one query.
const readBatch = 1000

// Read calls fn for every record f selects that comes after after, oldest first, and
// returns the place of the last record read. fn's error stops Read and is returned as
// it is.
func Read(ctx context.Context, db Reader, f Filter, after Cursor, fn func(RemoteRecord) error) (Cursor, error) {
	for {
		var w where
		f.render(&w)
		if !after.IsZero() {
			w.add("(time, machine_id, seq) > (" + w.arg(after.Time) + ", " + w.arg(after.MachineID) + ", " + w.arg(int64(after.Seq)) + ")")
		}
		var batch []RemoteRecord
		if err := scan(ctx, db, w, "ASC", readBatch, func(rr RemoteRecord) { batch = append(batch, rr) }); err != nil {
			return after, fmt.Errorf("read the fleet's records: %w", err)
		}
		for _, rr := range batch {
			after = rr.cursor()
			if !f.Match(rr.MachineID, rr.Machine, rr.Record) {
				continue
			}
			if err := fn(rr); err != nil {
				return after, err
			}
		}
		if len(batch) < readBatch {
			return after, nil
		}
	}
}

// Follow calls fn for the records f selects as machines ship them, looking every poll,
// until ctx is done (then it returns nil) or fn fails (then it returns fn's error as it
// is). With history, the records already stored come first, oldest first, then caught
// (when not nil) is called.
//
// A machine ships its records in order and moat_machines says the last it shipped, so
// Follow keeps the last number it has seen of each machine and asks only the machines
// that have shipped past it, through the records' key: records shipped late (a machine
// that was offline) are shown when they arrive, whatever their time.
func Follow(ctx context.Context, db Reader, f Filter, history bool, poll time.Duration, caught func() error, fn func(RemoteRecord) error) error {
	seen, err := lastShipped(ctx, db)
	if err != nil {
		return err
	}
	if history {
		// Records up to what each machine had shipped when Follow started; the rest
		// come with the first poll.
		if _, err := Read(ctx, db, f, Cursor{}, func(rr RemoteRecord) error {
			if last, ok := seen[rr.MachineID]; !ok || rr.Record.Seq > last {
				return nil
			}
			return fn(rr)
		}); err != nil {
			return err
		}
	}
	if caught != nil {
		if err := caught(); err != nil {
			return err
		}
	}
	t := time.NewTicker(cmp.Or(poll, audit.DefaultPoll))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now, err := lastShipped(ctx, db)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		var fresh []RemoteRecord
		for id, last := range now {
			if last <= seen[id] {
				continue
			}
			var w where
			f.render(&w)
			w.add("machine_id = " + w.arg(id))
			w.add("seq > " + w.arg(int64(seen[id])))
			w.add("seq <= " + w.arg(int64(last)))
			err := scan(ctx, db, w, "ASC", -1, func(rr RemoteRecord) {
				if f.Match(rr.MachineID, rr.Machine, rr.Record) {
					fresh = append(fresh, rr)
				}
			})
			if ctx.Err() != nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("follow the fleet's records: %w", err)
			}
			seen[id] = last
		}
		slices.SortFunc(fresh, func(a, b RemoteRecord) int { return compareCursors(a.cursor(), b.cursor()) })
		for _, rr := range fresh {
			if err := fn(rr); err != nil {
				return err
			}
		}
	}
}

// lastShipped is the number of the last record each machine has shipped.
func lastShipped(ctx context.Context, db Reader) (map[string]uint64, error) {
	rows, err := db.Query(ctx, `SELECT machine_id, last_seq FROM moat_machines`)
	if err != nil {
		return nil, fmt.Errorf("read the fleet's machines: %w", err)
	}
	out := map[string]uint64{}
	for rows.Next() {
		var id string
		var last int64
		if err := rows.Scan(&id, &last); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read the fleet's machines: %w", err)
		}
		out[id] = uint64(max(last, 0))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the fleet's machines: %w", err)
	}
	return out, nil
}

func compareCursors(a, b Cursor) int {
	return cmp.Or(a.Time.Compare(b.Time), strings.Compare(a.MachineID, b.MachineID), cmp.Compare(a.Seq, b.Seq))
}

// where gathers the conditions of a query and their parameters.
type where struct {
	conds []string
	args  []any
}

// arg adds v as a parameter and returns its placeholder.
func (w *where) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *where) add(cond string) { w.conds = append(w.conds, cond) }

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.conds, " AND ")
}

// render adds f's conditions to w. The SQL selects at least what f does; Match then
// decides on each record (times are kept to the microsecond in the database, to the
// nanosecond in records).
func (f Filter) render(w *where) {
	if !f.Since.IsZero() {
		w.add("time >= " + w.arg(f.Since.Truncate(time.Microsecond)))
	}
	if len(f.Decisions) > 0 {
		names := make([]string, len(f.Decisions))
		for i, v := range f.Decisions {
			names[i] = v.String()
		}
		w.add("decision = ANY(" + w.arg(names) + ")")
	}
	if len(f.Agents) > 0 {
		w.add("agent = ANY(" + w.arg(f.Agents) + ")")
	}
	if len(f.Sessions) > 0 {
		w.add("session = ANY(" + w.arg(f.Sessions) + ")")
	}
	if len(f.Tools) > 0 {
		// Compared without regard to case, as logview does; an MCP name only when the
		// record has one.
		list := "(SELECT lower(t) FROM unnest(" + w.arg(f.Tools) + "::text[]) t)"
		w.add("(lower(tool) IN " + list + " OR lower(class) IN " + list + " OR (mcp <> '' AND lower(mcp) IN " + list + "))")
	}
	if f.Failures {
		w.add("failure")
	}
	if len(f.Seqs) > 0 {
		seqs := make([]int64, len(f.Seqs))
		for i, s := range f.Seqs {
			seqs[i] = int64(min(s, 1<<63-1))
		}
		w.add("seq = ANY(" + w.arg(seqs) + ")")
	}
	if len(f.Machines) > 0 {
		p := w.arg(f.Machines)
		w.add("(machine = ANY(" + p + ") OR machine_id = ANY(" + p + "))")
	}
}

// scan runs one query over moat_records in (time, machine_id, seq) order (dir), at most
// limit rows (no bound when negative), and calls fn with each.
func scan(ctx context.Context, db Reader, w where, dir string, limit int, fn func(RemoteRecord)) error {
	q := "SELECT machine_id, machine, os_user, seq, time, line FROM moat_records" + w.sql() +
		" ORDER BY time " + dir + ", machine_id " + dir + ", seq " + dir
	if limit >= 0 {
		q += " LIMIT " + w.arg(limit)
	}
	rows, err := db.Query(ctx, q, w.args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rr RemoteRecord
		var seq int64
		if err := rows.Scan(&rr.MachineID, &rr.Machine, &rr.OSUser, &seq, &rr.at, &rr.Line); err != nil {
			return err
		}
		r, err := audit.ParseLine([]byte(rr.Line))
		if err != nil {
			// A row no moat wrote (RowOf parses every line it derives): said, not skipped
			// in silence, since the audit must not hide what it cannot read.
			return fmt.Errorf("record %d of machine %s: %w", seq, rr.MachineID, err)
		}
		rr.Record = r
		fn(rr)
	}
	return rows.Err()
}
