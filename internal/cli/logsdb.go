package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/logview"
)

// openAuditDB opens the daemon's audit database in the state directory to read it; nil
// when there is none (moat has not run a daemon), so that logs reads the JSONL log. A
// database that is there but cannot be read is an error, not a reason to show another
// store's records.
func openAuditDB(ctx context.Context, stateDir string) (*auditdb.DB, error) {
	path := auditdb.Path(stateDir)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := auditdb.Open(ctx, auditdb.Options{Path: path, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	return db, nil
}

// dbStore is the daemon's audit database, read through the filter of the command (which
// logs applies again: the database only spares it the records that do not match).
type dbStore struct {
	ctx    context.Context
	db     *auditdb.DB
	filter auditdb.Filter
}

func (s dbStore) Read(fn func(audit.Record) error) error {
	_, err := s.db.Read(s.ctx, s.filter, 0, fn)
	return err
}

func (s dbStore) Follow(ctx context.Context, opts audit.FollowOptions, fn func(audit.Record) error) error {
	return s.db.Follow(ctx, s.filter, opts.History, opts.Poll, opts.Caught, fn)
}

// dbFilter is f as the database selects it.
func dbFilter(f logview.Filter) auditdb.Filter {
	return auditdb.Filter{Since: f.Since, Decisions: f.Decisions, Agents: f.Agents, Tools: f.Tools, Sessions: f.Sessions, Failures: f.Failures}
}

// dbVerifyReport is `moat logs --verify --json` for the database.
type dbVerifyReport struct {
	OK       bool     `json:"ok"`
	Records  int      `json:"records"`
	Problems []string `json:"problems,omitempty"`
}

// verifyDB checks the chain of the database's records: the report, then exit 1 when it
// is broken.
func (a *app) verifyDB(ctx context.Context, db *auditdb.DB, asJSON bool) error {
	problems, n, err := db.Verify(ctx)
	if err != nil {
		return err
	}
	rep := dbVerifyReport{OK: len(problems) == 0, Records: n}
	for _, p := range problems {
		rep.Problems = append(rep.Problems, logview.Clean(p.String()))
	}
	if asJSON {
		err = writeJSON(a.env.Stdout, rep)
	} else {
		var b strings.Builder
		for _, p := range rep.Problems {
			b.WriteString(p)
			b.WriteByte('\n')
		}
		if rep.OK {
			fmt.Fprintf(&b, "%d %s checked in the audit database: the chain is intact.\n", n, plural(n, "record", "records"))
		} else {
			fmt.Fprintf(&b, "%d %s checked in the audit database: %d %s.\n", n, plural(n, "record", "records"), len(problems), plural(len(problems), "problem", "problems"))
		}
		_, err = fmt.Fprint(a.env.Stdout, b.String())
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		return &exitCode{code: exitError}
	}
	return nil
}
