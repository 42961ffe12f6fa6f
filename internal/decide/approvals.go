package decide

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan"
)

// RuleApproved is the rule of a call the policy asked about and the user approved
// through moat's approval queue (moat approve).
const RuleApproved = "approved"

// Approvals is moat's approval queue (package approval) as the decision service uses it:
// per user, since one daemon decides for several environments.
type Approvals interface {
	// Find returns the approval in force for the call whose key is hash.
	Find(d dirs.Dirs, hash string) (approval.Listed, bool, error)
	// Use is Find for a call about to run: a once grant is used up.
	Use(d dirs.Dirs, hash string) (approval.Listed, bool, error)
	// Add queues a pending approval, unless one for the call is in force, and notifies
	// of a new one when notify is set.
	Add(d dirs.Dirs, e approval.Entry, notify bool) (approval.Listed, bool, error)
}

// Held is an ask held in the approval queue: the call is refused until the user answers.
type Held struct {
	ID    string         `json:"id"`
	State approval.State `json:"state"`
}

// settleApproval applies the approval queue to an event the policy asked about. A call
// that is about to run (req.Record) and matches a grant is allowed, under RuleApproved; an
// ask that cannot reach the user (or every ask, as the policy's approvals.queue says) is
// held: queued as a pending approval when it is about to run, and refused with a reason
// that says how to approve it. A request that is not recorded changes no state, and is
// not allowed by a grant (moat check shows what the policy says). Only asks are touched:
// a deny stays a deny whatever was approved. The result says whether the ask is held.
func (l *Local) settleApproval(c *Compiled, req CallRequest, res *CallResult) *Held {
	if l.opts.Approvals == nil || res.Decision.Verdict != call.Ask {
		return nil
	}
	conf := c.Policy.Approvals
	why := unreachable(conf, req)
	if why == "" && !req.Record {
		return nil
	}
	hash, err := approval.Key(res.Calls)
	if err != nil {
		return nil
	}
	find := l.opts.Approvals.Find
	if req.Record {
		find = l.opts.Approvals.Use
	}
	e, found, err := find(c.Dirs, hash)
	if err != nil {
		// An unreadable queue grants nothing; the ask stays an ask, said why.
		res.note(fmt.Sprintf("moat's approval queue could not be read (%v)", err))
		return nil
	}
	if found && e.State.Granted() && req.Record {
		for i, d := range res.Decisions {
			if d.Verdict == call.Ask {
				res.Decisions[i] = call.Decision{
					Verdict: call.Allow, Rule: RuleApproved, Findings: d.Findings, Latency: d.Latency,
					Reason: fmt.Sprintf("approved %s by %s (approval %s, for rule %s: %s)", grantScope(e.State), e.By, e.ID, d.Rule, Reason(d)),
				}
			}
		}
		res.Decision = strictest(res.Decisions)
		return nil
	}
	if why == "" {
		return nil
	}
	d := res.Decision
	switch {
	case found && e.State == approval.Denied:
		id := e.ID
		res.reasonAsks(func(d call.Decision) string {
			return fmt.Sprintf("%s. The user denied this call (approval %s, %s): do not retry it", trimReason(d), id, e.By)
		})
		return &Held{ID: id, State: e.State}
	case found:
		id := e.ID
		res.reasonAsks(func(d call.Decision) string { return heldReason(d, why, id, e.State) })
		return &Held{ID: id, State: e.State}
	case !req.Record:
		return nil
	}
	entry := approval.Entry{
		Hash: hash, TTL: conf.Expire, Rule: d.Rule, Reason: scan.Redact(Reason(d)), Policy: c.Source.Name,
		Agent: string(res.Calls[0].Agent), Session: res.Calls[0].Session, Cwd: res.Calls[0].Cwd,
	}
	for _, cl := range res.Calls {
		entry.Calls = append(entry.Calls, scan.Redact(approval.Render(cl)))
	}
	queued, _, err := l.opts.Approvals.Add(c.Dirs, entry, conf.Notify)
	if err != nil {
		res.note(fmt.Sprintf("it could not be queued for approval (%v)", err))
		return nil
	}
	res.reasonAsks(func(d call.Decision) string { return heldReason(d, why, queued.ID, queued.State) })
	return &Held{ID: queued.ID, State: queued.State}
}

// unreachable says why an ask of req is held in the queue rather than put to the user,
// or "" when it is not.
func unreachable(conf policy.Approvals, req CallRequest) string {
	switch {
	case conf.Queue == policy.QueueNever:
		return ""
	case req.Hook != nil && req.Hook.Unattended != "":
		return req.Hook.Unattended
	case req.Hook != nil && !req.Hook.AskHolds:
		return cmp.Or(req.Hook.NoAsk, "this agent cannot put moat's questions to the user")
	case req.Hook == nil && req.Unattended != "":
		return req.Unattended
	case conf.Queue == policy.QueueAlways:
		return "the policy's approvals.queue is always"
	}
	return ""
}

// heldReason is the reason of a call held for approval id: what the policy said, and
// how the user approves it.
func heldReason(d call.Decision, why, id string, state approval.State) string {
	how := fmt.Sprintf("It waits for the user's approval (%s): the user can run `moat approve %s` in a terminal outside the agent (or `moat deny %s`), and then the identical call can be retried", why, id, id)
	if state.Granted() {
		how = fmt.Sprintf("It was approved (%s, approval %s) and can be retried as it is", grantScope(state), id)
	}
	return trimReason(d) + ". " + how
}

// trimReason is the reason of d without its final full stop, to go on with.
func trimReason(d call.Decision) string {
	if d.Reason == "" {
		return "the policy asks for the user's approval"
	}
	return strings.TrimRight(d.Reason, ". ")
}

func grantScope(s approval.State) string {
	if s == approval.Session {
		return "for the session"
	}
	return "once"
}

// strictest is the first among the most restrictive of ds.
func strictest(ds []call.Decision) call.Decision {
	out := ds[0]
	for _, d := range ds[1:] {
		if d.Verdict > out.Verdict {
			out = d
		}
	}
	return out
}

// note adds to the reason of each ask what the approval queue could not do.
func (r *CallResult) note(s string) {
	r.reasonAsks(func(d call.Decision) string { return trimReason(d) + "; " + s })
}

// reasonAsks gives each ask of the event the reason reason makes of it, and the result
// its strictest decision again.
func (r *CallResult) reasonAsks(reason func(call.Decision) string) {
	for i, d := range r.Decisions {
		if d.Verdict == call.Ask {
			r.Decisions[i].Reason = reason(d)
		}
	}
	r.Decision = strictest(r.Decisions)
}
