package engine

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// LayerTrace is what one layer of a combined policy said about a unit.
type LayerTrace struct {
	Kind   string `json:"layer"`
	Source string `json:"source"`
	// Abstained is true when none of the layer's rules matched.
	Abstained bool         `json:"abstained,omitempty"`
	Verdict   call.Verdict `json:"decision,omitempty"`
	Rule      string       `json:"rule,omitempty"`
}

// decideByLayers decides a unit under a combined policy (policy.Combine): each layer's
// first matching rule, the most restrictive of those (the higher layer on a tie), else
// the default; then the managed layer's forbid_allow, which no other layer's allow
// passes. The decision names the layer's source in Policy.
func (e *Engine) decideByLayers(s *policy.Subject, sess *Session, ut *UnitTrace) call.Decision {
	var (
		best    call.Decision
		decided bool
		byKind  string
	)
	if sess.Limits != nil {
		// A rule that several layers hold (a pack or a shared file they both extend) has
		// one counter; the call counts once against it, whichever layers try it.
		once := *sess
		once.Limits = &unitLimiter{Limiter: sess.Limits}
		sess = &once
	}
	for _, l := range e.policy.Layers {
		d, ok := e.firstMatch(l.Policy, s, sess, ut)
		if ut != nil {
			lt := LayerTrace{Kind: l.Kind, Source: l.Policy.Source, Abstained: !ok}
			if ok {
				lt.Verdict, lt.Rule = d.Verdict, d.Rule
			}
			ut.Layers = append(ut.Layers, lt)
		}
		if ok && (!decided || d.Verdict > best.Verdict) {
			best, decided, byKind = d, true, l.Kind
			best.Policy = l.Policy.Source
		}
	}
	if !decided {
		best = defaultOf(e.policy)
		byKind, best.Policy = e.defaultLayer()
	}
	if ut != nil {
		ut.Layer = byKind
	}
	if byKind == policy.LayerManaged || best.Verdict > call.Audit {
		return best
	}
	fa := e.policy.ForbidAllow
	if fa == nil || !matched(fa, s, ut) {
		return best
	}
	managed := e.policy.Managed()
	if ut != nil {
		ut.Layer = policy.LayerManaged
	}
	return call.Decision{Verdict: call.Ask, Rule: policy.RuleForbidAllow, Reason: fa.Reason + " (" + best.Rule + " of the " + byKind + " policy allowed it)", Policy: managed.Source}
}

// defaultLayer names the layer whose default applies: the first that writes one, else
// the primary policy (the first below the managed one).
func (e *Engine) defaultLayer() (kind, source string) {
	for _, l := range e.policy.Layers {
		if _, ok := l.Policy.Keys["default"]; ok {
			return l.Kind, l.Policy.Source
		}
	}
	for _, l := range e.policy.Layers {
		if l.Kind != policy.LayerManaged {
			return l.Kind, l.Policy.Source
		}
	}
	return "", ""
}
