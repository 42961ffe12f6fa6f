package dashboard

import (
	"context"

	"github.com/moatdev/moat/internal/audit/auditdb"
)

// Records reads the audit database of the dashboard's user.
type Records interface {
	Query(ctx context.Context, f auditdb.Filter, p auditdb.Page) (auditdb.Result, error)
}
