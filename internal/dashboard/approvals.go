package dashboard

import (
	"context"

	"github.com/moatdev/moat/internal/approval"
)

// Approvals is the approval queue of the dashboard's user. Answers are given as the
// dashboard (approval.Approver.How "dashboard") and recorded like any other.
type Approvals interface {
	List(ctx context.Context) ([]approval.Listed, error)
	Answer(ctx context.Context, id string, state approval.State) (approval.Listed, error)
}
