package auditdb

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// Filter selects records, as `moat logs` does. Its conditions combine with AND; a list
// holds when the record has any of its values; an empty condition holds for every record.
type Filter struct {
	// Since keeps records made at or after it, Until those made before it; zero keeps all.
	Since, Until time.Time
	Decisions    []call.Verdict
	Agents       []string
	Sessions     []string
	Events       []string
	Rules        []string
	Policies     []string
	Cwds         []string
	// Tools are native tool names ("Bash"), canonical classes ("shell") or MCP tools
	// ("mcp:github/create_issue"), compared without regard to case.
	Tools []string
	// Failures keeps only the decisions moat could not make.
	Failures bool
	// Text keeps the records whose stored line (the redacted record as JSON) contains it,
	// case sensitive.
	Text string
}

// DefaultPageSize is the page of Query when Page.Limit is zero.
const DefaultPageSize = 100

// Page says which records of a Query to return: at most Limit (zero: DefaultPageSize),
// the newest first, and only those numbered below Before (zero: from the newest on).
type Page struct {
	Before uint64
	Limit  int
}

// Result is one page of records, newest first. Next is the Page.Before of the page after
// it, zero when there is none.
type Result struct {
	Records []audit.Record
	Next    uint64
}

// Query returns the records f selects, newest first, one page at a time.
//
// It looks in two steps, each exact. A page of a common filter lies among the newest
// records, which a scan back from the newest finds at once, checking each record; a
// rare one lies anywhere, which the indexes find, at the cost of gathering every match
// of a common condition first. So Query scans the newest pageWindow records for the
// page, and only when they hold too few asks the indexes for the rest, below them.
func (d *DB) Query(ctx context.Context, f Filter, p Page) (Result, error) {
	limit := cmp.Or(p.Limit, DefaultPageSize)
	if limit < 0 {
		return Result{}, fmt.Errorf("query audit database: negative limit %d", limit)
	}
	top := p.Before
	if top == 0 {
		last, err := d.LastSeq(ctx)
		if err != nil {
			return Result{}, err
		}
		top = last + 1
	}
	// Records numbered in [low, top) are scanned; those below low are sought.
	low := uint64(0)
	if window := uint64(cmp.Or(d.pageWindow, pageWindow)); top > window {
		low = top - window
	}
	var res Result
	var last uint64
	add := func(seq uint64, r audit.Record) error {
		if len(res.Records) == limit {
			res.Next = last
			return nil
		}
		res.Records = append(res.Records, r)
		last = seq
		return nil
	}
	where, args := f.sql(scanPlan)
	where = append(where, "seq >= ?", "seq < ?")
	args = append(args, int64(low), int64(top))
	n := 0
	err := d.scan(ctx, where, args, "DESC", limit+1, func(seq uint64, r audit.Record) error { n++; return add(seq, r) })
	if err == nil && n <= limit && low > 0 {
		where, args = f.sql(seekPlan)
		where = append(where, "seq < ?")
		args = append(args, int64(low))
		err = d.scan(ctx, where, args, "DESC", limit+1-n, add)
	}
	if err != nil {
		return Result{}, fmt.Errorf("query audit database %s: %w", d.path, err)
	}
	return res, nil
}

// pageWindow is how many of the newest records Query scans before it asks the indexes.
// Scanning them costs a few milliseconds; a filter matching one record in 50 fills a page
// of 100 within them.
const pageWindow = 5000

// plan says how Filter.sql writes conditions: for SQLite to check on each record of a
// short range it scans (scanPlan), or to seek the matching records through the indexes
// (seekPlan).
type plan int

const (
	scanPlan plan = iota
	seekPlan
)

// readBatch is how many records Read takes at once.
const readBatch = 1000

// Read calls fn for every record f selects that is numbered after after (zero: every
// record), oldest first, and returns the number of the last record delivered (after
// itself when there was none). fn's error stops Read and is returned as it is.
func (d *DB) Read(ctx context.Context, f Filter, after uint64, fn func(audit.Record) error) (uint64, error) {
	where, args := f.sql(seekPlan)
	where = append(where, "seq > ?")
	for {
		n := 0
		var fnErr error
		err := d.scan(ctx, where, append(slices.Clip(args), int64(after)), "ASC", readBatch, func(seq uint64, r audit.Record) error {
			n++
			after = seq
			if err := fn(r); err != nil {
				fnErr = err
				return err
			}
			return nil
		})
		if fnErr != nil {
			return after, fnErr
		}
		if err != nil {
			return after, fmt.Errorf("read audit database %s: %w", d.path, err)
		}
		if n < readBatch {
			return after, nil
		}
	}
}

// scan runs one query over records and calls fn with each row in seq order (dir), at
// most limit rows.
func (d *DB) scan(ctx context.Context, where []string, args []any, dir string, limit int, fn func(uint64, audit.Record) error) error {
	q := "SELECT seq, line FROM records"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY seq " + dir + " LIMIT ?"
	rows, err := d.db.QueryContext(ctx, q, append(slices.Clip(args), limit)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var seq uint64
		var line []byte
		if err := rows.Scan(&seq, &line); err != nil {
			return err
		}
		r, err := audit.ParseLine(line)
		if err != nil {
			// Only Append writes lines, each parsed before it was stored.
			return fmt.Errorf("record %d: %w", seq, err)
		}
		if err := fn(seq, r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sql renders f as conditions on the records table and their arguments, written for pl.
func (f Filter) sql(pl plan) ([]string, []any) {
	var where []string
	var args []any
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		where = append(where, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if !f.Since.IsZero() {
		where = append(where, "time >= ?")
		args = append(args, timeKey(f.Since))
	}
	if !f.Until.IsZero() {
		where = append(where, "time < ?")
		args = append(args, timeKey(f.Until))
		if pl == seekPlan {
			// Also below the newest record before Until, found in the time index:
			// otherwise every record after Until is read to find none. (Times
			// mostly grow with numbers, not always: the time condition decides.)
			where = append(where, "seq <= (SELECT max(seq) FROM records INDEXED BY records_time WHERE time < ?)")
			args = append(args, timeKey(f.Until))
		}
	}
	if len(f.Decisions) > 0 {
		names := make([]string, len(f.Decisions))
		for i, v := range f.Decisions {
			names[i] = v.String()
		}
		in("decision", names)
	}
	in("agent", f.Agents)
	in("session", f.Sessions)
	in("event", f.Events)
	in("rule", f.Rules)
	in("policy", f.Policies)
	in("cwd", f.Cwds)
	if len(f.Tools) > 0 {
		keys := make([]any, len(f.Tools))
		for i, t := range f.Tools {
			keys[i] = foldKey(t)
		}
		list := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(keys)), ", ") + ")"
		// An MCP name is compared only when the record has one, as logview does (a
		// record has an mcp_key exactly when it has an MCP name).
		if pl == seekPlan && !f.hasColumnCondition() {
			// The numbers of the matching records are gathered from the three
			// indexes, rather than the records, which SQLite would sort whole to
			// read them newest first (1.4 s for a common tool in 100,000 records).
			// With a condition on another indexed column, SQLite seeks through that
			// index and checks the tool on each record.
			where = append(where, "seq IN (SELECT seq FROM records WHERE tool_key IN "+list+
				" UNION ALL SELECT seq FROM records WHERE class_key IN "+list+
				" UNION ALL SELECT seq FROM records WHERE mcp_key <> '' AND mcp_key IN "+list+")")
		} else {
			// Unary + keeps SQLite from the indexes: the record is checked as it is.
			where = append(where, "(+tool_key IN "+list+" OR +class_key IN "+list+" OR (+mcp_key <> '' AND +mcp_key IN "+list+"))")
		}
		args = append(args, keys...)
		args = append(args, keys...)
		args = append(args, keys...)
	}
	if f.Failures {
		where = append(where, "failure = 1")
	}
	if f.Text != "" {
		where = append(where, "instr(line, ?) > 0")
		args = append(args, f.Text)
	}
	return where, args
}

// Follow calls fn for the records f selects as they are stored, oldest first, looking
// every poll (zero: audit.DefaultPoll), until ctx is done (then it returns nil) or fn
// fails (then it returns fn's error as it is). With history, the records already stored
// come first, then caught (when not nil) is called.
func (d *DB) Follow(ctx context.Context, f Filter, history bool, poll time.Duration, caught func() error, fn func(audit.Record) error) error {
	var after uint64
	if !history {
		var err error
		if after, err = d.LastSeq(ctx); err != nil {
			return err
		}
	}
	t := time.NewTicker(cmp.Or(poll, audit.DefaultPoll))
	defer t.Stop()
	for first := true; ; first = false {
		var err error
		after, err = d.Read(ctx, f, after, fn)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		if first && caught != nil {
			if err := caught(); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// LastSeq returns the number of the newest record, zero when there is none.
func (d *DB) LastSeq(ctx context.Context) (uint64, error) {
	var seq *int64
	if err := d.db.QueryRowContext(ctx, `SELECT max(seq) FROM records`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	if seq == nil {
		return 0, nil
	}
	return uint64(*seq), nil
}

// hasColumnCondition reports whether f holds a condition on an indexed column other than
// the tool's and the time.
func (f Filter) hasColumnCondition() bool {
	return len(f.Decisions)+len(f.Agents)+len(f.Sessions)+len(f.Events)+len(f.Rules)+len(f.Policies)+len(f.Cwds) > 0 || f.Failures
}
