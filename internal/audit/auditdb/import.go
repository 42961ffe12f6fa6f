package auditdb

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/moatdev/moat/internal/audit"
)

// Import stores lines of the JSONL audit log exactly as the log holds them (redacted,
// numbered and chained by the log's writer), so that the database mirrors the log: the
// same records under the same numbers, and a chain that verifies as the log's does.
// lines must come in the log's order. A line numbered at or below the newest record the
// database holds or has pruned is skipped, so that importing the same lines again (after
// a restart, or from a writer that reads the log from its start) stores each once. It
// returns how many lines were stored; on an error none were.
func (d *DB) Import(ctx context.Context, lines [][]byte) (int, error) {
	n, err := d.importLines(ctx, lines)
	if err != nil {
		return 0, fmt.Errorf("import into audit database %s: %w", d.path, err)
	}
	return n, nil
}

func (d *DB) importLines(ctx context.Context, lines [][]byte) (int, error) {
	if d.readOnly {
		return 0, errors.New("opened read-only")
	}
	rows := make([]row, 0, len(lines))
	for _, line := range lines {
		line = bytes.TrimRight(line, "\r\n")
		rec, err := audit.ParseLine(line)
		if err != nil {
			return 0, fmt.Errorf("not a record: %w", err)
		}
		if rec.Seq == 0 {
			continue // a line of an older moat, numbered by no one: nothing to key it by
		}
		rows = append(rows, row{rec: rec, body: append(append(make([]byte, 0, len(line)+1), line...), '\n')})
	}
	if len(rows) == 0 {
		return 0, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	last, err := through(ctx, tx)
	if err != nil {
		return 0, err
	}
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return 0, fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()
	n := 0
	for _, rw := range rows {
		if rw.rec.Seq <= last {
			continue
		}
		if _, err := stmt.ExecContext(ctx, rw.args(rw.rec.Seq, rw.body)...); err != nil {
			return 0, fmt.Errorf("insert: %w", err)
		}
		last = rw.rec.Seq
		n++
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return n, nil
}

// through is the number of the newest record stored or pruned: what an import skips.
func through(ctx context.Context, q querier) (uint64, error) {
	var seq sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT max(seq) FROM records`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the last record: %w", err)
	}
	pruned, _, err := prunedTip(ctx, q)
	if err != nil {
		return 0, err
	}
	return max(uint64(max(seq.Int64, 0)), pruned), nil
}

// Holds reports whether the database holds, or has pruned, the record numbered seq whose
// line (with or without its newline) hashes to chain (audit.ChainOf of it): whether it
// has caught up with a log whose newest record that is.
func (d *DB) Holds(ctx context.Context, seq uint64, chain string) (bool, error) {
	var line string
	err := d.db.QueryRowContext(ctx, `SELECT line FROM records WHERE seq = ?`, int64(seq)).Scan(&line)
	switch {
	case err == nil:
		return audit.ChainOf([]byte(line)) == chain, nil
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	prunedSeq, prunedChain, err := prunedTip(ctx, d.db)
	if err != nil {
		return false, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	// The chain kept for the last pruned record is the chain value of the record after
	// it, which is the hash of its line.
	return prunedSeq == seq && prunedSeq > 0 && prunedChain == chain, nil
}

// Count returns how many records the database holds.
func (d *DB) Count(ctx context.Context) (int64, error) {
	var n int64
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM records`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	return n, nil
}
