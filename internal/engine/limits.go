package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// Limiter counts the calls of the rules that have a limit. The caller keeps the counters
// between calls; a Limiter for calls that are about to run counts each call under its
// limit, one for calls only looked at (`moat check`, `--explain`) only reads them.
type Limiter interface {
	// Use reports where a call under key stands against max calls per window, and counts
	// it when it is under the limit and the Limiter counts at all.
	Use(key string, max int, window time.Duration) (LimitCount, error)
	// Refund takes back a call Use counted at at: the call was then denied, and a call
	// that never runs does not count.
	Refund(key string, at time.Time) error
}

// LimitCount is where one call stands against a rule's limit.
type LimitCount struct {
	// Used is the calls counted in the window, this one included when it was counted.
	Used int
	// Exceeded means the limit was reached before this call: the rule applies to it.
	Exceeded bool
	// Counted means this call was counted against the limit, at At.
	Counted bool
	At      time.Time
	// Next, when Exceeded, is when a call would be under the limit again.
	Next time.Time
}

// LimitTrace is a limited rule's counter, as the trace shows it.
type LimitTrace struct {
	Limit string `json:"limit"`
	// Scope is whose calls the counter holds: the session, agent, class or tool.
	Scope    string    `json:"scope"`
	Used     int       `json:"used"`
	Max      int       `json:"max"`
	Exceeded bool      `json:"exceeded"`
	Counted  bool      `json:"counted"`
	Next     time.Time `json:"next,omitzero"`
	// Error is why the counter could not be read; the rule then applied.
	Error string `json:"error,omitempty"`
}

// overLimit reports whether a call that matched the conditions of r, a rule with a limit,
// is over that limit, so that the rule applies to it; and when it is, the text the
// decision's reason ends with. Without counters (nil Limits: the policy's own tests) every
// call is under the limit. A counter that fails is over it: a broken counter must never
// loosen a limit.
func (e *Engine) overLimit(r *policy.Rule, s *policy.Subject, sess *Session, ut *UnitTrace) (bool, string) {
	lim := r.Limit
	scope := limitScopeValue(lim.Scope, s.Call)
	tr := &LimitTrace{Limit: lim.String(), Scope: scope, Max: lim.Count}
	var over bool
	var note, detail string
	switch {
	case sess.Limits == nil:
		detail = "no counters here (a policy test): under the limit"
	default:
		n, err := sess.Limits.Use(limitKey(r, scope), lim.Count, lim.Window)
		tr.Used, tr.Exceeded, tr.Counted, tr.Next = n.Used, n.Exceeded, n.Counted, n.Next
		switch {
		case err != nil:
			over, tr.Error = true, err.Error()
			note = fmt.Sprintf("its rate-limit counter failed, so the rule applies: %v", err)
			detail = note
		case n.Exceeded:
			over = true
			note = fmt.Sprintf("rate limit of %s reached: %d calls in the last %s", lim, n.Used, lim.WindowString())
			if wait := n.Next.Sub(e.now()); wait > 0 {
				note += fmt.Sprintf("; a call is under it again in %s", wait.Round(time.Second))
			}
			detail = fmt.Sprintf("%d of %d calls in the last %s (%s): over the limit", n.Used, lim.Count, lim.WindowString(), scope)
			if !n.Next.IsZero() {
				detail += "; under it again at " + n.Next.Format(time.DateTime)
			}
		case n.Counted:
			detail = fmt.Sprintf("%d of %d calls in the last %s, this one included (%s): under the limit", n.Used, lim.Count, lim.WindowString(), scope)
		default:
			detail = fmt.Sprintf("%d of %d calls in the last %s (%s): under the limit; this call is not counted", n.Used, lim.Count, lim.WindowString(), scope)
		}
	}
	if ut != nil && len(ut.Tried) > 0 {
		rt := &ut.Tried[len(ut.Tried)-1]
		rt.Matched = over
		rt.Checks = append(rt.Checks, policy.Check{Condition: "limit", Held: over, Detail: detail})
		rt.Limit = tr
	}
	return over, note
}

// limitScopeValue names whose calls share a counter: an agent's session, an agent, a
// class or a tool.
func limitScopeValue(scope policy.LimitScope, c *call.Call) string {
	switch scope {
	case policy.PerAgent:
		return "agent " + string(c.Agent)
	case policy.PerClass:
		return "class " + string(c.Class)
	case policy.PerTool:
		if c.MCP != nil {
			return "tool mcp:" + c.MCP.String()
		}
		return "tool " + c.Tool
	}
	return "session " + string(c.Agent) + "/" + c.Session
}

// maxKeyBytes bounds a counter's key, which holds a session id or tool name from the
// call; a longer one is kept as its hash.
const maxKeyBytes = 512

// limitKey names the counter of rule r for the calls of scope. It holds where the rule
// came from, so that two policies that both have a rule "fetch" count apart, but not the
// limit itself: a limit lowered in the policy applies at once to the calls counted.
func limitKey(r *policy.Rule, scope string) string {
	key := r.Origin + "#" + r.ID + "|" + scope
	if len(key) > maxKeyBytes {
		sum := sha256.Sum256([]byte(key))
		key = "sha256:" + hex.EncodeToString(sum[:])
	}
	return key
}

// withLimitNote ends the reason of a limited rule's decision with where its limit stands,
// so that the agent and the log say why the call was refused now and not before.
func withLimitNote(d call.Decision, note string) call.Decision {
	if note != "" {
		if d.Reason == "" {
			d.Reason = note
		} else {
			d.Reason += " (" + note + ")"
		}
	}
	return d
}

// refundingLimiter is the Limiter of one evaluation: it remembers the calls it counted,
// so that they can be taken back when the call is denied after all (by another rule, or
// another unit of the same shell line). Only calls that run count against a limit.
type refundingLimiter struct {
	Limiter
	counted []countedCall
}

type countedCall struct {
	key string
	at  time.Time
}

func (r *refundingLimiter) Use(key string, max int, window time.Duration) (LimitCount, error) {
	n, err := r.Limiter.Use(key, max, window)
	if err == nil && n.Counted {
		r.counted = append(r.counted, countedCall{key, n.At})
	}
	return n, err
}

// withRefunds gives sess a Limiter that remembers what it counts, and returns the
// function that takes those counts back if the decision is a denial. A refund that fails
// leaves the call counted, which errs towards the limit.
func withRefunds(sess *Session) (settle func(call.Decision)) {
	if sess.Limits == nil {
		return func(call.Decision) {}
	}
	r := &refundingLimiter{Limiter: sess.Limits}
	sess.Limits = r
	return func(d call.Decision) {
		if d.Verdict != call.Deny {
			return
		}
		for _, c := range r.counted {
			_ = r.Limiter.Refund(c.key, c.at)
		}
	}
}

// unitLimiter is the Limiter of one unit decided by layers: the first use of a counter
// (for a limit and window) is counted, and a later one in the same unit is given the
// same answer without counting again.
type unitLimiter struct {
	Limiter
	used map[unitUse]LimitCount
}

type unitUse struct {
	key    string
	max    int
	window time.Duration
}

func (u *unitLimiter) Use(key string, max int, window time.Duration) (LimitCount, error) {
	k := unitUse{key, max, window}
	if n, ok := u.used[k]; ok {
		return n, nil
	}
	n, err := u.Limiter.Use(key, max, window)
	if err != nil {
		return n, err
	}
	if u.used == nil {
		u.used = map[unitUse]LimitCount{}
	}
	u.used[k] = n
	return n, nil
}
