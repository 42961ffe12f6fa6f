package dashboard

import (
	"context"

	"github.com/moatdev/moat/internal/decide"
)

// Policies are the policies in force and the decision service that tries a call.
type Policies interface {
	// Try decides req without running or recording it.
	Try(ctx context.Context, req decide.CallRequest) (decide.CallResult, error)
}
