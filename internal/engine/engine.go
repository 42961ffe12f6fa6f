// Package engine decides calls: it splits a call into units, runs self-protection and the
// policy's rules on each, and combines the answers into one decision with its trace.
package engine

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fileid"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/shell"
)

// shellWrappers converts the policy's declared wrappers for shell analysis.
func shellWrappers(p *policy.Policy) map[string]shell.Wrapper {
	if len(p.Wrappers) == 0 {
		return nil
	}
	out := make(map[string]shell.Wrapper, len(p.Wrappers))
	for _, w := range p.Wrappers {
		out[w.Name] = shell.Wrapper{ValueShort: w.ValueShort, ValueLong: w.ValueLong, Assigns: w.Assigns, Operands: w.Operands}
	}
	return out
}

// Options configure an engine.
type Options struct {
	// Host is the user and installation the calls are made on: home, temp and moat's paths.
	Host pathset.Host
	// Now is the clock used to measure latency; nil means time.Now.
	Now func() time.Time
	// Self locates the running moat binary and the PATH programs are found in, so that
	// moat under another name (a copy, a fresh build) is known as moat.
	Self selfguard.Options
	// Files is the file system written paths are resolved in, to find the protected file
	// a link or another name stands for; nil means the machine's.
	Files fileid.FS
}

// Engine evaluates calls against one compiled policy. It is immutable and safe for
// concurrent use.
type Engine struct {
	policy  *policy.Policy
	guard   *policy.Policy
	host    pathset.Host
	now     func() time.Time
	secrets *sensitive
	// instructions are the agents' instruction files, whose written text is read for
	// prompt injection.
	instructions *sensitive
	shell        shell.Env // what every shell line is analysed with, besides its cwd
	// self reads the runs of moat's own CLI in shell lines, for self-protection.
	self *selfguard.Guard
	// files is where written paths are resolved; guarded are the patterns of the files
	// self-protection guards, whose other names a write may use.
	files   fileid.FS
	guarded []string
}

// New returns an engine for p. Self-protection is compiled here and cannot be left out.
func New(p *policy.Policy, opts Options) (*Engine, error) {
	if p == nil {
		return nil, fmt.Errorf("engine: no policy")
	}
	if !p.Default.Valid() {
		return nil, fmt.Errorf("engine: policy %s has no valid default decision", p.Source)
	}
	guard, err := policy.SelfProtection(opts.Host)
	if err != nil {
		return nil, fmt.Errorf("engine: compiling self-protection: %w", err)
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	secrets, err := newSensitive(opts.Host, "$secrets", pathset.AgentCredentials)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	instructions, err := newSensitive(opts.Host, "$agent-instructions")
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	guarded, err := guardedPatterns(opts.Host)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	var protected []*sensitive
	for _, set := range guardedSets {
		m, err := newSensitive(opts.Host, set)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		protected = append(protected, m)
	}
	files := opts.Files
	if files == nil {
		files = fileid.OS{}
	}
	e := &Engine{policy: p, guard: guard, host: opts.Host, now: now, secrets: secrets, instructions: instructions, self: selfguard.New(opts.Self), files: files, guarded: guarded}
	e.shell = shell.Env{Home: opts.Host.Home, Temp: opts.Host.Temp, Sensitive: secrets.touches, SecretsWithin: secrets.within, Protected: anyTouches(protected), Wrappers: shellWrappers(p), RealPath: e.realPath}
	e.shell.Vars = maps.Clone(opts.Host.Vars) // $XDG_STATE_HOME and the like, as set
	if len(opts.Host.Temp) > 0 {
		// $TMPDIR is the user's temporary directory; when it is unset, tools use /tmp, which
		// is also a temporary directory, so reading it as the first one is right either way.
		if e.shell.Vars == nil {
			e.shell.Vars = map[string]string{}
		}
		e.shell.Vars["TMPDIR"] = opts.Host.Temp[0]
	}
	return e, nil
}

// Policy returns the policy the engine decides by.
func (e *Engine) Policy() *policy.Policy { return e.policy }

// Evaluate decides c. It never fails: a call it cannot evaluate is denied (rule
// fail-closed) with the reason, whatever the policy's fail mode, because that mode is for
// callers that could not reach the engine at all.
func (e *Engine) Evaluate(ctx context.Context, c call.Call) call.Decision {
	d, _ := e.evaluate(ctx, c, Session{}, false)
	return d
}

// Explain decides c as Evaluate does and also returns the trace of how.
func (e *Engine) Explain(ctx context.Context, c call.Call) (call.Decision, *Trace) {
	return e.evaluate(ctx, c, Session{}, true)
}

// EvaluateIn decides c as Evaluate does, in session s: with what its earlier calls left
// behind. With explain, it also returns the trace of how.
func (e *Engine) EvaluateIn(ctx context.Context, c call.Call, s Session, explain bool) (call.Decision, *Trace) {
	return e.evaluate(ctx, c, s, explain)
}

func (e *Engine) evaluate(ctx context.Context, c call.Call, sess Session, explain bool) (call.Decision, *Trace) {
	start := e.now()
	var tr *Trace
	if explain {
		tr = &Trace{Call: c.Describe(), Policy: e.policy.Source}
		for _, l := range e.policy.Layers {
			tr.Layers = append(tr.Layers, LayerTrace{Kind: l.Kind, Source: l.Policy.Source})
		}
	}
	settle := withRefunds(&sess)
	d := e.decideSafely(ctx, &c, &sess, tr)
	settle(d)
	d.Latency = e.now().Sub(start)
	if tr != nil {
		tr.Decision = d
	}
	return d, tr
}

// decideSafely is decide, with a failure of moat itself (a panic in analysis or matching,
// which input must never cause but a bug could) turned into a denial that says so: moat's
// own failure is never an allow.
func (e *Engine) decideSafely(ctx context.Context, c *call.Call, sess *Session, tr *Trace) (d call.Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = failClosed(fmt.Sprintf("internal error while evaluating: %v", r))
		}
	}()
	return e.decide(ctx, c, sess, tr)
}

func (e *Engine) decide(ctx context.Context, c *call.Call, sess *Session, tr *Trace) call.Decision {
	if err := ctx.Err(); err != nil {
		return failClosed(fmt.Sprintf("evaluation cancelled: %v", err))
	}
	if err := validate(c); err != nil {
		return failClosed(fmt.Sprintf("invalid call: %v", err))
	}
	units := e.units(c, sess.History)
	ids := e.identities(c) // shared by the units: each protected file is read at most once
	var (
		best      call.Decision
		bestLabel unitLabel
		findings  []call.Finding
	)
	for i := range units {
		u := &units[i]
		var ut *UnitTrace
		if tr != nil {
			tr.Units = append(tr.Units, UnitTrace{Label: u.label.String(), Accesses: u.subject.Accesses, Opaque: u.subject.Opaque, Findings: u.subject.Findings})
			ut = &tr.Units[len(tr.Units)-1]
		}
		d := e.decideUnit(&u.subject, sess, ut, ids)
		if u.shown {
			d = shownDecision(d)
		}
		findings = appendNew(findings, u.subject.Findings)
		if !best.Verdict.Valid() || d.Verdict > best.Verdict {
			best, bestLabel = d, u.label
		}
	}
	if len(units) > 1 && best.Reason != "" {
		best.Reason = bestLabel.String() + ": " + best.Reason
	}
	best.Findings = findings
	return best
}

// decideUnit runs self-protection, then the policy's rules in order, then the default.
// When self-protection denies, the unit is denied whatever the policy says; the policy is
// still consulted so that a deny of its own (rm -rf ~: "this would delete your home
// directory") can give the more specific reason.
func (e *Engine) decideUnit(s *policy.Subject, sess *Session, ut *UnitTrace, ids *fileid.Resolver) call.Decision {
	var guarded *call.Decision
	if reads := e.linkedReads(s.Accesses, ids); len(reads) > len(s.Accesses) {
		s.Accesses = reads
	}
	gs := s
	linked, unknown := withIdentities(slices.Clip(s.Accesses), ids)
	if len(linked) > len(s.Accesses) {
		g := *s
		g.Accesses = linked
		gs = &g
	}
	if len(unknown) > 0 {
		// Not knowing what a path is never lets a write through: the unit is opaque.
		s.Findings = appendNew(slices.Clip(s.Findings), unknown)
		s.Opaque = true
	}
	if links := e.protectedLinks(s, ids); len(links) > 0 {
		s.Findings = appendNew(slices.Clip(s.Findings), links)
	}
	for _, r := range e.guard.Candidates(s.Call.Class) {
		if matched(r, gs, ut) {
			d := decisionOf(r)
			guarded = &d
			break
		}
	}
	d := e.decideByPolicy(s, sess, ut)
	if guarded != nil && d.Verdict != call.Deny {
		d = *guarded
	}
	if ut != nil {
		ut.Verdict, ut.Rule = d.Verdict, d.Rule
	}
	return d
}

func (e *Engine) decideByPolicy(s *policy.Subject, sess *Session, ut *UnitTrace) call.Decision {
	if len(e.policy.Layers) > 0 {
		return e.decideByLayers(s, sess, ut)
	}
	if d, ok := e.firstMatch(e.policy, s, sess, ut); ok {
		return d
	}
	return defaultOf(e.policy)
}

// firstMatch is the decision of p's first rule that matches s, if one does.
func (e *Engine) firstMatch(p *policy.Policy, s *policy.Subject, sess *Session, ut *UnitTrace) (call.Decision, bool) {
	candidates := p.Candidates(s.Call.Class)
	if ut != nil {
		ut.Skipped += len(p.Rules) - len(candidates)
	}
	for _, r := range candidates {
		if !matched(r, s, ut) {
			continue
		}
		if r.Limit == nil {
			return decisionOf(r), true
		}
		// A limited rule applies only to the calls over its limit; the others go on.
		if over, note := e.overLimit(r, s, sess, ut); over {
			return withLimitNote(decisionOf(r), note), true
		}
	}
	return call.Decision{}, false
}

// defaultOf is the decision of p's default, for a call no rule matched.
func defaultOf(p *policy.Policy) call.Decision {
	d := call.Decision{Verdict: p.Default, Rule: call.RuleDefault}
	if d.Verdict != call.Allow {
		d.Reason = fmt.Sprintf("no rule matched; the policy's default is %s", d.Verdict)
	}
	return d
}

func matched(r *policy.Rule, s *policy.Subject, ut *UnitTrace) bool {
	if ut == nil {
		return r.Match(s)
	}
	ok, checks := r.Explain(s)
	ut.Tried = append(ut.Tried, RuleTrace{ID: r.ID, Origin: r.Origin, Line: r.Line, Matched: ok, Checks: checks})
	return ok
}

func decisionOf(r *policy.Rule) call.Decision {
	reason := r.Reason
	if reason == "" && !r.Decision.Permissive() {
		reason = r.Description
		if reason == "" {
			reason = "matched rule " + r.ID
		}
	}
	return call.Decision{Verdict: r.Decision, Rule: r.ID, Reason: reason}
}

func failClosed(reason string) call.Decision {
	return call.Decision{Verdict: call.Deny, Rule: call.RuleFailClosed, Reason: reason}
}

func validate(c *call.Call) error {
	if _, ok := call.ParseClass(string(c.Class)); !ok {
		return fmt.Errorf("unknown class %q", c.Class)
	}
	if !filepath.IsAbs(c.Cwd) {
		return fmt.Errorf("the working directory %q is not an absolute path", c.Cwd)
	}
	if c.Class == call.MCP && c.MCP == nil {
		return fmt.Errorf("an mcp call without a server and tool")
	}
	return nil
}

// appendNew appends the findings of add that are not already in fs.
func appendNew(fs, add []call.Finding) []call.Finding {
	for _, f := range add {
		dup := false
		for _, g := range fs {
			if g == f {
				dup = true
				break
			}
		}
		if !dup {
			fs = append(fs, f)
		}
	}
	return fs
}

// workspaceOf returns the roots $workspace stands for in c.
func (e *Engine) workspaceOf(c *call.Call) []string {
	if len(e.policy.Workspace) > 0 {
		return e.policy.Workspace
	}
	if filepath.IsAbs(c.Project) {
		return []string{filepath.Clean(c.Project)}
	}
	return []string{filepath.Clean(c.Cwd)}
}

// resolvePath makes a path from a call's arguments absolute and clean: `~` is the home
// directory, and so is $HOME or ${HOME} written before a path (a tool that expands
// variables reads there; one that does not reads nothing), relative paths are taken from
// the call's working directory, and a path through /proc is the file it leads to
// (/proc/self/root/home/u/.aws/credentials).
func (e *Engine) resolvePath(p, cwd string) string {
	for _, home := range []string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, home); ok && (rest == "" || rest[0] == '/') {
			p = "~" + rest
		}
	}
	if w, ok := call.WindowsPath(p); ok {
		return w
	}
	switch {
	case p == "~":
		return e.host.Home
	case strings.HasPrefix(p, "~/"):
		p = e.host.Home + "/" + p[2:]
	case !filepath.IsAbs(p):
		p = cwd + "/" + p
	}
	return call.ThroughProc(p, cwd)
}

// anyTouches reports whether an access may reach a file of any of the sets.
func anyTouches(sets []*sensitive) func(call.Access) bool {
	return func(acc call.Access) bool {
		for _, s := range sets {
			if s.touches(acc) {
				return true
			}
		}
		return false
	}
}
