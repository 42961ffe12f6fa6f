package cli

import (
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
