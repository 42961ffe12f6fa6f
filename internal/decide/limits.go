package decide

import (
	"time"

	"github.com/moatdev/moat/internal/engine"
	"github.com/moatdev/moat/internal/ratelimit"
)

// Limits keeps the counters of the policy's rules that have a limit, in the state
// directory of the user a call is decided for. Every process of the user, the daemon's
// services included, keeps them in the same files, so that a limit holds whether a call
// is decided through the daemon or in its own process. ratelimit.Files is the one moat
// uses.
type Limits interface {
	// Take counts a call under key when it is under max calls per window.
	Take(stateDir, key string, max int, window time.Duration) (ratelimit.Count, error)
	// Peek reports where a call under key stands without counting it.
	Peek(stateDir, key string, max int, window time.Duration) (ratelimit.Count, error)
	// Refund takes back a call Take counted at at.
	Refund(stateDir, key string, at time.Time) error
}

// limiter returns the engine's Limiter for one request under c: it counts the calls of a
// request that records them (they are about to run), and only reads the counters for
// the others (`moat check`, `--explain`). Without Options.Limits there are no counters,
// and every call is under every limit.
func (l *Local) limiter(c *Compiled, record bool) engine.Limiter {
	if l.opts.Limits == nil {
		return nil
	}
	return stateLimiter{limits: l.opts.Limits, dir: c.Dirs.State, record: record}
}

type stateLimiter struct {
	limits Limits
	dir    string
	record bool
}

func (s stateLimiter) Use(key string, max int, window time.Duration) (engine.LimitCount, error) {
	use := s.limits.Peek
	if s.record {
		use = s.limits.Take
	}
	n, err := use(s.dir, key, max, window)
	if err != nil {
		return engine.LimitCount{}, err
	}
	return engine.LimitCount{Used: n.Used, Exceeded: n.Exceeded, Counted: n.Counted, At: n.At, Next: n.Next}, nil
}

func (s stateLimiter) Refund(key string, at time.Time) error {
	return s.limits.Refund(s.dir, key, at)
}
