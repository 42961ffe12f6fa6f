package cli

import (
	"context"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/sessionhistory"
)

// sessionHistory is where the decisions of this user's agent sessions keep what their
// calls left behind (cross-call correlation): files in the user's state directory, the
// same for the daemon and for processes deciding without it. nil when the state
// directory cannot be found: calls are then decided each alone, as before.
func (a *app) sessionHistory() decide.History {
	d, err := a.dirs()
	if err != nil {
		return nil
	}
	return sessionhistory.Open(sessionhistory.Options{Dir: d.Sessions(), Now: a.env.Now})
}

// seqSlot is where the audit log's sink of the daemon's bus says the number it gave a
// record, for the publisher waiting on it (envRecorder.writeSeq).
type seqSlot struct{}

// askSeq returns ctx asking the log's sink for the record's number, into seq.
func askSeq(ctx context.Context, seq *uint64) context.Context {
	return context.WithValue(ctx, seqSlot{}, seq)
}

// tellSeq tells the publisher that asked (askSeq) the number its record got.
func tellSeq(ctx context.Context, seq uint64) {
	if p, ok := ctx.Value(seqSlot{}).(*uint64); ok {
		*p = seq
	}
}
