package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ApprovalQueue says which asks become pending approvals that the user answers with
// `moat approve` or `moat deny`, the call being denied until then.
type ApprovalQueue string

// Approval queue modes.
const (
	// QueueUnattended queues the asks that cannot reach the user where they are made:
	// agents that cannot ask (Codex, Windsurf, Cursor's preToolUse), headless and CI runs,
	// hooks.ask: deny, the MCP proxy, moat run and moat shell without a terminal.
	QueueUnattended ApprovalQueue = "unattended"
	// QueueAlways queues every ask, even where the agent could put it to the user.
	QueueAlways ApprovalQueue = "always"
	// QueueNever queues nothing: an ask that cannot reach the user is a plain deny.
	QueueNever ApprovalQueue = "never"
)

// Approvals is the policy's approvals section.
type Approvals struct {
	Queue ApprovalQueue
	// Expire is how long a pending approval waits for an answer, and how long a grant or
	// a denial lasts once given.
	Expire time.Duration
	// Notify raises a desktop notification (or a terminal bell) for each new pending
	// approval.
	Notify bool
}

// Bounds of approvals.expire.
const (
	MinApprovalExpire = time.Minute
	MaxApprovalExpire = 7 * 24 * time.Hour
)

// DefaultApprovals queue what cannot be asked, for an hour, with a notification.
var DefaultApprovals = Approvals{Queue: QueueUnattended, Expire: time.Hour, Notify: true}

var (
	approvalQueues = []string{string(QueueUnattended), string(QueueAlways), string(QueueNever)}
	approvalsKeys  = []string{"queue", "expire", "notify"}
)

func (l *loader) approvals(n *yaml.Node) Approvals {
	out := DefaultApprovals
	fields, ok := l.mapping(n, "approvals", approvalsKeys)
	if !ok {
		return out
	}
	for _, f := range fields {
		if f.key == "notify" {
			v := resolve(f.value)
			if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || (v.Value != "true" && v.Value != "false") {
				l.errorf(f.value, "approvals.notify must be true or false, not %s", describe(v))
				continue
			}
			out.Notify = v.Value == "true"
			continue
		}
		s, ok := l.str(f.value, "approvals."+f.key)
		if !ok {
			continue
		}
		switch f.key {
		case "queue":
			if !slices.Contains(approvalQueues, s) {
				l.errorf(f.value, "approvals.queue must be one of %s, not %q%s", strings.Join(approvalQueues, ", "), s, suggest(s, approvalQueues))
				continue
			}
			out.Queue = ApprovalQueue(s)
		case "expire":
			d, err := parseApprovalExpire(s)
			if err != nil {
				l.errorf(f.value, "approvals.expire: %v", err)
				continue
			}
			out.Expire = d
		}
	}
	return out
}

func parseApprovalExpire(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 30m or 8h", s)
	}
	if d < MinApprovalExpire || d > MaxApprovalExpire {
		return 0, fmt.Errorf("%s is not between %s and %s", d, MinApprovalExpire, MaxApprovalExpire)
	}
	return d, nil
}
