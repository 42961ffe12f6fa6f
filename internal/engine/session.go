package engine

// Session is what a decision may know beyond the call itself: the state that earlier
// calls left behind, kept by the caller (the decision service) between calls. The engine
// stays a function of the policy, the call and the session it is given; it never keeps
// state of its own. The zero Session is a call with no history.
type Session struct {
	// Limits counts the calls of the rules that have a limit (see limits.go).
	Limits Limiter
	// History is what the session's earlier calls did (see history.go).
	History History
}
