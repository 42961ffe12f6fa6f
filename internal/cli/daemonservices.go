package cli

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/proc"
)

// maxDaemonEnvs bounds the environments one daemon serves. A client whose environment
// would be one more is refused the binding and decides in its own process: the answer is
// the same, only slower.
const maxDaemonEnvs = 16

// daemonServices are the daemon's decision services, one per environment of its clients
// (daemonenv.Service: HOME, the XDG directories, MOAT_POLICY, PATH). Each is a live Local
// that sees only that environment and records into that environment's audit log, so that
// a decision is the one the client's own process would have made, recorded where its own
// process would have recorded it.
type daemonServices struct {
	base *app
	opts decide.Options // Warn and whatever the daemon adds; Getenv and Write are per environment
	// sinks, when set, are where each environment's decisions go besides its JSONL log
	// (see daemonsinks.go); nil records to the JSONL log alone.
	sinks *daemonSinks

	// clientExe is the executable of a client process (proc.Executable).
	clientExe func(pid int) (string, error)
	// workers run the hook requests of every environment.
	workers *workers

	mu     sync.Mutex
	byKey  map[string]*daemonService
	closed bool
}

// daemonService is the service of one environment, with what it holds open.
type daemonService struct {
	app   *app // the daemon's app, seeing only this environment
	svc   *decide.Local
	audit *auditWriter
	rec   *envRecorder // nil without sinks
	stop  func()
	ui    *uiState // the dashboard, started by the first moat ui
	// bundle fetches the fleet's policy bundle; nil when fleet.yaml configures none.
	bundle *bundleWatch
}

func newDaemonServices(base *app, opts decide.Options) *daemonServices {
	return &daemonServices{base: base, opts: opts, byKey: map[string]*daemonService{}, clientExe: proc.Executable, workers: newWorkers()}
}

// forEnv returns the service of env, starting it on first use.
func (s *daemonServices) forEnv(env map[string]string) (*daemonService, error) {
	if err := daemonenv.Check(env); err != nil {
		return nil, err
	}
	key := daemonenv.Key(env)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the daemon is stopping")
	}
	if ds, ok := s.byKey[key]; ok {
		return ds, nil
	}
	if len(s.byKey) >= maxDaemonEnvs {
		return nil, fmt.Errorf("the daemon serves %d environments already (HOME, XDG directories, MOAT_POLICY, PATH); this one is decided without it", maxDaemonEnvs)
	}
	ds, err := s.start(env)
	if err != nil {
		return nil, err
	}
	s.byKey[key] = ds
	return ds, nil
}

// own returns the service of the daemon's own environment.
func (s *daemonServices) own() (*daemonService, error) {
	return s.forEnv(daemonenv.Capture(s.base.env.Getenv))
}

// bind is forEnv for daemon.Options.Bind. A client that runs another moat binary than
// the daemon's is refused: the decisions protect the daemon's binary as moat's own, and
// the client's would go unprotected. It decides in its own process instead.
func (s *daemonServices) bind(p daemon.BindParams) (decide.Service, error) {
	if err := s.sameMoat(p.Executable); err != nil {
		return nil, err
	}
	ds, err := s.forEnv(p.Env)
	if err != nil {
		return nil, err
	}
	return ds.svc, nil
}

// sameMoat checks that exe, a client's moat binary, is the daemon's own ("" is a client
// that is no moat binary, which the daemon's binary's protection covers as it covers
// requests in the seeds' format).
func (s *daemonServices) sameMoat(exe string) error {
	if exe == "" {
		return nil
	}
	own, err := s.base.env.Executable()
	if err != nil {
		return fmt.Errorf("the daemon cannot tell which moat it runs: %w", err)
	}
	if !sameFile(exe, own) {
		return fmt.Errorf("the client runs %s, the daemon %s: a client of another moat decides in its own process", exe, own)
	}
	return nil
}

// sameClientMoat checks that the hook client with process pid belongs to the daemon's
// moat: its fallback runs the moat beside it, whose binary the decisions must protect.
// Where the system does not say which program a process runs (no /proc), or the client
// is gone, there is nothing to compare and the client is served.
func (s *daemonServices) sameClientMoat(pid int) error {
	if pid <= 0 {
		return nil
	}
	exe, err := s.clientExe(pid)
	if err != nil {
		return nil
	}
	return s.sameMoat(filepath.Join(filepath.Dir(exe), "moat"))
}

func (s *daemonServices) start(env map[string]string) (*daemonService, error) {
	a := *s.base
	a.env.Getenv = func(name string) string { return env[name] }
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	// Decisions are recorded through one open log per environment for the daemon's
	// life, as the MCP proxy records them: opening the log per record makes concurrent
	// requests queue on its lock file.
	w := &auditWriter{a: &a, path: d.AuditLog(), lockWait: audit.DefaultLockWait}
	opts := s.opts
	opts.Write, opts.WriteSeq = w.write, w.writeSeq
	var rec *envRecorder
	ui := &uiState{changes: dashboard.NewHub()}
	if s.sinks != nil {
		// The record goes through the environment's bus: the JSONL log, the database
		// mirroring it, metrics and notifications.
		if rec, err = s.sinks.recorder(&a, d, w, ui.changes.Notify); err != nil {
			return nil, err
		}
		opts.Write, opts.WriteSeq, opts.Reloaded = rec.write, rec.writeSeq, rec.reloaded
	}
	svc := a.liveLocal(opts)
	return &daemonService{app: &a, svc: svc, audit: w, rec: rec, stop: a.watchPolicies(svc), ui: ui, bundle: s.startBundle(&a, d, svc)}, nil
}

// problems lists the policy edits every environment's service could not use.
func (s *daemonServices) problems() []decide.Problem {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []decide.Problem
	for _, ds := range s.byKey {
		out = append(out, ds.svc.Problems()...)
	}
	slices.SortFunc(out, func(a, b decide.Problem) int {
		return cmp.Or(strings.Compare(a.Scope.Cwd, b.Scope.Cwd), strings.Compare(a.Error, b.Error))
	})
	return out
}

// count is the number of environments served.
func (s *daemonServices) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byKey)
}

// close stops watching every service's policies and closes their audit logs; no request
// may be under way.
func (s *daemonServices) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.workers.close()
	for _, ds := range s.byKey {
		ds.bundle.stop()
		ds.stop()
		ds.ui.close()
		if ds.rec != nil {
			ds.rec.close() // before the log it writes through
		}
		ds.audit.close()
	}
}
