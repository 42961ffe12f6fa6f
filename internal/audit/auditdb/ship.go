package auditdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/audit"
)

// metaShipped is the key of meta holding the ship cursor: the number of the newest
// record the fleet's database has acknowledged (see ShipCursor).
const metaShipped = "shipped_seq"

// Spooled is one stored record as a shipper reads it: its number, the record its line
// holds, and the line exactly as stored (redacted, sealed, without its newline).
type Spooled struct {
	Seq    uint64
	Record audit.Record
	Line   string
}

// After returns up to limit records numbered above seq, oldest first: what a shipper
// sends next when the records up to seq are acknowledged.
func (d *DB) After(ctx context.Context, seq uint64, limit int) ([]Spooled, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT seq, line FROM records WHERE seq > ? ORDER BY seq LIMIT ?`, int64(seq), limit)
	if err != nil {
		return nil, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	defer rows.Close()
	var out []Spooled
	for rows.Next() {
		var s Spooled
		var n int64
		if err := rows.Scan(&n, &s.Line); err != nil {
			return nil, fmt.Errorf("read audit database %s: %w", d.path, err)
		}
		s.Seq = uint64(n)
		s.Line = strings.TrimRight(s.Line, "\r\n") // stored with the log's newline
		if s.Record, err = audit.ParseLine([]byte(s.Line)); err != nil {
			return nil, fmt.Errorf("read audit database %s: record %d: %w", d.path, n, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	return out, nil
}

// CountAfter returns how many stored records are numbered above seq: a shipper's backlog.
func (d *DB) CountAfter(ctx context.Context, seq uint64) (int64, error) {
	var n int64
	if err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE seq > ?`, int64(seq)).Scan(&n); err != nil {
		return 0, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	return n, nil
}

// ShipCursor returns the number of the newest record the fleet's database has
// acknowledged, 0 when none was. Prune keeps every record above it when
// Retention.KeepUnshipped is set.
func (d *DB) ShipCursor(ctx context.Context) (uint64, error) {
	seq, err := shipCursor(ctx, d.db)
	if err != nil {
		return 0, fmt.Errorf("read audit database %s: %w", d.path, err)
	}
	return seq, nil
}

// SetShipCursor records that the fleet's database holds every record up to seq. A
// shipper calls it only after the database committed them (and with the database's own
// figure when it connects, which may be lower: a restored database is sent again what
// it lost).
func (d *DB) SetShipCursor(ctx context.Context, seq uint64) error {
	if d.readOnly {
		return fmt.Errorf("write audit database %s: opened read-only", d.path)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.db.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		metaShipped, strconv.FormatUint(seq, 10))
	if err != nil {
		return fmt.Errorf("write audit database %s: ship cursor: %w", d.path, err)
	}
	return nil
}

func shipCursor(ctx context.Context, q querier) (uint64, error) {
	var text string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaShipped).Scan(&text)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ship cursor: %w", err)
	}
	seq, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("ship cursor: malformed %s %q", metaShipped, text)
	}
	return seq, nil
}
