package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/moatdev/moat/internal/audit/auditdb"
)

// uiSessions reads the agent sessions of an environment's audit database for the
// dashboard, through the records' read-only connection.
type uiSessions struct {
	records *uiRecords
}

// missing reports whether the database does not exist yet: no session has been recorded
// through the daemon, which is an empty list rather than a failure.
func (s *uiSessions) missing() bool {
	_, err := os.Stat(s.records.path)
	return errors.Is(err, fs.ErrNotExist)
}

func (s *uiSessions) Sessions(ctx context.Context, f auditdb.SessionFilter) ([]auditdb.Session, error) {
	if s.missing() {
		return nil, nil
	}
	db, err := s.records.open(ctx)
	if err != nil {
		return nil, err
	}
	return db.Sessions(ctx, f)
}

func (s *uiSessions) SessionRecords(ctx context.Context, agent, session string, after uint64, limit int) (auditdb.SessionPage, error) {
	if s.missing() {
		return auditdb.SessionPage{}, nil
	}
	db, err := s.records.open(ctx)
	if err != nil {
		return auditdb.SessionPage{}, err
	}
	return db.SessionRecords(ctx, agent, session, after, limit)
}
