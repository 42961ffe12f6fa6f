package cli

import (
	"io"
	"os"
	"strings"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/notify"
)

// approvalQueue is moat's approval queue as every decision service of this process
// uses it (decide.Options.Approvals): the user's approvals file, and a notification
// for each new pending approval.
func (a *app) approvalQueue() *approval.Queue {
	return &approval.Queue{Now: a.env.Now, Notify: a.notifyApproval}
}

// notifyApproval tells the user of a new pending approval, without waiting: a desktop
// notification, or the terminal's bell. It is best effort and says nothing when neither
// works: a hook's stderr goes to the agent, and the denial already says how to approve.
func (a *app) notifyApproval(l approval.Listed) {
	_ = notify.Approval(l.ID, strings.Join(l.Calls, "; "), l.Reason, notify.ApprovalOptions{Bell: openBell, LookPath: a.lookPath})
}

// openBell opens the controlling terminal to ring its bell on: never the standard
// output, which is a hook's answer to its agent.
func openBell() (io.WriteCloser, error) {
	return os.OpenFile("/dev/tty", os.O_WRONLY, 0)
}

// mcpUnattended is why an ask cannot reach the user through the MCP proxy: MCP has no
// way for moat to put a question to the user.
const mcpUnattended = "MCP clients cannot show moat's questions"

// heldDecision is the decision an entry point other than a hook answers with: an ask
// held for approval is refused, with the reason that says how to approve it.
func heldDecision(res decide.CallResult) call.Decision {
	d := res.Decision
	if res.Held != nil && d.Verdict == call.Ask {
		d.Verdict = call.Deny
	}
	return d
}
