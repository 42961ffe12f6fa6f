package auditdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/moatdev/moat/internal/audit"
)

// Prune removes what the retention setting says to remove, and returns how many records
// it removed. It removes the oldest records in the order they were written, so that the
// records left stay one unbroken chain: those beyond the newest Retention.MaxRecords, and
// those older than Retention.MaxAge up to the first that is not (a record written late
// with an older time is kept with those around it, never a record younger than MaxAge
// removed). The chain value after the last removed record is kept for Verify and for the
// next Append.
func (d *DB) Prune(ctx context.Context) (int64, error) {
	if d.readOnly {
		return 0, fmt.Errorf("prune audit database %s: opened read-only", d.path)
	}
	n, err := d.prune(ctx)
	if err != nil {
		return 0, fmt.Errorf("prune audit database %s: %w", d.path, err)
	}
	return n, nil
}

func (d *DB) prune(ctx context.Context) (int64, error) {
	ret := d.retention
	if ret.MaxAge == 0 && ret.MaxRecords == 0 {
		return 0, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit

	// cut is the newest record to remove; 0 removes none.
	var cut int64
	if ret.MaxRecords > 0 {
		var seq int64
		err := tx.QueryRowContext(ctx, `SELECT seq FROM records ORDER BY seq DESC LIMIT 1 OFFSET ?`, ret.MaxRecords).Scan(&seq)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		cut = max(cut, seq)
	}
	if ret.MaxAge > 0 {
		cutoff := timeKey(d.now().Add(-ret.MaxAge))
		var young, newest sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT
			(SELECT min(seq) FROM records WHERE time >= ?),
			(SELECT max(seq) FROM records)`, cutoff).Scan(&young, &newest)
		if err != nil {
			return 0, err
		}
		switch {
		case young.Valid:
			cut = max(cut, young.Int64-1)
		case newest.Valid:
			cut = max(cut, newest.Int64) // every record is older
		}
	}
	if ret.KeepUnshipped {
		shipped, err := shipCursor(ctx, tx)
		if err != nil {
			return 0, err
		}
		cut = min(cut, int64(shipped))
	}
	if cut <= 0 {
		return 0, nil
	}
	var seq int64
	var line string
	err = tx.QueryRowContext(ctx, `SELECT seq, line FROM records WHERE seq <= ? ORDER BY seq DESC LIMIT 1`, cut).Scan(&seq, &line)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil // pruned already
	}
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM records WHERE seq <= ?`, seq)
	if err != nil {
		return 0, err
	}
	removed, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	for k, v := range map[string]string{metaPrunedSeq: strconv.FormatInt(seq, 10), metaPrunedChain: audit.ChainOf([]byte(line))} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return removed, nil
}
