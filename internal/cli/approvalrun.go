package cli

import (
	"context"
	"fmt"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy"
)

// noTerminal is why moat run and moat shell cannot put an ask to the user.
const noTerminal = "no terminal to ask on"

// askByApproval settles an ask of moat run or moat shell that has no terminal to be put
// to, through moat's approval queue: the call is decided again as one about to run, so
// that an approved call goes ahead (using up a once approval) and any other is held,
// recorded and refused with how to approve it. held is false when a terminal is there
// (the user is asked on it), the policy queues nothing, or the queue could not be used:
// the command then asks, or refuses, as before approvals.
func (a *app) askByApproval(ctx context.Context, svc decide.Service, o guardOptions, pol decide.Policy, c call.Call, refuse func(string) bool) (run, held bool) {
	if pol.ApprovalQueue == policy.QueueNever {
		return false, false
	}
	if o.deps.openTTY != nil {
		if tty, err := o.deps.openTTY(); err == nil {
			tty.Close()
			return false, false
		}
	}
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: o.event, Calls: []call.Call{c}, Record: true, Unattended: noTerminal})
	if err != nil {
		return false, false
	}
	for _, e := range res.NotRecorded {
		a.warn("recording decision: " + e.Error())
	}
	d := res.Decision
	switch {
	case res.Held == nil && d.Verdict.Permissive():
		return true, true
	case res.Held != nil:
		return refuse(fmt.Sprintf("not run: %s (rule %s)", reasonOf(d), d.Rule)), true
	}
	// Recorded, but neither approved nor held (the queue failed): refused as an ask
	// nobody can answer, without a second record.
	return refuse(fmt.Sprintf("not run: %s (rule %s); %s, so it is denied", reasonOf(d), d.Rule, noTerminal)), true
}
