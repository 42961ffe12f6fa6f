package cli

import (
	"context"

	"github.com/moatdev/moat/internal/decide"
)

// uiPolicies tries calls with an environment's decision service.
type uiPolicies struct {
	svc decide.Service
}

func (p *uiPolicies) Try(ctx context.Context, req decide.CallRequest) (decide.CallResult, error) {
	req.Record = false
	return p.svc.Decide(ctx, req)
}
