package decide

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/engine"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/trust"
	"github.com/moatdev/moat/internal/userservice"
)

// Options are what a Local takes from its process.
type Options struct {
	Getenv func(string) string
	Now    func() time.Time
	// Executable returns the path of the running moat binary, which self-protection
	// guards; nil or an error leaves it out.
	Executable func() (string, error)
	// Warn receives warnings about policy sources passed over (an untrusted project
	// policy); nil drops them.
	Warn func(string)
	// Write records a decision; nil appends it to the user's audit log, opening the log
	// for each record. Callers that record many (the MCP proxy) keep one writer.
	Write func(audit.Record) error
	// WriteSeq, when set, is Write that also returns the number the record got in the
	// log (audit.Log.AppendSeq; 0 when it has none yet), by which later decisions name
	// it. It is used in place of Write.
	WriteSeq func(audit.Record) (uint64, error)
	// History, when set, keeps what each session's recorded calls left behind, and
	// every call of a session is decided with it (cross-call correlation, history.go).
	History History
	// Live makes Lookup keep each scope's policy, and keep the last good one when an edit
	// cannot be used, until Refresh finds it again: for a long-lived process whose
	// watcher (package decide/watch) calls Refresh when a policy input changes. Without
	// it, every Lookup finds the policy afresh.
	Live bool
	// Reloaded, with Live, is told of each policy Refresh compiled again after a change,
	// with the error when the change was refused (the last good policy then stays in
	// force): for the daemon's event bus and metrics. It is called outside any lock.
	Reloaded func(policy string, err error)
	// Approvals is moat's approval queue: with it, an ask that cannot reach the user
	// waits there for the user's answer, and an approved call goes ahead (see
	// settleApproval). Nil leaves every ask to the entry point, as before approvals.
	Approvals Approvals
	// CacheSize bounds the compiled policies kept: 0 is DefaultCacheSize for a live
	// Local and no bound otherwise (a short-lived process compiles few).
	CacheSize int
	// Limits keeps the counters of rules with a limit (see limits.go); nil means none,
	// and every call is under every limit.
	Limits Limits
	// ManagedDir, when set, replaces the system's managed directory (dirs.ManagedDir):
	// for tests, which put a managed policy in a temporary directory. It is never read
	// from the environment, which an agent could set.
	ManagedDir string
	// VerifyManaged checks the signature and serial of a managed policy whose key is
	// pinned; nil refuses such a policy, and every decision with it.
	VerifyManaged source.VerifyFunc
}

// Local is the Service in the caller's process. It compiles each policy once per source
// and content (keeping at most Options.CacheSize), and is safe for concurrent use.
type Local struct {
	opts Options

	mu       sync.Mutex
	compiled *lru[string, *Compiled] // by Key
	live     *liveScopes             // with Options.Live

	// globs keeps the path patterns compiled for this user's hosts, shared by the
	// policy, self-protection and the engine of every policy compiled (see Host).
	globs *glob.Memo
}

var _ Service = (*Local)(nil)

// NewLocal returns a Local deciding for the user and process that opts describe.
func NewLocal(opts Options) *Local {
	size := opts.CacheSize
	if size == 0 && opts.Live {
		size = DefaultCacheSize
	}
	l := &Local{opts: opts, compiled: newLRU[string, *Compiled](size), globs: glob.NewMemo()}
	if opts.Live {
		l.live = newLiveScopes()
	}
	return l
}

// Compiled is a policy compiled for this user and host, ready to decide with.
type Compiled struct {
	Source source.Source
	Policy *policy.Policy
	Dirs   dirs.Dirs
	// Overrides are the settings of the user's policies that the managed policy locks
	// (see policy.Combine), for validate and doctor to report.
	Overrides []policy.Override
	key       string
	engine    *engine.Engine
	// included is the digest of the files the policy's extends read, as compiled.
	included string
}

// Key names the compiled policy in requests.
func (c *Compiled) Key() string { return c.key }

// RunTests runs the policy's own tests, with dir as the directory their paths are
// relative to.
func (c *Compiled) RunTests(ctx context.Context, dir string) []TestResult {
	return c.Run(ctx, c.Policy.Tests, dir)
}

// Run runs tests that are not the policy's own (a pack's) against it, with dir as the
// directory their paths are relative to.
func (c *Compiled) Run(ctx context.Context, tests []policy.Test, dir string) []TestResult {
	return c.engine.RunTests(ctx, tests, dir)
}

// Dirs are the user's directories, from the environment.
func (l *Local) Dirs() (dirs.Dirs, error) {
	d, err := dirs.FromEnv(l.opts.Getenv)
	if err == nil && l.opts.ManagedDir != "" {
		d.Managed = l.opts.ManagedDir
	}
	return d, err
}

// Find finds the policy source for a scope: the flag, $MOAT_POLICY, the trusted project
// policy, the user's, or the embedded one; with the managed policy above it and the
// user's below a project policy, which decide with it (see source.FindLayers).
func (l *Local) Find(s Scope) (source.Source, dirs.Dirs, error) {
	d, err := l.Dirs()
	if err != nil {
		return source.Source{}, d, err
	}
	warn := l.opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	src, err := source.FindLayers(source.Options{
		Flag: s.Flag, Env: l.opts.Getenv(source.EnvVar), Cwd: s.Cwd, Project: s.Project, Dirs: d,
		Trust: trust.Open(d.TrustStore()),
		Warn:  warn, VerifyManaged: l.opts.VerifyManaged,
	})
	return src, d, err
}

// Load finds and compiles the policy for a scope.
func (l *Local) Load(s Scope) (*Compiled, error) {
	src, d, err := l.Find(s)
	if err != nil {
		return nil, err
	}
	return l.Compile(src, d)
}

// CompileFile reads and compiles one named policy file for this user.
func (l *Local) CompileFile(file string) (*Compiled, error) {
	d, err := l.Dirs()
	if err != nil {
		return nil, err
	}
	src, err := source.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return l.Compile(src, d)
}

// Compile compiles a policy source for the user whose directories are d, or returns the
// one compiled before from the same source and content.
func (l *Local) Compile(src source.Source, d dirs.Dirs) (*Compiled, error) {
	key := sourceKey(src, d)
	l.mu.Lock()
	c, ok := l.compiled.get(key)
	l.mu.Unlock()
	if ok && c.includesUnchanged() {
		return c, nil
	}
	host := l.Host(d, src.Path)
	p, overrides, err := l.loadLayers(src, d, host)
	if err != nil {
		return nil, err
	}
	e, err := engine.New(p, engine.Options{Host: withIncluded(host, p.Included), Now: l.opts.Now, Self: l.self()})
	if err != nil {
		return nil, err
	}
	c = &Compiled{Source: src, Policy: p, Dirs: d, Overrides: overrides, key: key, engine: e, included: digestFiles(p.Included)}
	l.mu.Lock()
	defer l.mu.Unlock()
	if prev, ok := l.compiled.get(key); ok && prev.included == c.included {
		return prev, nil
	}
	l.compiled.put(key, c)
	return c, nil
}

// sourceKey names a policy by everything its compiled form depends on: where it came
// from, its content, and the user's directories (moat's own paths, which it protects).
func sourceKey(src source.Source, d dirs.Dirs) string {
	h := sha256.New()
	parts := append([]string{string(src.Kind), src.Path, src.Name, d.Home, d.Config, d.State}, d.Temp...)
	parts = append(append(parts, "runtime"), d.Runtime...)
	for _, s := range parts {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Write(src.Data)
	// The layers deciding with it (managed, the user's below a project's) are part of it;
	// a source without them hashes as it always did.
	extra := src.Also
	if src.Managed != nil {
		extra = append([]source.Source{*src.Managed}, extra...)
	}
	for _, layer := range extra {
		fmt.Fprintf(h, "\x00layer\x00%s\x00%s\x00%s\x00%d\x00%d\x00", layer.Kind, layer.Path, layer.Name, layer.Serial, len(layer.Data))
		h.Write(layer.Data)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Host describes this user and installation to the policy: home, temp and moat's own
// paths (which self-protection guards), including the policy file in use.
func (l *Local) Host(d dirs.Dirs, policyPath string) pathset.Host {
	h := pathset.Host{
		Globs: l.globs,
		Home:  d.Home,
		Temp:  d.Temp,
		Vars:  d.Vars,
		Moat: []string{
			filepath.Join(d.Config, "**"),
			filepath.Join(d.State, "**"),
			"/**/" + source.ProjectFile,
		},
	}
	// The daemon's socket and token live there: a process that could replace them could
	// answer for moat.
	for _, r := range d.Runtime {
		h.Moat = append(h.Moat, filepath.Join(r, "**"))
	}
	// The daemon's service files choose the program that answers on that socket after
	// the next login.
	h.Moat = append(h.Moat, userservice.Protected(d)...)
	if policyPath != "" {
		h.Moat = append(h.Moat, policyPath)
	}
	if d.Managed != "" {
		h.Moat = append(h.Moat, filepath.Join(d.Managed, "**"))
	}
	if exe, ok := l.executable(); ok {
		// The hook client beside moat is what the hooks run once setup found it: it is
		// guarded as moat is, and where it is missing too, so that none can be planted.
		h.Moat = append(h.Moat, exe, selfguard.ClientPath(exe))
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			h.Moat = append(h.Moat, real, selfguard.ClientPath(real))
		}
	}
	return h
}

// self tells the guard of moat's own commands which binary is moat, and where the
// agent's shell finds programs named without a slash: the PATH moat was started with,
// which the agent passed on to its hooks.
func (l *Local) self() selfguard.Options {
	o := selfguard.Options{Path: l.opts.Getenv("PATH")}
	if exe, ok := l.executable(); ok {
		o.Binary = exe
	}
	return o
}

func (l *Local) executable() (string, bool) {
	if l.opts.Executable == nil {
		return "", false
	}
	exe, err := l.opts.Executable()
	return exe, err == nil && filepath.IsAbs(exe)
}

// Lookup finds and compiles the policy for a scope.
func (l *Local) Lookup(_ context.Context, s Scope) (Policy, error) {
	if l.live != nil {
		return l.lookupLive(s)
	}
	c, err := l.Load(s)
	if err != nil {
		return Policy{}, err
	}
	return c.Info(), nil
}

// Info is what an entry point knows of the policy.
func (c *Compiled) Info() Policy {
	return Policy{
		Key: c.key, Name: c.Source.Name, Path: c.Source.Path,
		Fail: c.Policy.Fail, Hooks: c.Policy.Hooks, Output: c.Policy.Output, ChangedTools: c.Policy.MCP.ChangedTools,
		ApprovalQueue: c.Policy.Approvals.Queue,
		Skipped:       c.Source.Skipped,
	}
}

// ErrUnknownPolicy is returned for a request naming a policy this service has not
// compiled (see Lookup).
var ErrUnknownPolicy = errors.New("no such policy: look it up first")

func (l *Local) byKey(key string) (*Compiled, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.compiled.get(key)
	if !ok && l.live != nil {
		c, ok = l.live.inForce(key)
	}
	if !ok {
		return nil, fmt.Errorf("deciding under policy %q: %w", key, ErrUnknownPolicy)
	}
	return c, nil
}

// Decide decides the calls of one event.
func (l *Local) Decide(ctx context.Context, req CallRequest) (CallResult, error) {
	c, err := l.byKey(req.Policy)
	if err != nil {
		return CallResult{}, err
	}
	if len(req.Calls) == 0 {
		return CallResult{}, errors.New("deciding an event: no call to decide")
	}
	ReportProgress(ctx, StageDeciding)
	res := CallResult{Calls: make([]call.Call, len(req.Calls)), Decisions: make([]call.Decision, len(req.Calls))}
	strictest := 0
	histories := make([]*callHistory, len(req.Calls))
	for i, cl := range req.Calls {
		if cl.Project == "" {
			cl.Project = projectOf(req.Project, cl.Cwd)
		}
		var sess engine.Session
		sess, histories[i] = l.sessionOf(cl)
		sess.Limits = l.limiter(c, req.Record)
		d, tr := c.engine.EvaluateIn(ctx, cl, sess, req.Explain && i == 0)
		if req.Explain && i == 0 {
			res.Trace = tr
		}
		res.Calls[i], res.Decisions[i] = cl, d
		if i == 0 || d.Verdict > res.Decision.Verdict {
			res.Decision, strictest = d, i
		}
	}
	if note := l.takeNotice(c.key); note != "" {
		res.Decisions[strictest].Reason = withNotice(res.Decisions[strictest].Reason, note)
		res.Decision = res.Decisions[strictest]
	}
	res.Held = l.settleApproval(c, req, &res)
	var form string
	if req.Hook != nil {
		res.Answer = hookAnswer(c.Policy.Hooks, res.Decision, *req.Hook)
		form = res.Answer.Form
	}
	if res.Held != nil {
		form = holdAnswer(res.Answer)
	}
	if req.Record {
		ReportProgress(ctx, StageRecording)
		for i, cl := range res.Calls {
			rec := c.record(req.Event, cl, res.Decisions[i])
			rec.Answer = form
			seq, err := l.writeSeq(c.Dirs, rec)
			if err != nil {
				res.NotRecorded = append(res.NotRecorded, recordError(err))
			}
			// Facts are kept once their record is written, so that they can name it.
			if err := l.remember(cl, runs(res, form), seq, histories[i]); err != nil && l.opts.Warn != nil {
				l.opts.Warn(err.Error())
			}
		}
	}
	return res, nil
}

// DecideOutput reads a tool's output under the policy's output section.
func (l *Local) DecideOutput(ctx context.Context, req OutputRequest) (OutputResult, error) {
	c, err := l.byKey(req.Policy)
	if err != nil {
		return OutputResult{}, err
	}
	tool := req.Call.Tool
	if req.Call.MCP != nil && req.Form == ToolResult {
		tool = req.Call.MCP.String()
	}
	res := OutputResult{Outcome: ScanOutput(c.Policy.Output, req.Form, tool, req.Text)}
	if res.Found && req.Record {
		ReportProgress(ctx, StageRecording)
		res.NotRecorded = recordError(l.write(c.Dirs, c.record(req.Event, req.Call, res.Decision)))
	}
	return res, nil
}

// DecidePrompt reads a prompt for Unicode smuggling; no policy is needed.
func (l *Local) DecidePrompt(_ context.Context, req PromptRequest) (Outcome, error) {
	return ScanPrompt(req.Text), nil
}

// Record records a decision made outside Decide.
func (l *Local) Record(ctx context.Context, req RecordRequest) error {
	c, err := l.byKey(req.Policy)
	if err != nil {
		return err
	}
	ReportProgress(ctx, StageRecording)
	rec := c.record(req.Event, req.Call, req.Decision)
	rec.Answer = req.Answer
	return l.write(c.Dirs, rec)
}

// RecordFailure records a decision that could not be made, as the fail mode answered.
// The event may be only partly read; whatever it said of the call is kept.
func (l *Local) RecordFailure(_ context.Context, f Failure) error {
	d, err := l.Dirs()
	if err != nil {
		return fmt.Errorf("recording the failure: %w", err)
	}
	dec := FailDecision(f.Open, f.Reason)
	c := f.Call
	err = l.write(d, audit.Record{
		Agent: string(f.Agent), Session: c.Session, Event: f.Event,
		Class: string(c.Class), Tool: c.Tool, MCP: mcpName(c), Args: c.Args, Cwd: cmp.Or(c.Cwd, f.Cwd),
		Decision: dec.Verdict, Failure: true, Rule: dec.Rule, Reason: dec.Reason, Policy: f.Policy,
	})
	if err != nil {
		return fmt.Errorf("recording decision: %w", err)
	}
	return nil
}

// record is the audit record of decision d on call cl, made for event.
func (c *Compiled) record(event string, cl call.Call, d call.Decision) audit.Record {
	return audit.Record{
		Agent: string(cl.Agent), Session: cl.Session, Event: event,
		Class: string(cl.Class), Tool: cl.Tool, MCP: mcpName(cl), Args: cl.Args, Cwd: cl.Cwd,
		Decision: d.Verdict, Rule: d.Rule, Reason: d.Reason, Findings: d.Findings,
		LatencyMS: float64(d.Latency.Nanoseconds()) / 1e6, Policy: cmp.Or(d.Policy, c.Source.Name),
		// The fail modes' rules are the decisions made when the call could not be.
		Failure:       d.Rule == call.RuleFailClosed || d.Rule == call.RuleFailOpen,
		ManagedSerial: c.managedSerial(),
	}
}

// managedSerial is the serial of the signed managed layer the policy was compiled with
// (a managed.yaml with a pinned key, or the fleet's bundle); 0 without one.
func (c *Compiled) managedSerial() int64 {
	if c.Source.Managed == nil {
		return 0
	}
	return c.Source.Managed.Serial
}

// mcpName names the MCP server and tool of c, or "" when c is no MCP call.
func mcpName(c call.Call) string {
	if c.MCP == nil {
		return ""
	}
	return c.MCP.String()
}

// write records rec through the configured writer, or appends it to the audit log of
// the user whose directories are d.
func (l *Local) write(d dirs.Dirs, rec audit.Record) error {
	_, err := l.writeSeq(d, rec)
	return err
}

// writeSeq is write, returning the number the record got (0 when it is not known).
func (l *Local) writeSeq(d dirs.Dirs, rec audit.Record) (uint64, error) {
	switch {
	case l.opts.WriteSeq != nil:
		return l.opts.WriteSeq(rec)
	case l.opts.Write != nil:
		return 0, l.opts.Write(rec)
	}
	log, err := audit.Open(audit.Options{Path: d.AuditLog(), Redactor: scan.Redactor{}, Now: l.opts.Now})
	if err != nil {
		return 0, fmt.Errorf("opening audit log: %w", err)
	}
	seq, err := log.AppendSeq(rec)
	if err != nil {
		log.Close()
		return seq, fmt.Errorf("writing audit log: %w", err)
	}
	return seq, log.Close()
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
