package hookrelay

import "time"

// The hook's deadline as `moat hook` reads it from the environment, which the daemon
// keeps: whatever it waits on, it answers by then. The client waits that long and a
// margin for the exchange; past it the daemon is taken to be stuck, and the client
// decides without it.
const (
	envHookDeadline     = "MOAT_HOOK_DEADLINE"
	defaultHookDeadline = 2 * time.Second
	minHookDeadline     = 100 * time.Millisecond
	maxHookDeadline     = 30 * time.Second
	// answerMargin is what the exchange may take beyond the daemon's deadline.
	answerMargin = 500 * time.Millisecond
)

// AnswerWait is how long the client waits for the daemon's answer: the hook deadline
// getenv sets (MOAT_HOOK_DEADLINE, else 2s) and a margin. An invalid value is the
// default: the daemon answers it as a failure, at once.
func AnswerWait(getenv func(string) string) time.Duration {
	d, err := time.ParseDuration(getenv(envHookDeadline))
	if err != nil || d < minHookDeadline || d > maxHookDeadline {
		d = defaultHookDeadline
	}
	return d + answerMargin
}
