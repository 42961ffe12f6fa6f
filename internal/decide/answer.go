package decide

import (
	"fmt"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan"
)

// hookAnswer is the answer to a tool event that the policy decided d. A call the policy
// lets run is moat's silence (the agent's own permission system decides) unless an
// explicit rule allowed it and the policy's hooks.allow is explicit. What the agent is
// told may differ from what the policy said (an allow it is not told, an ask it cannot
// show): Form says so, for the record.
func hookAnswer(hooks policy.Hooks, d call.Decision, hd HookDelivery) *HookAnswer {
	ans := &HookAnswer{Verdict: d.Verdict, Reason: scan.Redact(Reason(d))}
	if d.Verdict.Permissive() {
		ans.Defer = d.Rule == call.RuleDefault || hooks.Allow != policy.HookAllowExplicit
	}
	switch {
	case ans.Defer && ans.Verdict.Permissive():
		ans.Form = "defer"
	case ans.Verdict != call.Ask:
	case hd.Unattended != "" || !hd.AskHolds:
		ans.Form = "deny"
	}
	return ans
}

// Reason is the reason an agent or a user is shown for a decision: moat's, with the rule
// that made it.
func Reason(d call.Decision) string {
	reason := d.Reason
	if reason == "" {
		reason = map[call.Verdict]string{
			call.Allow: "allowed by the policy", call.Audit: "allowed and recorded by the policy",
			call.Ask: "the policy asks for your approval", call.Deny: "denied by the policy",
		}[d.Verdict]
	}
	return fmt.Sprintf("moat: %s (rule %s)", reason, d.Rule)
}

// FailDecision is the decision of a call that could not be decided, for the reason
// given: a deny, or an allow when the policy's fail mode is open. A failure before the
// policy is known is closed; a failure after a decision never changes it.
func FailDecision(open bool, reason string) call.Decision {
	if open {
		return call.Decision{Verdict: call.Allow, Rule: call.RuleFailOpen, Reason: scan.Redact(reason)}
	}
	return call.Decision{Verdict: call.Deny, Rule: call.RuleFailClosed, Reason: scan.Redact(reason)}
}

// holdAnswer makes the hook's answer (if any) to an ask held for approval a deny, whose
// reason says how to approve the call, and returns the form the records hold.
func holdAnswer(ans *HookAnswer) string {
	if ans != nil {
		ans.Verdict, ans.Defer, ans.Form = call.Deny, false, "deny"
	}
	return "deny"
}
