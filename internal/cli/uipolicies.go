package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/audit/auditdb"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dashboard"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/regfile"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/trust"
)

// The projects the policy page lists: those the agents worked in within policyWindow,
// the most recent first, at most policyProjects (read from at most policyPlaces
// directories of the audit database).
const (
	policyWindow   = 30 * 24 * time.Hour
	policyProjects = 50
	policyPlaces   = 500
)

// uiPolicies shows an environment's policies and tries calls under them, for the
// dashboard.
type uiPolicies struct {
	// app sees the environment.
	app *app
	// svc is the environment's decision service: the policies it compiled, and the
	// changes it could not apply (the last good policy stays in force).
	svc *decide.Local
	// records is the environment's audit database, where the projects are found.
	records *uiRecords
}

// List describes the policy in force in each project the agents worked in lately, as moat
// status describes the one of its directory, then the user's policy and the embedded one.
func (p *uiPolicies) List(ctx context.Context) (dashboard.PolicyList, error) {
	since := p.app.env.Now().Add(-policyWindow)
	list := dashboard.PolicyList{Since: since}
	places, err := p.recentPlaces(ctx, since)
	if err != nil {
		return list, err
	}
	seen := map[string]bool{}
	for _, pl := range places {
		if !filepath.IsAbs(pl.Cwd) {
			continue // no directory a policy can be found from
		}
		root := source.RepoRoot(pl.Cwd)
		if root == "" {
			root = pl.Cwd
		}
		if seen[root] {
			continue
		}
		if len(seen) == policyProjects {
			break
		}
		seen[root] = true
		e := p.inForce(root)
		e.Scope, e.Project, e.LastUsed = dashboard.ScopeProject, root, pl.Last
		list.Entries = append(list.Entries, e)
	}
	d, err := p.app.dirs()
	if err != nil {
		return list, err
	}
	user := dashboard.PolicyEntry{Scope: dashboard.ScopeUser, Kind: string(source.FromUser), Path: d.UserPolicy()}
	if _, err := os.Lstat(user.Path); errors.Is(err, fs.ErrNotExist) {
		user.Missing = true
	} else if src, err := source.ReadFile(user.Path); err != nil {
		user.Error = err.Error()
	} else {
		src.Kind, src.Name = source.FromUser, src.Path
		user.Name = src.Name
		p.describe(&user, src, d)
	}
	if user.Error != "" {
		user.Kept = p.kept(func(pr decide.Problem) bool { return pr.InForce == user.Path })
	}
	list.Entries = append(list.Entries, user)
	embedded := dashboard.PolicyEntry{Scope: dashboard.ScopeEmbedded, Kind: string(source.FromEmbedded)}
	if src, err := source.Embedded(); err != nil {
		embedded.Error = err.Error()
	} else {
		embedded.Name = src.Name
		p.describe(&embedded, src, d)
	}
	list.Entries = append(list.Entries, embedded)
	return list, nil
}

// recentPlaces are the working directories of the records made since since; none before
// the daemon recorded anything.
func (p *uiPolicies) recentPlaces(ctx context.Context, since time.Time) ([]auditdb.Place, error) {
	if p.records == nil {
		return nil, nil
	}
	if _, err := os.Stat(p.records.path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	db, err := p.records.open(ctx)
	if err != nil {
		return nil, err
	}
	return db.RecentCwds(ctx, since, policyPlaces)
}

// inForce describes the policy the hooks apply to a call in dir: found and compiled as
// moat status finds it (statusPolicy), with the trust state of the project files.
func (p *uiPolicies) inForce(dir string) dashboard.PolicyEntry {
	var e dashboard.PolicyEntry
	src, d, err := p.app.findPolicyWarn("", dir, "", func(string) {})
	if err != nil {
		e.Error = err.Error()
	} else {
		e.Kind, e.Path, e.Name = string(src.Kind), src.Path, src.Name
		if src.Kind == source.FromProject {
			e.Trust = dashboard.TrustTrusted
		}
		for _, sk := range src.Skipped {
			status := dashboard.TrustUntrusted
			if sk.Status == trust.Changed {
				status = dashboard.TrustChanged
				if sk.Path == src.Path {
					e.Trust = dashboard.TrustChanged
				}
			}
			e.Skipped = append(e.Skipped, dashboard.SkippedPolicy{Path: sk.Path, Status: status, Why: sk.Why})
		}
		p.describe(&e, src, d)
	}
	if e.Error == "" {
		return e
	}
	e.Kept = p.kept(func(pr decide.Problem) bool {
		return pr.Scope.Flag == "" && (pr.Scope.Cwd == dir || strings.HasPrefix(pr.Scope.Cwd, dir+string(filepath.Separator)))
	})
	return e
}

// kept names the policy the environment's service keeps in force, the last good one,
// where a change it could not apply matches, "" when none does.
func (p *uiPolicies) kept(match func(decide.Problem) bool) string {
	for _, pr := range p.svc.Problems() {
		if match(pr) {
			return pr.InForce
		}
	}
	return ""
}

// describe compiles src and says what it holds, or why it does not compile.
func (p *uiPolicies) describe(e *dashboard.PolicyEntry, src source.Source, d dirs.Dirs) {
	c, err := p.svc.Compile(src, d)
	if err != nil {
		e.Error = err.Error()
		return
	}
	e.Packs = slices.Clone(c.Policy.Packs)
	for _, layer := range src.Layers() {
		if layer.Name != src.Name {
			e.DecidesWith = append(e.DecidesWith, cmp.Or(layer.Path, layer.Name))
		}
	}
	// The compiled policy holds every layer's rules: count this file's and its packs'.
	for _, r := range c.Policy.Rules {
		switch {
		case strings.HasPrefix(r.Origin, "pack "):
			e.PackRules++
		case r.Origin == src.Name || r.Origin == src.Path:
			e.Rules++
		}
	}
	e.Default, e.Fail = c.Policy.Default.String(), string(c.Policy.Fail)
}

// Text is the text of a policy file, or of the embedded policy named ref.
func (p *uiPolicies) Text(_ context.Context, ref string) (string, error) {
	if name, ok := strings.CutPrefix(ref, policy.EmbeddedPrefix); ok {
		data, err := policy.Template(name)
		return string(data), err
	}
	data, err := regfile.Read(ref, source.MaxPolicyBytes)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", ref, err)
	}
	return string(data), nil
}

// Try decides a call as `moat check --explain --json` does (buildCall, then the policy of
// its directory), in a service of its own that records nothing, uses no approval and
// only reads the rate-limit counters. The environment's live service is not used: a
// decision under it would also take the notice of a policy change meant for the next
// call an agent makes, and have its watcher watch whatever directory the form named.
func (p *uiPolicies) Try(ctx context.Context, req dashboard.TryRequest) (dashboard.TryResult, error) {
	o := checkOptions{agent: req.Agent, tool: req.Tool, explain: true}
	var args []string
	if strings.HasPrefix(strings.TrimSpace(req.Input), "{") {
		o.args = req.Input
	} else {
		args = []string{req.Input}
	}
	c, err := buildCall(o, args, req.Cwd)
	if err != nil {
		return dashboard.TryResult{}, fmt.Errorf("%w: %v", dashboard.ErrInvalid, err)
	}
	svc := p.app.local(func(string) {})
	pol, err := svc.Lookup(ctx, decide.Scope{Cwd: req.Cwd})
	if err != nil {
		return dashboard.TryResult{}, fmt.Errorf("the policy for %s: %w", req.Cwd, err)
	}
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: hook.MoatPreToolUse, Calls: []call.Call{c}, Explain: true})
	if err != nil {
		return dashboard.TryResult{}, err
	}
	resp := hook.NewMoatResponse(res.Decision, scan.Redact)
	out := dashboard.TryResult{Decision: resp.Decision, Rule: resp.Rule, Findings: resp.Findings, Class: string(c.Class), Policy: pol.Name}
	if resp.Reason != nil {
		out.Reason = *resp.Reason
	}
	if res.Trace != nil {
		var b strings.Builder
		if err := res.Trace.WriteText(&b, scan.Redact); err != nil {
			return dashboard.TryResult{}, err
		}
		out.Trace = b.String()
	}
	return out, nil
}

// statsFresh is how long the charts' numbers of one range are reused: the charts page
// asks for the numbers and for each of its images at once, which would otherwise count
// the same range five times.
const statsFresh = 10 * time.Second

// uiStats counts the decisions of an environment's audit database for the charts.
type uiStats struct {
	records *uiRecords
	now     func() time.Time

	// mu is held while counting, so that the requests of one page wait for the first
	// one's numbers rather than count them again.
	mu     sync.Mutex
	last   auditdb.StatsQuery
	lastAt time.Time
	stats  auditdb.Stats
}

func (s *uiStats) Stats(ctx context.Context, q auditdb.StatsQuery) (auditdb.Stats, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.last == q && !s.lastAt.IsZero() && now.Sub(s.lastAt) < statsFresh {
		return s.stats, nil
	}
	db, err := s.records.open(ctx)
	if err != nil {
		return auditdb.Stats{}, err
	}
	st, err := db.Stats(ctx, q)
	if err != nil {
		return auditdb.Stats{}, err
	}
	s.last, s.lastAt, s.stats = q, now, st
	return st, nil
}
