package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Machine is what a shipping machine says of itself in moat_machines.
type Machine struct {
	// ID is the installation's id (fleet.MachineID): with a record's number, the
	// record's key.
	ID string
	// Name is the machine's name from the fleet configuration.
	Name   string
	OSUser string
	// Version is the moat version shipping.
	Version string
}

// shipSQL inserts a batch in one statement, one array per column: one round trip
// whatever the batch's size. A record the database holds already (sent again after an
// answer was lost) is skipped, so that each is stored once.
const shipSQL = `INSERT INTO moat_records (machine_id, seq, machine, os_user, time, agent, session,
	event, class, tool, mcp, decision, rule, failure, policy, managed_serial, cwd, line)
	SELECT $1, r.seq, $2, $3, r.time, r.agent, r.session, r.event, r.class, r.tool, r.mcp,
		r.decision, r.rule, r.failure, r.policy, r.managed_serial, r.cwd, r.line
	FROM unnest($4::bigint[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9::text[],
		$10::text[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::text[],
		$16::bigint[], $17::text[], $18::text[])
		AS r(seq, time, agent, session, event, class, tool, mcp, decision, rule, failure,
			policy, managed_serial, cwd, line)
	ON CONFLICT (machine_id, seq) DO NOTHING`

// machineSQL records the machine and what it shipped last; last_seq never goes back
// (a batch sent again after a lost answer is older than what followed it).
const machineSQL = `INSERT INTO moat_machines (machine_id, machine, os_user, moat_version, managed_serial, last_seq)
	VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (machine_id) DO UPDATE SET machine = excluded.machine, os_user = excluded.os_user,
		moat_version = excluded.moat_version, last_seen = now(),
		managed_serial = CASE WHEN excluded.last_seq >= moat_machines.last_seq
			THEN excluded.managed_serial ELSE moat_machines.managed_serial END,
		last_seq = greatest(moat_machines.last_seq, excluded.last_seq)`

// Refused reports whether err is the database refusing the values of a record: SQLSTATE
// class 22 (a data exception, such as text the database's encoding cannot hold) or 54 (a
// limit, such as a value too large for one of the indexes). Sending the same record
// again meets the same refusal, while the records around it can be stored. Any other
// failure (the network, the server, the schema, a constraint an administrator added,
// which may refuse every record) is not a refusal of one record: it is retried.
func Refused(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || len(pe.Code) != 5 {
		return false
	}
	switch pe.Code[:2] {
	case "22", "54":
		return true
	}
	return false
}

// Ship stores the rows of m's records (RowFrom), in one transaction with the machine's
// row: either all are stored (or were already) and the machine's row says so, or nothing
// changed. It returns how many records were new. recs must be in order, the last being
// the newest; the machine's columns come from m.
func Ship(ctx context.Context, conn *pgx.Conn, m Machine, recs []Row) (int64, error) {
	if len(recs) == 0 {
		return 0, nil
	}
	n := len(recs)
	var (
		seqs     = make([]int64, n)
		times    = make([]time.Time, n)
		serials  = make([]int64, n)
		failures = make([]bool, n)
		text     [11][]string // agent … line, in shipSQL's order
	)
	for i := range text {
		text[i] = make([]string, n)
	}
	for i, r := range recs {
		seqs[i], times[i], serials[i], failures[i] = int64(r.Seq), r.Time, r.ManagedSerial, r.Failure
		for j, s := range []string{r.Agent, r.Session, r.Event, r.Class, r.Tool, r.MCP, r.Decision, r.Rule, r.Policy, r.Cwd, r.Line} {
			text[j][i] = storable(s)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	tag, err := tx.Exec(ctx, shipSQL, m.ID, storable(m.Name), storable(m.OSUser),
		seqs, times, text[0], text[1], text[2], text[3], text[4], text[5], text[6], text[7], failures,
		text[8], serials, text[9], text[10])
	if err != nil {
		return 0, fmt.Errorf("insert records: %w", err)
	}
	last := recs[n-1]
	if _, err := tx.Exec(ctx, machineSQL, m.ID, storable(m.Name), storable(m.OSUser), storable(m.Version), last.ManagedSerial, int64(last.Seq)); err != nil {
		return 0, fmt.Errorf("record the machine: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("commit: %w", err)
	}
	return tag.RowsAffected(), nil
}

// LastSeq returns the number of the newest record the database holds of machine id, 0
// for none: where a shipper resumes.
func LastSeq(ctx context.Context, q Querier, id string) (uint64, error) {
	var seq int64
	if err := q.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM moat_records WHERE machine_id = $1`, id).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read the last shipped record: %w", err)
	}
	return uint64(max(seq, 0)), nil
}

// storable makes s a value PostgreSQL's text accepts: it refuses NUL, which a record's
// JSON may carry escaped (\u0000), and invalid UTF-8. A record that cannot be stored
// would stop its machine's shipping for good; a replaced character loses nothing the
// audit needs.
func storable(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Target names the database of dsn for people, as host:port/name: what a status or a
// log line shows, never the password or the other settings.
func Target(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "(an unreadable connection string)"
	}
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}
