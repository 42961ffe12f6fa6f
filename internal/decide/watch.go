package decide

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/regfile"
	"github.com/moatdev/moat/internal/trust"
)

// maxLiveScopes bounds the scopes a live Local keeps: a daemon sees one per working
// directory its clients call from.
const maxLiveScopes = 256

// maxRetired bounds the policies kept after a refresh replaced them: a request that
// looked one up just before the refresh is decided under it (as if it had come a moment
// earlier) rather than failing for a key the cache let go.
const maxRetired = 8

// Problem is a change to a policy's inputs that could not be used: the file no longer
// compiles, cannot be read, or its trust cannot be checked. The last good policy stays
// in force; nothing falls back to another one.
type Problem struct {
	Scope Scope `json:"scope"`
	// InForce names the policy still deciding for the scope.
	InForce string `json:"in_force"`
	// Error is why the change could not be used (for a policy, with file:line:col).
	Error string    `json:"error"`
	Since time.Time `json:"since"`
	// digest identifies what failed (the inputs' content and the error), so that the
	// same broken content is reported once.
	digest string
}

// liveScopes is what a live Local keeps for each scope looked up: the policy in force and
// what it was found from. Its owner's mutex guards it.
type liveScopes struct {
	scopes *lru[Scope, *scopeState]
	// notices are the problems not yet told in a decision, by the key of the policy in
	// force (the decisions made under it carry the notice).
	notices map[string]*Problem
	// added is signalled when a scope is added, whose inputs the watcher has not seen.
	added chan struct{}
	// retired are the policies refreshes replaced, most recent last.
	retired []*Compiled
}

type scopeState struct {
	compiled *Compiled
	// skipped are the project policies the last lookup passed over (the compiled policy
	// is shared by every lookup that found the same content, whatever it skipped).
	skipped []source.Skipped
	inputs  []string
	problem *Problem
}

// info is what the scope's entry points know of its policy.
func (st *scopeState) info() Policy {
	p := st.compiled.Info()
	p.Skipped = st.skipped
	return p
}

func newLiveScopes() *liveScopes {
	return &liveScopes{scopes: newLRU[Scope, *scopeState](maxLiveScopes), notices: map[string]*Problem{}, added: make(chan struct{}, 1)}
}

// inForce returns the compiled policy with key that a scope still decides by, though the
// cache has let it go.
func (s *liveScopes) inForce(key string) (*Compiled, bool) {
	var found *Compiled
	s.scopes.each(func(_ Scope, st *scopeState) {
		if found == nil && st.compiled.key == key {
			found = st.compiled
		}
	})
	for _, c := range s.retired {
		if found == nil && c.key == key {
			found = c
		}
	}
	return found, found != nil
}

// retire keeps c, replaced by a refresh, among the last maxRetired.
func (s *liveScopes) retire(c *Compiled) {
	if len(s.retired) == maxRetired {
		s.retired = slices.Delete(s.retired, 0, 1)
	}
	s.retired = append(s.retired, c)
}

// lookupLive returns the policy kept for s, finding it the first time. A first lookup
// that fails is an error, as without Live: there is no good policy to keep yet.
func (l *Local) lookupLive(s Scope) (Policy, error) {
	l.mu.Lock()
	st, ok := l.live.scopes.get(s)
	var p Policy
	if ok {
		p = st.info()
	}
	l.mu.Unlock()
	if ok {
		return p, nil
	}
	c, skipped, inputs, err := l.resolve(s)
	if err != nil {
		return Policy{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if st, ok := l.live.scopes.get(s); ok { // found meanwhile (or refreshed): keep that one
		return st.info(), nil
	}
	st = &scopeState{compiled: c, skipped: skipped, inputs: inputs}
	l.live.scopes.put(s, st)
	select {
	case l.live.added <- struct{}{}:
	default: // already signalled
	}
	return st.info(), nil
}

// resolve finds and compiles the policy for s, with the project policies passed over,
// and lists the files it depends on.
func (l *Local) resolve(s Scope) (*Compiled, []source.Skipped, []string, error) {
	src, d, err := l.Find(s)
	inputs := source.Inputs(source.Options{Flag: s.Flag, Env: l.opts.Getenv(source.EnvVar), Cwd: s.Cwd, Project: s.Project, Dirs: d})
	if err != nil {
		return nil, nil, inputs, err
	}
	c, err := l.Compile(src, d)
	if err == nil {
		inputs = append(inputs, c.Policy.Included...)
	}
	return c, src.Skipped, inputs, err
}

// Refresh finds the policy of every scope a live Local keeps again, after a change to
// their inputs (see Inputs): a policy that changed is compiled and in force for the
// decisions that follow. A change that cannot be used leaves the last good policy in
// force and is reported: by Problems, and in the reason of the next decision made under
// it, once per content. Trust is checked as for any lookup, so an edited trusted project
// policy stays in force as it was trusted. Refresh does nothing without Options.Live.
func (l *Local) Refresh() {
	if l.live == nil {
		return
	}
	var scopes []Scope
	l.mu.Lock()
	l.live.scopes.each(func(s Scope, _ *scopeState) { scopes = append(scopes, s) })
	l.mu.Unlock()
	for _, s := range scopes {
		c, skipped, inputs, err := l.resolve(s)
		var digest string
		if err != nil {
			digest = inputsDigest(inputs, err)
		}
		var reloaded string // the policy reloaded, or kept over a refused change
		l.mu.Lock()
		st, ok := l.live.scopes.get(s)
		switch {
		case !ok: // let go meanwhile
		case err == nil:
			if st.compiled != c {
				reloaded = c.Source.Name
			}
			if st.problem != nil {
				delete(l.live.notices, st.compiled.key)
			}
			if st.compiled != c {
				l.live.retire(st.compiled)
			}
			st.compiled, st.skipped, st.inputs, st.problem = c, skipped, inputs, nil
		case st.problem == nil || st.problem.digest != digest:
			p := &Problem{Scope: s, InForce: st.compiled.Source.Name, Error: err.Error(), Since: l.now(), digest: digest}
			st.inputs, st.problem = mergeInputs(st.inputs, inputs), p
			l.live.notices[st.compiled.key] = p
			reloaded = p.InForce
		}
		l.mu.Unlock()
		if reloaded != "" && l.opts.Reloaded != nil {
			l.opts.Reloaded(reloaded, err)
		}
	}
}

// Problems lists the changes a live Local could not use, one per scope, with the policy
// still in force: what the daemon's status and moat doctor report.
func (l *Local) Problems() []Problem {
	if l.live == nil {
		return nil
	}
	var out []Problem
	l.mu.Lock()
	l.live.scopes.each(func(_ Scope, st *scopeState) {
		if st.problem != nil {
			out = append(out, *st.problem)
		}
	})
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Scope.Cwd, b.Scope.Cwd), cmp.Compare(a.Scope.Flag, b.Scope.Flag), cmp.Compare(a.Scope.Project, b.Scope.Project))
	})
	return out
}

// Inputs lists, sorted, the files whose change may change the policy of a scope a live
// Local keeps: what its watcher watches.
func (l *Local) Inputs() []string {
	if l.live == nil {
		return nil
	}
	var out []string
	l.mu.Lock()
	l.live.scopes.each(func(_ Scope, st *scopeState) { out = append(out, st.inputs...) })
	l.mu.Unlock()
	slices.Sort(out)
	return slices.Compact(out)
}

// Added is signalled when a live Local looks up a scope for the first time: its watcher
// then watches the new Inputs, and calls Refresh for changes made before it watched
// them. It is nil without Options.Live.
func (l *Local) Added() <-chan struct{} {
	if l.live == nil {
		return nil
	}
	return l.live.added
}

// takeNotice returns the notice of a problem with the policy key not yet told, and marks
// it told.
func (l *Local) takeNotice(key string) string {
	if l.live == nil {
		return ""
	}
	l.mu.Lock()
	p, ok := l.live.notices[key]
	delete(l.live.notices, key)
	l.mu.Unlock()
	if !ok {
		return ""
	}
	return p.notice()
}

// notice is the short form of p appended to a decision's reason.
func (p *Problem) notice() string {
	msg, _, _ := strings.Cut(p.Error, "\n")
	const maxLen = 200
	if len(msg) > maxLen {
		msg = msg[:maxLen] + "…"
	}
	return fmt.Sprintf("moat: a policy change was not applied (%s); still enforcing %s", msg, p.InForce)
}

// withNotice appends note to a decision's reason.
func withNotice(reason, note string) string {
	if reason == "" {
		return "[" + note + "]"
	}
	return reason + " [" + note + "]"
}

func (l *Local) now() time.Time {
	if l.opts.Now == nil {
		return time.Now()
	}
	return l.opts.Now()
}

// mergeInputs is both lists: while a change cannot be used, the files of the policy in
// force and of the one tried are both watched.
func mergeInputs(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// inputsDigest identifies the state of inputs that failed with err: their content (as
// far as it can be read) and the error.
func inputsDigest(inputs []string, err error) string {
	h := sha256.New()
	for _, p := range inputs {
		h.Write([]byte(p))
		h.Write([]byte{0})
		if data, rerr := regfile.Read(p, source.MaxPolicyBytes); rerr == nil {
			h.Write([]byte(trust.Hash(data)))
		}
		h.Write([]byte{0})
	}
	h.Write([]byte(err.Error()))
	return hex.EncodeToString(h.Sum(nil)[:16])
}
