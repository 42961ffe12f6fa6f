package auditdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/moatdev/moat/internal/audit"
)

// migrations bring the schema from one version to the next: migrations[i] makes version
// i+1. A migration is never edited once released; a change is a new one.
var migrations = []string{
	// 1: one row per record. The columns are what `moat logs` and the daemon filter on,
	// each indexed with seq so that a filtered query reads the newest matches first;
	// line is the record exactly as the JSONL log would hold it (redacted, sealed), which
	// is what reading it back decodes. The *_key columns fold case (see foldKey) for the
	// --tool filter. meta holds the chain of pruned records.
	`CREATE TABLE records (
		seq       INTEGER PRIMARY KEY,
		time      TEXT    NOT NULL,
		agent     TEXT    NOT NULL,
		session   TEXT    NOT NULL,
		event     TEXT    NOT NULL,
		class     TEXT    NOT NULL,
		tool      TEXT    NOT NULL,
		mcp       TEXT    NOT NULL,
		decision  TEXT    NOT NULL,
		rule      TEXT    NOT NULL,
		failure   INTEGER NOT NULL,
		policy    TEXT    NOT NULL,
		cwd       TEXT    NOT NULL,
		tool_key  TEXT    NOT NULL,
		class_key TEXT    NOT NULL,
		mcp_key   TEXT    NOT NULL,
		line      TEXT    NOT NULL
	);
	CREATE INDEX records_time      ON records (time, seq);
	CREATE INDEX records_agent     ON records (agent, seq);
	CREATE INDEX records_session   ON records (session, seq);
	CREATE INDEX records_event     ON records (event, seq);
	CREATE INDEX records_class     ON records (class_key, seq);
	CREATE INDEX records_tool      ON records (tool_key, seq);
	CREATE INDEX records_mcp       ON records (mcp_key, seq);
	CREATE INDEX records_decision  ON records (decision, seq);
	CREATE INDEX records_rule      ON records (rule, seq);
	CREATE INDEX records_failure   ON records (failure, seq);
	CREATE INDEX records_policy    ON records (policy, seq);
	CREATE INDEX records_cwd       ON records (cwd, seq);
	CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
}

// SchemaVersion is the version of the schema this moat writes.
var SchemaVersion = len(migrations)

// migrate creates the schema_version table and applies the migrations the database lacks,
// each in the transaction that records it, so that processes opening the database at
// once apply each exactly once. A database from a newer moat is refused: its schema may
// mean something this one does not know.
func (d *DB) migrate(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_version: %w", err)
	}
	v, err := version(ctx, tx)
	if err != nil {
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this moat's (%d): upgrade moat", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
		}
	}
	if v < len(migrations) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, len(migrations)); err != nil {
			return fmt.Errorf("record schema version: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}

// checkSchema is migrate for a reader: the database must be at this moat's version.
func (d *DB) checkSchema(ctx context.Context) error {
	v, err := version(ctx, d.db)
	if err != nil {
		return err
	}
	if v != len(migrations) {
		return fmt.Errorf("schema version %d, this moat reads %d", v, len(migrations))
	}
	return nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// version reads the schema's version: 0 for a database without one.
func version(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// Keys of meta. Prune removes the oldest records; the chain of the first record left
// points at the last one removed, whose number and chain successor are kept here so that
// Verify can still check the first record, and Append can chain to it once every record
// is pruned.
const (
	metaPrunedSeq   = "pruned_seq"
	metaPrunedChain = "pruned_chain"
)

// prunedTip returns the number of the last pruned record and the chain value of the record
// after it; 0 and audit.ChainStart when nothing was pruned.
func prunedTip(ctx context.Context, q querier) (uint64, string, error) {
	var seqText, chain string
	err := q.QueryRowContext(ctx, `SELECT
		(SELECT value FROM meta WHERE key = ?),
		(SELECT value FROM meta WHERE key = ?)`, metaPrunedSeq, metaPrunedChain).Scan(nullable(&seqText), nullable(&chain))
	if err != nil {
		return 0, "", fmt.Errorf("read the pruned chain: %w", err)
	}
	if seqText == "" {
		return 0, audit.ChainStart, nil
	}
	seq, err := strconv.ParseUint(seqText, 10, 64)
	if err != nil || chain == "" {
		return 0, "", fmt.Errorf("read the pruned chain: malformed %s %q or %s %q", metaPrunedSeq, seqText, metaPrunedChain, chain)
	}
	return seq, chain, nil
}

// nullable scans a NULL into s as "".
func nullable(s *string) sql.Scanner { return (*nullString)(s) }

type nullString string

func (n *nullString) Scan(v any) error {
	var ns sql.NullString
	if err := ns.Scan(v); err != nil {
		return err
	}
	*n = nullString(ns.String)
	return nil
}
