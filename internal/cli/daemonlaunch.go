package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/sandbox"
)

// methodSandboxLaunch is the daemon's method that sets up a launch: params are a
// launchRequest, the result a launchAnswer.
const methodSandboxLaunch = "sandbox_launch"

// launchRequest is what a launch asks the daemon: the scope its flags and environment
// give, nothing worked out yet. The daemon finds and compiles the policy, picks the
// profiles and the workspace, and carves, as the launch would in its own process.
type launchRequest struct {
	// Env is the launch's environment as daemonenv.Capture takes it: the daemon's
	// service for it finds the policy the launch's process would find.
	Env       map[string]string `json:"env"`
	Cwd       string            `json:"cwd"`
	Policy    string            `json:"policy,omitempty"`
	Profiles  []string          `json:"profiles,omitempty"`
	Program   string            `json:"program"`
	Workspace []string          `json:"workspace,omitempty"`
	// Executable is the launching moat binary, which the sandbox protects ("" unknown).
	Executable string `json:"executable,omitempty"`
	ABI        int    `json:"abi"`
}

// launchAnswer is the daemon's answer to methodSandboxLaunch: what a launch that
// enforces its plan uses, and nothing it does not (the carving's reasons and notes are
// for --dry-run's report, which never asks the daemon).
type launchAnswer struct {
	// Local, when set, says why the daemon leaves this launch to the launch's process
	// (an invalid policy, an unknown profile, …): set up there, it fails or succeeds
	// exactly as without a daemon, with the same message.
	Local string `json:"local,omitempty"`
	// Source is the policy followed: kind, path and name.
	Source launchSource `json:"source"`
	// Warnings are about the policy sources passed over, in order.
	Warnings []string `json:"warnings,omitempty"`
	// Profile is the profile made for the program, used as none was named.
	Profile   string           `json:"profile,omitempty"`
	Section   *sandbox.Section `json:"section"`
	Host      pathset.Host     `json:"host"`
	Workspace []string         `json:"workspace"`
	LogFiles  []string         `json:"log_files"`
	Carving   launchCarving    `json:"carving"`
	// Kept reports that the carving came from the daemon's cache.
	Kept bool `json:"kept"`
}

// launchSource names the policy a launch follows.
type launchSource struct {
	Kind source.Kind `json:"kind"`
	Path string      `json:"path,omitempty"`
	Name string      `json:"name"`
}

// launchCarving is a carving's rules as a launch enforces them, in two lists of one
// length (a rule's path, its rights): about a third of the rules with their reasons,
// and decoded without matching field names rule by rule.
type launchCarving struct {
	ABI     int              `json:"abi"`
	Handled sandbox.Access   `json:"handled"`
	Paths   []string         `json:"paths"`
	Access  []sandbox.Access `json:"access"`
}

func newLaunchCarving(cv *sandbox.Carving) launchCarving {
	w := launchCarving{ABI: cv.ABI, Handled: cv.Handled, Paths: make([]string, len(cv.Rules)), Access: make([]sandbox.Access, len(cv.Rules))}
	for i, r := range cv.Rules {
		w.Paths[i], w.Access[i] = r.Path, r.Access
	}
	return w
}

// carving returns the carving w carries, without reasons or notes.
func (w launchCarving) carving() (*sandbox.Carving, error) {
	if len(w.Paths) != len(w.Access) {
		return nil, fmt.Errorf("%d paths for %d rights", len(w.Paths), len(w.Access))
	}
	cv := &sandbox.Carving{ABI: w.ABI, Handled: w.Handled, Rules: make([]sandbox.Rule, len(w.Paths))}
	for i, p := range w.Paths {
		cv.Rules[i] = sandbox.Rule{Path: p, Access: w.Access[i]}
	}
	return cv, nil
}

// Bounds of a launch's exchange with the daemon: past them, the launch sets up alone.
const (
	// launchDaemonWait covers a carving the daemon makes afresh (tens of milliseconds
	// on a large home) and a policy it compiles for the first time, with room to spare.
	launchDaemonWait = 2 * time.Second
	// maxLaunchAnswer bounds the answer's line: one rule per path, thousands at most.
	maxLaunchAnswer = 32 << 20
)

// launchMethods are the daemon's methods for `moat launch`, registered by daemonRun:
// each launch is set up by the service of its environment, with one cache of carvings
// for all.
func launchMethods(services *daemonServices) map[string]daemon.Method {
	return map[string]daemon.Method{methodSandboxLaunch: sandboxLaunchMethod(services, sandbox.NewCache(sandbox.DefaultCacheSize, nil))}
}

// sandboxLaunchMethod sets launches up. Everything that shapes one comes from the
// request and the service of the request's environment, never from the daemon's own
// environment, whose HOME and XDG directories may be another shell's. The policy is
// found afresh for each launch, by the lookup the launch's process uses (a project policy
// applies only when trusted), and compiled once per content: an edit is in force from
// the next launch, without waiting for the daemon's watcher.
func sandboxLaunchMethod(services *daemonServices, cache *sandbox.Cache) daemon.Method {
	return func(_ context.Context, params json.RawMessage, p daemon.Peer) (any, error) {
		if !p.Local {
			return nil, fmt.Errorf("%s is only taken from the unix socket", methodSandboxLaunch)
		}
		var req launchRequest
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			return nil, fmt.Errorf("params of %s: %w", methodSandboxLaunch, err)
		}
		if !filepath.IsAbs(req.Cwd) || req.ABI <= 0 {
			return nil, fmt.Errorf("params of %s: a launch needs an absolute working directory and a Landlock ABI", methodSandboxLaunch)
		}
		// A launch of another moat binary (a second install, an upgrade since the daemon
		// started) is set up by its own code, as bind leaves such clients to themselves.
		if err := services.sameMoat(req.Executable); err != nil {
			return launchAnswer{Local: err.Error()}, nil
		}
		ds, err := services.forEnv(req.Env)
		if err != nil {
			return launchAnswer{Local: err.Error()}, nil
		}
		ans, err := ds.launch(req)
		if err != nil {
			return launchAnswer{Local: err.Error()}, nil
		}
		in := sandbox.CarveInput{Section: ans.Section, Host: ans.Host, Workspace: ans.Workspace, ABI: req.ABI, CreateDirs: true, LogFiles: ans.LogFiles}
		cv, kept, err := cache.Carve(in)
		if err != nil {
			return launchAnswer{Local: err.Error()}, nil
		}
		ans.Carving, ans.Kept = newLaunchCarving(cv), kept
		return ans, nil
	}
}

// launch works out what the launch req carves, as the launch's own process would.
func (ds *daemonService) launch(req launchRequest) (launchAnswer, error) {
	a := *ds.app
	// The sandbox protects the launching binary, not the daemon's.
	a.env.Executable = func() (string, error) {
		if req.Executable == "" {
			return "", errors.New("the launching binary is unknown")
		}
		return req.Executable, nil
	}
	var ans launchAnswer
	lk := launchLookup{
		compile: func(src source.Source, d dirs.Dirs) (*policy.Policy, error) {
			c, err := ds.svc.Compile(src, d)
			if err != nil {
				return nil, err
			}
			return c.Policy, nil
		},
		warn:       func(msg string) { ans.Warnings = append(ans.Warnings, msg) },
		profileFor: func(profile, _ string) { ans.Profile = profile },
	}
	o := launchOptions{policy: req.Policy, profiles: req.Profiles, workspace: req.Workspace}
	s, err := a.launchOptions(o, req.Program, req.Cwd, req.ABI, nil, lk)
	if err != nil {
		return launchAnswer{}, err
	}
	ans.Source = launchSource{Kind: s.source.Kind, Path: s.source.Path, Name: s.source.Name}
	ans.Section, ans.Host, ans.Workspace, ans.LogFiles = s.opts.Section, s.opts.Host, s.opts.Workspace, s.opts.LogFiles
	return ans, nil
}

// launchThroughDaemon asks the daemon reached by dial to set up the launch req. A
// launchAnswer with Local set is the daemon declining; an error, a daemon that could
// not be asked or answered badly.
func launchThroughDaemon(ctx context.Context, dial decide.Dial, req launchRequest) (*launchAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, launchDaemonWait)
	defer cancel()
	ans, err := callDaemon[launchAnswer](ctx, dial, methodSandboxLaunch, req, maxLaunchAnswer)
	var de *daemonError
	if errors.As(err, &de) {
		return nil, fmt.Errorf("the daemon answered: %w", err)
	}
	return ans, err
}

// setup checks a daemon's answer to the launch req of the user whose directories are d,
// and returns it as the launch's setup. An answer that fails is not used.
func (ans *launchAnswer) setup(req launchRequest, d dirs.Dirs) (*launchSetup, error) {
	cv, err := ans.Carving.carving()
	if err != nil {
		return nil, err
	}
	if err := cv.Validate(req.ABI); err != nil {
		return nil, err
	}
	if ans.Section == nil {
		return nil, errors.New("no sandbox section")
	}
	switch ans.Source.Kind {
	case source.FromEmbedded:
	case source.FromFlag, source.FromEnv, source.FromProject, source.FromUser:
		if !filepath.IsAbs(ans.Source.Path) {
			return nil, fmt.Errorf("policy %q: not an absolute path", ans.Source.Path)
		}
	default:
		return nil, fmt.Errorf("policy of unknown kind %q", ans.Source.Kind)
	}
	// Set up for this user: the same home, and the decision log this process would
	// write to (which the carving grants).
	if ans.Host.Home != d.Home {
		return nil, fmt.Errorf("set up for home %q, not %q", ans.Host.Home, d.Home)
	}
	if logs := audit.WriterFiles(d.AuditLog()); !slices.Equal(ans.LogFiles, logs) {
		return nil, fmt.Errorf("set up with the decision log %v, not %v", ans.LogFiles, logs)
	}
	if len(ans.Workspace) == 0 {
		return nil, errors.New("no workspace")
	}
	for _, w := range ans.Workspace {
		if !filepath.IsAbs(w) || filepath.Clean(w) != w {
			return nil, fmt.Errorf("workspace %q: not a clean absolute path", w)
		}
	}
	return &launchSetup{
		source: source.Source{Kind: ans.Source.Kind, Path: ans.Source.Path, Name: ans.Source.Name},
		opts: sandbox.Options{
			Section: ans.Section, Host: ans.Host, Workspace: ans.Workspace,
			ABI: req.ABI, CreateDirs: true, LogFiles: ans.LogFiles,
		},
		carving: cv,
	}, nil
}

// errNoDaemon is a daemon that does not answer: the launch is set up alone, silently.
var errNoDaemon = errors.New("no daemon")

// launchSetupByDaemon sets up a launch that will enforce its plan through the daemon,
// when one runs and takes it; nil means the launch sets itself up, exactly as without a
// daemon (silently when the daemon declines; with a warning when it fails or answers
// badly). A daemon that misbehaves costs time, never a weaker sandbox.
func (a *app) launchSetupByDaemon(o launchOptions, program, cwd string, abi int) *launchSetup {
	d, err := a.dirs()
	if err != nil {
		return nil
	}
	paths, err := daemon.Locate(d)
	if err != nil {
		return nil
	}
	req := launchRequest{
		Env: daemonenv.Capture(a.env.Getenv), Cwd: cwd, Policy: o.policy, Profiles: o.profiles,
		Program: program, Workspace: o.workspace, ABI: abi,
	}
	if a.env.Executable != nil {
		if exe, err := a.env.Executable(); err == nil {
			req.Executable = exe
		}
	}
	ans, err := launchThroughDaemon(context.Background(), decide.DialUnix(paths.Socket), req)
	if err != nil {
		if !errors.Is(err, errNoDaemon) {
			fmt.Fprintf(a.env.Stderr, "moat: warning: the daemon could not set up the sandbox (%v); setting it up here\n", err)
		}
		return nil
	}
	if ans.Local != "" {
		return nil
	}
	s, err := ans.setup(req, d)
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "moat: warning: the daemon's sandbox setup is unusable (%v); setting it up here\n", err)
		return nil
	}
	for _, w := range ans.Warnings {
		a.warn(w)
	}
	if ans.Profile != "" {
		a.usingProfile(ans.Profile, program)
	}
	return s
}
