package cli

import (
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/decide/watch"
)

// liveLocal is the decision service of a long-lived command (check --stdin, the MCP
// proxy): each scope's policy is kept, and refreshed by a watcher when its files change.
func (a *app) liveLocal(opts decide.Options) *decide.Local {
	opts.Getenv, opts.Now, opts.Executable, opts.Live = a.env.Getenv, a.env.Now, a.env.Executable, true
	if opts.Warn == nil {
		opts.Warn = a.warn
	}
	return decide.NewLocal(a.withSessionState(opts))
}

// watchPolicies refreshes svc, a live Local, when a policy it found changes, until the
// returned stop. A watcher that cannot start is a warning: the policies then stay as
// first found, as they did before watching.
func (a *app) watchPolicies(svc *decide.Local) (stop func()) {
	w, err := watch.Start(svc, watch.Options{Warn: a.warn})
	if err != nil {
		a.warn(err.Error() + "; policy edits apply from the next start")
		return func() {}
	}
	return func() { w.Close() }
}
