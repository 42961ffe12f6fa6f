package policy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
)

// Bounds on a limit. A window shorter than a second is finer than the clocks of the
// processes sharing a counter agree; one longer than a month would keep a call's trace for
// longer than anyone reasons about a rate. The count bounds the calls a counter stores.
const (
	MaxLimitCount  = 10000
	MinLimitWindow = time.Second
	MaxLimitWindow = 31 * 24 * time.Hour
)

// LimitScope says which calls share one counter of a limited rule.
type LimitScope string

// Limit scopes.
const (
	// PerSession counts each agent session apart (the calls of one agent with one session
	// id; calls without a session id share the agent's empty session).
	PerSession LimitScope = "session"
	// PerAgent counts each agent's calls together, across its sessions.
	PerAgent LimitScope = "agent"
	// PerClass counts each class of call (shell, web.fetch, …) together, across agents.
	PerClass LimitScope = "class"
	// PerTool counts each tool (a native name, or an MCP server's tool) together, across
	// agents.
	PerTool LimitScope = "tool"
)

var limitScopes = []string{string(PerSession), string(PerAgent), string(PerClass), string(PerTool)}

// Limit is a rule's rate limit: the rule applies to a call only when Count calls that
// matched it were already let through within the last Window, counted per Scope.
type Limit struct {
	Count  int
	Window time.Duration
	Scope  LimitScope
}

// String writes the limit in the policy language, with its scope.
func (l Limit) String() string {
	return fmt.Sprintf("%d per %s per %s", l.Count, formatWindow(l.Window), l.Scope)
}

// WindowString writes the limit's window as the policy language does: "minute", "5m".
func (l Limit) WindowString() string { return formatWindow(l.Window) }

// formatWindow writes a window as a person would: "minute", "5m" or "2 days", not
// "5m0s".
func formatWindow(d time.Duration) string {
	for _, u := range limitUnits {
		if d == u.d {
			return u.name
		}
	}
	switch day := 24 * time.Hour; {
	case d%day == 0:
		return fmt.Sprintf("%d days", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

var limitUnits = []struct {
	name string
	d    time.Duration
}{
	{"second", time.Second},
	{"minute", time.Minute},
	{"hour", time.Hour},
	{"day", 24 * time.Hour},
}

// ParseLimit reads a limit: `N per DURATION [per SCOPE]`. DURATION is a Go duration
// (`30s`, `1m`, `1h30m`) or a unit word with an optional count (`minute`, `5 minutes`,
// `day`); SCOPE is session (the default), agent, class or tool.
func ParseLimit(s string) (Limit, error) {
	const form = "write limits as `N per DURATION [per session|agent|class|tool]`, e.g. `20 per 1m per session`"
	words := strings.Fields(s)
	if len(words) < 3 || words[1] != "per" {
		return Limit{}, fmt.Errorf("limit %q: %s", s, form)
	}
	n, err := strconv.Atoi(words[0])
	if err != nil {
		return Limit{}, fmt.Errorf("limit %q: the count %q is not a whole number; %s", s, words[0], form)
	}
	if n < 1 || n > MaxLimitCount {
		return Limit{}, fmt.Errorf("limit %q: the count must be from 1 to %d, not %d", s, MaxLimitCount, n)
	}
	rest := words[2:]
	window, used, err := parseWindow(rest)
	if err != nil {
		return Limit{}, fmt.Errorf("limit %q: %v", s, err)
	}
	rest = rest[used:]
	l := Limit{Count: n, Window: window, Scope: PerSession}
	switch {
	case len(rest) == 0:
	case len(rest) == 2 && rest[0] == "per":
		scope := rest[1]
		if !slices.Contains(limitScopes, scope) {
			return Limit{}, fmt.Errorf("limit %q: unknown scope %q%s (known: %s)", s, scope, suggest(scope, limitScopes), strings.Join(limitScopes, ", "))
		}
		l.Scope = LimitScope(scope)
	default:
		return Limit{}, fmt.Errorf("limit %q: unexpected %q after the window; %s", s, strings.Join(rest, " "), form)
	}
	if l.Window < MinLimitWindow || l.Window > MaxLimitWindow {
		return Limit{}, fmt.Errorf("limit %q: the window must be from 1 second to 31 days, not %s", s, l.Window)
	}
	return l, nil
}

// parseWindow reads the window at the start of words and returns how many words it took.
func parseWindow(words []string) (time.Duration, int, error) {
	if len(words) == 0 {
		return 0, 0, fmt.Errorf("no window after `per`")
	}
	if d, ok := unitWord(words[0]); ok {
		return d, 1, nil
	}
	if k, err := strconv.Atoi(words[0]); err == nil && len(words) > 1 {
		if d, ok := unitWord(words[1]); ok {
			if k < 1 {
				return 0, 0, fmt.Errorf("the window must be positive, not %d %s", k, words[1])
			}
			if k > int(MaxLimitWindow/d) {
				return 0, 0, fmt.Errorf("the window must be from 1 second to 31 days, not %d %s", k, words[1])
			}
			return time.Duration(k) * d, 2, nil
		}
	}
	d, err := time.ParseDuration(words[0])
	if err != nil {
		return 0, 0, fmt.Errorf("the window %q is neither a duration (30s, 1m, 1h30m) nor second, minute, hour or day", words[0])
	}
	if d <= 0 {
		return 0, 0, fmt.Errorf("the window must be positive, not %s", words[0])
	}
	return d, 1, nil
}

// unitWord reads second, minute, hour or day, singular or plural.
func unitWord(w string) (time.Duration, bool) {
	w = strings.TrimSuffix(w, "s")
	for _, u := range limitUnits {
		if w == u.name {
			return u.d, true
		}
	}
	return 0, false
}

// limit reads a rule's `limit`. A limit on an allow rule is refused: the calls over it get
// the rule's decision and the others fall through to the rules below, so an allowing limit
// would only ever let more calls run, never fewer.
func (l *loader) limit(n *yaml.Node, r *Rule) *Limit {
	s, ok := l.str(n, "limit")
	if !ok {
		return nil
	}
	lim, err := ParseLimit(s)
	if err != nil {
		l.errorf(n, "%v", err)
		return nil
	}
	if r.Decision == call.Allow {
		l.errorf(n, "rule %q: a limit cannot go on an allow rule: calls over the limit get the rule's decision and the rest fall through to later rules, so it could only let more calls run; put the limit on an audit, ask or deny rule", r.ID)
		return nil
	}
	return &lim
}
