package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/scan"
)

// envDaemon, set to "off", makes an entry point decide in its own process even when the
// daemon runs (for debugging: the decisions are the same either way).
const envDaemon = "MOAT_DAEMON"

// Bounds on the daemon's answers. A daemon that does not answer within them is taken for
// gone, and the process decides alone from then on: a hung daemon must not hold a
// guarded command or an MCP call until the hook deadline (2s by default) refuses it.
const (
	daemonDialWait    = 500 * time.Millisecond
	daemonRequestWait = time.Second
)

// maxKnownScopes bounds the policy keys whose scope a daemonOrLocal remembers, to look
// them up again in its own process; a long-lived process sees a new key per policy edit.
const maxKnownScopes = 64

// decisionServiceOptions say which decision service an entry point gets.
type decisionServiceOptions struct {
	// noDaemon decides in this process whether or not the daemon runs (--no-daemon).
	noDaemon bool
	// live makes the local service keep and watch its policies, for a long-lived
	// process (check --stdin, the MCP proxy); a short-lived one finds them once.
	live bool
	// local configures the local service (its Write, for a proxy that keeps its log open).
	local decide.Options
}

// decisionService is the decision service of an entry point other than the hook: the
// daemon's, when its socket is there and binds to this process's environment, else this
// process's own. Both decide exactly alike (the daemon's service for the environment is a
// Local seeing the same variables); only the time differs. Close releases it.
//
// Even a process that decides once gains: the daemon has the policy compiled, which this
// process would load and compile first. Measured side by side (100-150 pairs on a
// shared 2-core machine), one `moat check --stdin` request took 7.4 ms at best and
// 18.5 ms in the median with the daemon, 11.9 and 30.1 ms without (median paired ratio
// 0.62); `moat run -- /bin/true` 8.6 and 24.5 ms against 13.2 and 42.0 (0.63). So every
// entry point here asks the daemon when it runs; the hook has its thin client.
func (a *app) decisionService(ctx context.Context, o decisionServiceOptions) *daemonOrLocal {
	s := &daemonOrLocal{warn: a.warn, scopes: map[string]decide.Scope{}, warned: map[string]bool{}}
	s.newLocal = func() (decide.Service, func()) {
		opts := o.local
		if opts.Warn == nil {
			// A live service finds its policies again on each change, and would warn
			// again of the same skipped policy each time.
			opts.Warn = s.warnOnce
		}
		if !o.live {
			opts.Getenv, opts.Now, opts.Executable = a.env.Getenv, a.env.Now, a.env.Executable
			return decide.NewLocal(a.withSessionState(opts)), func() {}
		}
		l := a.liveLocal(opts)
		return l, a.watchPolicies(l)
	}
	if !o.noDaemon && a.env.Getenv(envDaemon) != "off" {
		s.remote = a.dialDaemon(ctx)
	}
	return s
}

// dialDaemon connects to the user's daemon and binds the connection to this process's
// environment; nil when no daemon runs or it refuses the binding. The connection is
// the first the Remote uses: a short-lived process dials once.
func (a *app) dialDaemon(ctx context.Context) *decide.Remote {
	paths, err := a.daemonPaths(false)
	if err != nil {
		return nil
	}
	// No socket, no daemon: the common case costs one stat.
	if _, err := os.Lstat(paths.Socket); err != nil {
		return nil
	}
	bp := daemon.BindParams{Env: daemonenv.Capture(a.env.Getenv)}
	if exe, err := a.env.Executable(); err == nil {
		bp.Executable = exe
	}
	dial := daemon.DialBound(paths.Socket, bp)
	dctx, cancel := context.WithTimeout(ctx, daemonDialWait)
	defer cancel()
	first, err := dial(dctx)
	if err != nil {
		return nil
	}
	var once sync.Mutex
	return decide.NewRemote(func(ctx context.Context) (net.Conn, error) {
		once.Lock()
		c := first
		first = nil
		once.Unlock()
		if c != nil {
			return c, nil
		}
		return dial(ctx)
	})
}

// daemonOrLocal is a decide.Service that asks the daemon while it answers, and this
// process's own service otherwise. A request the daemon fails to answer (it was killed,
// restarted, or hangs) is answered by the local service, and so is every request after
// it: a failure of transport is never the caller's fail mode while this process can
// decide. An error the daemon answers for a decision (a policy it cannot load) is
// checked by the local service too, which answers that request; an error it answers for
// a record is the record's, not retried (the record would be written twice).
//
// Policy keys are per service: a key the daemon gave is unknown to the local service
// (ErrUnknownPolicy) until it has looked the same scope up, which daemonOrLocal does
// for the caller, from the scope it remembers for each key.
type daemonOrLocal struct {
	remote *decide.Remote // nil: no daemon
	down   atomic.Bool    // the daemon failed in transport: ask it no more
	warn   func(string)

	newLocal  func() (decide.Service, func())
	localOnce sync.Once
	local     decide.Service
	stopLocal func()

	mu     sync.Mutex
	scopes map[string]decide.Scope // by policy key, from either service
	warned map[string]bool         // the skipped policies warned of, by warning
}

var _ decide.Service = (*daemonOrLocal)(nil)

// usesDaemon reports whether requests go to the daemon.
func (s *daemonOrLocal) usesDaemon() bool { return s.remote != nil && !s.down.Load() }

// Close closes the connections to the daemon and stops watching the local policies.
func (s *daemonOrLocal) Close() {
	if s.remote != nil {
		s.remote.Close()
	}
	s.localOnce.Do(func() {}) // no local service is started after Close
	if s.stopLocal != nil {
		s.stopLocal()
	}
}

func (s *daemonOrLocal) localService() decide.Service {
	s.localOnce.Do(func() { s.local, s.stopLocal = s.newLocal() })
	if s.local == nil {
		return closedService{}
	}
	return s.local
}

// remember keeps the scope a key was looked up with.
func (s *daemonOrLocal) remember(key string, sc decide.Scope) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.scopes[key]; !ok && len(s.scopes) >= maxKnownScopes {
		for k := range s.scopes {
			delete(s.scopes, k)
			break
		}
	}
	s.scopes[key] = sc
}

// localKey is the local service's key for the policy the daemon named key: the scope
// key was looked up with, looked up here.
func (s *daemonOrLocal) localKey(ctx context.Context, key string) (string, bool) {
	s.mu.Lock()
	sc, ok := s.scopes[key]
	s.mu.Unlock()
	if !ok {
		return "", false
	}
	p, err := s.localService().Lookup(ctx, sc)
	if err != nil {
		return "", false
	}
	s.remember(p.Key, sc)
	return p.Key, true
}

// viaDaemon runs ask against the daemon, when it is used, within daemonRequestWait. done
// says the result is the answer; otherwise the local service answers. answered says
// whether an error the daemon answered is final (records) or checked locally (decisions);
// a key the daemon does not know (it restarted) is always looked up again locally.
func viaDaemon[T any](ctx context.Context, s *daemonOrLocal, answeredFinal bool, ask func(context.Context, decide.Service) (T, error)) (res T, err error, done bool) {
	if !s.usesDaemon() {
		return res, nil, false
	}
	rctx, cancel := context.WithTimeout(ctx, daemonRequestWait)
	res, err = ask(rctx, s.remote)
	cancel()
	switch {
	case err == nil:
		return res, nil, true
	case ctx.Err() != nil:
		// The caller gave up: nobody waits for another service's answer.
		return res, err, true
	case errors.Is(err, decide.ErrUnknownPolicy):
		// A daemon restarted since the lookup: the local service looks the scope up again.
		var zero T
		return zero, nil, false
	case decide.Answered(err):
		return res, err, answeredFinal
	}
	if s.down.CompareAndSwap(false, true) {
		s.warn(fmt.Sprintf("the daemon did not answer (%s); deciding in this process from now on", scan.Redact(err.Error())))
	}
	var zero T
	return zero, nil, false
}

// onLocal runs ask against the local service under key, and once more under the local
// key of the same scope when key is one only the daemon knew.
func onLocal[T any](ctx context.Context, s *daemonOrLocal, key string, ask func(decide.Service, string) (T, error)) (T, error) {
	l := s.localService()
	res, err := ask(l, key)
	if errors.Is(err, decide.ErrUnknownPolicy) {
		if k, ok := s.localKey(ctx, key); ok {
			return ask(l, k)
		}
	}
	return res, err
}

// Lookup finds the policy for a scope.
func (s *daemonOrLocal) Lookup(ctx context.Context, sc decide.Scope) (decide.Policy, error) {
	p, err, done := viaDaemon(ctx, s, false, func(ctx context.Context, r decide.Service) (decide.Policy, error) {
		return r.Lookup(ctx, sc)
	})
	if !done {
		p, err = s.localService().Lookup(ctx, sc)
	} else if err == nil {
		// The daemon's service warns in the daemon's log; this process's user is told
		// here, once, of the project policies it passed over, as a local service would.
		s.warnSkipped(p.Skipped)
	}
	if err == nil {
		s.remember(p.Key, sc)
	}
	return p, err
}

// warnSkipped warns of each project policy the daemon passed over, once per process.
func (s *daemonOrLocal) warnSkipped(skipped []source.Skipped) {
	for _, sk := range skipped {
		s.warnOnce(sk.Why)
	}
}

// warnOnce warns of msg unless this process did already.
func (s *daemonOrLocal) warnOnce(msg string) {
	s.mu.Lock()
	seen := s.warned[msg]
	if !seen && len(s.warned) < maxKnownScopes {
		s.warned[msg] = true
	}
	s.mu.Unlock()
	if !seen {
		s.warn(msg)
	}
}

// Decide decides the calls of one event.
func (s *daemonOrLocal) Decide(ctx context.Context, req decide.CallRequest) (decide.CallResult, error) {
	if res, err, done := viaDaemon(ctx, s, false, func(ctx context.Context, r decide.Service) (decide.CallResult, error) {
		return r.Decide(ctx, req)
	}); done {
		return res, err
	}
	return onLocal(ctx, s, req.Policy, func(l decide.Service, key string) (decide.CallResult, error) {
		req.Policy = key
		return l.Decide(ctx, req)
	})
}

// DecideOutput reads a tool's output.
func (s *daemonOrLocal) DecideOutput(ctx context.Context, req decide.OutputRequest) (decide.OutputResult, error) {
	if res, err, done := viaDaemon(ctx, s, false, func(ctx context.Context, r decide.Service) (decide.OutputResult, error) {
		return r.DecideOutput(ctx, req)
	}); done {
		return res, err
	}
	return onLocal(ctx, s, req.Policy, func(l decide.Service, key string) (decide.OutputResult, error) {
		req.Policy = key
		return l.DecideOutput(ctx, req)
	})
}

// DecidePrompt reads a prompt.
func (s *daemonOrLocal) DecidePrompt(ctx context.Context, req decide.PromptRequest) (decide.Outcome, error) {
	if res, err, done := viaDaemon(ctx, s, false, func(ctx context.Context, r decide.Service) (decide.Outcome, error) {
		return r.DecidePrompt(ctx, req)
	}); done {
		return res, err
	}
	return s.localService().DecidePrompt(ctx, req)
}

// Record records a decision made outside Decide.
func (s *daemonOrLocal) Record(ctx context.Context, req decide.RecordRequest) error {
	if _, err, done := viaDaemon(ctx, s, true, func(ctx context.Context, r decide.Service) (struct{}, error) {
		return struct{}{}, r.Record(ctx, req)
	}); done {
		return err
	}
	_, err := onLocal(ctx, s, req.Policy, func(l decide.Service, key string) (struct{}, error) {
		req.Policy = key
		return struct{}{}, l.Record(ctx, req)
	})
	return err
}

// RecordFailure records a decision that could not be made.
func (s *daemonOrLocal) RecordFailure(ctx context.Context, f decide.Failure) error {
	if _, err, done := viaDaemon(ctx, s, true, func(ctx context.Context, r decide.Service) (struct{}, error) {
		return struct{}{}, r.RecordFailure(ctx, f)
	}); done {
		return err
	}
	return s.localService().RecordFailure(ctx, f)
}

// closedService answers every request of a daemonOrLocal used after Close.
type closedService struct{}

var errClosedService = errors.New("the decision service was closed")

func (closedService) Lookup(context.Context, decide.Scope) (decide.Policy, error) {
	return decide.Policy{}, errClosedService
}

func (closedService) Decide(context.Context, decide.CallRequest) (decide.CallResult, error) {
	return decide.CallResult{}, errClosedService
}

func (closedService) DecideOutput(context.Context, decide.OutputRequest) (decide.OutputResult, error) {
	return decide.OutputResult{}, errClosedService
}

func (closedService) DecidePrompt(context.Context, decide.PromptRequest) (decide.Outcome, error) {
	return decide.Outcome{}, errClosedService
}

func (closedService) Record(context.Context, decide.RecordRequest) error { return errClosedService }

func (closedService) RecordFailure(context.Context, decide.Failure) error { return errClosedService }
