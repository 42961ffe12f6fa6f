package cli

import (
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/ratelimit"
)

// limits are the rate-limit counters every decision service of this process keeps, in
// the state directory of the user each call is decided for: the same files whether the
// call is decided here or by the daemon, so that limits hold either way.
func (a *app) limits() decide.Limits { return ratelimit.Files{Now: a.env.Now} }
