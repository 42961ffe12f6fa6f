package cli

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/scan"
)

// uiRecords reads an environment's audit database for the dashboard, opening it read-only
// on first use (it exists once the daemon has imported the first record).
type uiRecords struct {
	path string
	mu   sync.Mutex
	db   *auditdb.DB
}

func (r *uiRecords) open(ctx context.Context) (*auditdb.DB, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db != nil {
		return r.db, nil
	}
	db, err := auditdb.Open(ctx, auditdb.Options{Path: r.path, ReadOnly: true, Redactor: scan.Redactor{}})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("no records yet: the audit database is created when the daemon records its first decision")
		}
		return nil, err
	}
	r.db = db
	return db, nil
}

func (r *uiRecords) Query(ctx context.Context, f auditdb.Filter, p auditdb.Page) (auditdb.Result, error) {
	db, err := r.open(ctx)
	if err != nil {
		return auditdb.Result{}, err
	}
	return db.Query(ctx, f, p)
}

func (r *uiRecords) Read(ctx context.Context, f auditdb.Filter, after uint64, fn func(audit.Record) error) (uint64, error) {
	db, err := r.open(ctx)
	if err != nil {
		return after, err
	}
	return db.Read(ctx, f, after, fn)
}

func (r *uiRecords) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.db != nil {
		r.db.Close()
		r.db = nil
	}
}
