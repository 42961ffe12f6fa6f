package decide

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/engine"
	"github.com/moatdev/moat/internal/shell"
)

// History keeps what the recorded calls of each agent session left behind, for the
// decisions of its later calls (package sessionhistory, in the user's state directory,
// shared by the daemon and the processes deciding without it).
type History interface {
	// Earlier returns what the session's earlier calls left behind; nil when nothing.
	Earlier(agent, session string) (*shell.Earlier, error)
	// Add keeps what a call recorded as seq (0 when its record has no number yet) left.
	Add(agent, session string, seq uint64, left shell.Left) error
}

// callHistory is one call's view of its session's history, given to the engine: it
// reads what the earlier calls left and holds what this one leaves until the call is
// recorded.
type callHistory struct {
	earlier *shell.Earlier
	left    shell.Left
}

func (h *callHistory) Earlier() *shell.Earlier { return h.earlier }
func (h *callHistory) Leave(l shell.Left)      { h.left = l }

// sessionOf is the engine session a call is decided in: its session's history, when the
// Local keeps histories and the call names its session. A history that cannot be read
// is reported and the call is decided without it: correlation only adds findings, so its
// absence decides as moat did before it, never looser.
func (l *Local) sessionOf(cl call.Call) (engine.Session, *callHistory) {
	if l.opts.History == nil || cl.Session == "" {
		return engine.Session{}, nil
	}
	earlier, err := l.opts.History.Earlier(string(cl.Agent), cl.Session)
	if err != nil && l.opts.Warn != nil {
		l.opts.Warn("cross-call correlation is off for this call: " + err.Error())
	}
	h := &callHistory{earlier: earlier}
	return engine.Session{History: h}, h
}

// remember keeps what a recorded call left behind, under its record's number, when the
// call runs.
func (l *Local) remember(cl call.Call, runs bool, seq uint64, h *callHistory) error {
	if h == nil || h.left.Empty() || !runs {
		return nil
	}
	return l.opts.History.Add(string(cl.Agent), cl.Session, seq, h.left)
}

// runs reports whether the calls of a decided event run: not when it was denied (any of
// its calls), held for an approval, or answered with a denial (an ask the agent cannot
// put to the user).
func runs(res CallResult, form string) bool {
	return res.Decision.Verdict != call.Deny && res.Held == nil && form != "deny"
}
