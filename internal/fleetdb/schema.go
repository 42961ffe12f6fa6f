// Package fleetdb is the PostgreSQL side of a fleet: the schema that many machines ship
// their audit records into and read policy bundles from, its migrations, and the
// connection settings every part shares.
package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
)

// migrations bring the schema from one version to the next: migrations[i] makes version
// i+1. A released migration is never edited; a change is a new one.
var migrations = []string{
	// 1: records keyed by the machine's id and the record's sequence number on that
	// machine, so that a record shipped twice (a retry after a lost answer) is stored
	// once. The columns are what `moat logs --remote` and `moat report --remote` filter
	// on; line is the record exactly as the machine's JSONL log holds it (redacted,
	// sealed). machines keeps one row per machine: what it last shipped and with which
	// policy. policy_bundles holds signed managed policies for machines that fetch theirs
	// from the database: the newest serial is the one in force.
	`CREATE TABLE moat_records (
		machine_id     text        NOT NULL,
		seq            bigint      NOT NULL,
		machine        text        NOT NULL,
		os_user        text        NOT NULL,
		time           timestamptz NOT NULL,
		agent          text        NOT NULL,
		session        text        NOT NULL,
		event          text        NOT NULL,
		class          text        NOT NULL,
		tool           text        NOT NULL,
		mcp            text        NOT NULL,
		decision       text        NOT NULL,
		rule           text        NOT NULL,
		failure        boolean     NOT NULL,
		policy         text        NOT NULL,
		managed_serial bigint      NOT NULL,
		cwd            text        NOT NULL,
		line           text        NOT NULL,
		received       timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (machine_id, seq)
	);
	CREATE INDEX moat_records_time     ON moat_records (time);
	CREATE INDEX moat_records_decision ON moat_records (decision, time);
	CREATE INDEX moat_records_machine  ON moat_records (machine, time);
	CREATE INDEX moat_records_agent    ON moat_records (agent, time);
	CREATE INDEX moat_records_rule     ON moat_records (rule, time);
	CREATE TABLE moat_machines (
		machine_id     text        PRIMARY KEY,
		machine        text        NOT NULL,
		os_user        text        NOT NULL,
		moat_version   text        NOT NULL,
		managed_serial bigint      NOT NULL,
		last_seq       bigint      NOT NULL,
		first_seen     timestamptz NOT NULL DEFAULT now(),
		last_seen      timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE moat_policy_bundles (
		serial    bigint      PRIMARY KEY CHECK (serial >= 1),
		bundle    text        NOT NULL,
		published timestamptz NOT NULL DEFAULT now()
	);`,
}

// SchemaVersion is the version of the schema this moat reads and writes.
var SchemaVersion = len(migrations)

// ErrNotMigrated says the database lacks moat's schema or holds an older one: an
// administrator runs `moat fleet migrate` (machines only insert and select, and need no
// right to change the schema).
var ErrNotMigrated = errors.New("the database does not hold moat's schema at this version; run `moat fleet migrate`")

// Migrate creates moat's tables or brings them to SchemaVersion, each migration in the
// transaction that records it, under an advisory lock so that two administrators (or
// tests) migrating at once apply each exactly once. It returns the versions before and
// after. A database from a newer moat is refused.
func Migrate(ctx context.Context, conn *pgx.Conn) (from, to int, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("begin migration: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	// The lock's key is an arbitrary constant naming moat's migrations.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7302154913)`); err != nil {
		return 0, 0, fmt.Errorf("lock for migration: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS moat_schema (version integer NOT NULL)`); err != nil {
		return 0, 0, fmt.Errorf("create moat_schema: %w", err)
	}
	v, err := version(ctx, tx)
	if err != nil {
		return 0, 0, err
	}
	if v > len(migrations) {
		return v, v, fmt.Errorf("schema version %d is newer than this moat's (%d): upgrade moat", v, len(migrations))
	}
	for i := v; i < len(migrations); i++ {
		if _, err := tx.Exec(ctx, migrations[i]); err != nil {
			return v, v, fmt.Errorf("migrate to schema version %d: %w", i+1, err)
		}
	}
	if v < len(migrations) {
		if _, err := tx.Exec(ctx, `DELETE FROM moat_schema`); err != nil {
			return v, v, fmt.Errorf("record schema version: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO moat_schema (version) VALUES ($1)`, len(migrations)); err != nil {
			return v, v, fmt.Errorf("record schema version: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return v, v, fmt.Errorf("commit migration: %w", err)
	}
	return v, len(migrations), nil
}

// CheckSchema returns ErrNotMigrated unless the database holds this moat's schema
// version.
func CheckSchema(ctx context.Context, q Querier) error {
	v, err := version(ctx, q)
	if err != nil {
		if strings.Contains(err.Error(), "moat_schema") {
			return ErrNotMigrated
		}
		return err
	}
	switch {
	case v < len(migrations):
		return fmt.Errorf("schema version %d, this moat needs %d: %w", v, len(migrations), ErrNotMigrated)
	case v > len(migrations):
		return fmt.Errorf("schema version %d is newer than this moat's (%d): upgrade moat", v, len(migrations))
	}
	return nil
}

// Querier is what reading the version needs: a connection or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func version(ctx context.Context, q Querier) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT version FROM moat_schema`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read moat_schema: %w", err)
	}
	return v, nil
}

// Connect opens one connection to dsn, with the password read from passwordFile when
// that is set (its first line); pgx reads PGPASSFILE and the other PG* variables itself.
func Connect(ctx context.Context, dsn, passwordFile string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the connection string; it holds no password (the
		// fleet configuration refuses one there).
		return nil, fmt.Errorf("postgres connection string: %w", err)
	}
	if passwordFile != "" {
		data, err := os.ReadFile(passwordFile)
		if err != nil {
			return nil, fmt.Errorf("postgres password: %w", err)
		}
		line, _, _ := strings.Cut(string(data), "\n")
		cfg.Password = strings.TrimRight(line, "\r")
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to postgres %s:%d/%s: %w", cfg.Host, cfg.Port, cfg.Database, err)
	}
	return conn, nil
}
