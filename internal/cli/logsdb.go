package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/logview"
)

// dbStoreFor returns the daemon's audit database in stateDir as the store `moat logs`
// reads, when there is one and it has caught up with the JSONL log at logPath (it holds
// the log's newest record: the daemon imports the log in order, so it then holds every
// record the log holds); nil otherwise, and the JSONL log is read. The two give the same
// output: the database holds the log's own lines. A database that cannot be read is
// passed over with a warning, since the log holds every record it could.
//
// Retention applies to the database alone, and rotation to the log alone: once either
// has removed records, each shows what it kept.
func (a *app) dbStoreFor(ctx context.Context, stateDir, logPath string, f logview.Filter) (*dbStore, error) {
	path := auditdb.Path(stateDir)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := auditdb.Open(ctx, auditdb.Options{Path: path, ReadOnly: true})
	if err != nil {
		a.warn(fmt.Sprintf("%v; reading the JSONL log instead", err))
		return nil, nil
	}
	if ok, err := dbCaughtUp(ctx, db, logPath); err != nil || !ok {
		// Behind the log, or the log's end cannot be read: the log is read, and says
		// what is wrong with it.
		db.Close()
		return nil, nil
	}
	return &dbStore{ctx: ctx, db: db, filter: dbFilter(f)}, nil
}

// dbStore is the daemon's audit database, read through the filter of the command (which
// logs applies again: the database only spares it the records that do not match).
type dbStore struct {
	ctx    context.Context
	db     *auditdb.DB
	filter auditdb.Filter
}

func (s *dbStore) Read(fn func(audit.Record) error) error {
	_, err := s.db.Read(s.ctx, s.filter, 0, fn)
	return err
}

func (s *dbStore) Follow(ctx context.Context, opts audit.FollowOptions, fn func(audit.Record) error) error {
	return s.db.Follow(ctx, s.filter, opts.History, opts.Poll, opts.Caught, fn)
}

func (s *dbStore) close() { s.db.Close() }

// dbFilter is f as the database selects it.
func dbFilter(f logview.Filter) auditdb.Filter {
	return auditdb.Filter{Since: f.Since, Decisions: f.Decisions, Agents: f.Agents, Tools: f.Tools, Sessions: f.Sessions, Failures: f.Failures}
}
