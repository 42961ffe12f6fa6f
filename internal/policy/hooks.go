package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// HookAllow is how a hook answers a call the policy lets run.
type HookAllow string

// Hook allow forms.
const (
	// HookAllowDefer answers nothing for a call the policy lets run, so the agent's own
	// permission system (its prompts, its allow and deny lists, its modes) still decides:
	// installing moat never makes an agent ask less than it did before. A call that no
	// rule matched is always deferred, whatever this setting says.
	HookAllowDefer HookAllow = "defer"
	// HookAllowExplicit answers an explicit allow for a call an allow or audit rule
	// matched, which in Claude Code, Cursor and Gemini CLI skips the agent's own prompt.
	// It suits teams whose moat policy is their whole permission system.
	HookAllowExplicit HookAllow = "explicit"
)

// HookAsk is how a hook answers a call the policy asks about.
type HookAsk string

// Hook ask forms.
const (
	// HookAskAuto sends an ask only where the agent is known to show it to the user
	// (Claude Code in its default and plan modes, Gemini CLI, Cursor's shell and MCP
	// events) and a deny that says how to allow the call everywhere else; in a
	// non-interactive run (CI=true, MOAT_NONINTERACTIVE=1) every ask is a deny.
	HookAskAuto HookAsk = "auto"
	// HookAskDeny denies every call the policy asks about, with the reason and how to
	// allow it: for runs where nobody is there to answer.
	HookAskDeny HookAsk = "deny"
)

var (
	hookAllowForms = []string{string(HookAllowDefer), string(HookAllowExplicit)}
	hookAskForms   = []string{string(HookAskAuto), string(HookAskDeny)}
	hooksKeys      = []string{"allow", "ask", "deadline"}
)

// Bounds of a hook's deadline. Below the lower one a busy machine would fail calls that
// were fine; above the upper one an agent's own timeout may come first, and agents let a
// timed-out hook's call through (Gemini CLI after 60 s, Claude Code and Codex after 600).
const (
	MinHookDeadline = 100 * time.Millisecond
	MaxHookDeadline = 30 * time.Second
)

// Hooks is the policy's hooks section: how its decisions are put to each agent.
type Hooks struct {
	Allow HookAllow
	Ask   HookAsk
	// Deadline is how long a hook may take before it answers in the agent's fail-closed
	// form, whatever it waits on; 0 leaves it to MOAT_HOOK_DEADLINE or moat's default.
	Deadline time.Duration
}

// ParseHookDeadline reads a hook deadline written as a Go duration ("2s", "1500ms")
// within MinHookDeadline and MaxHookDeadline.
func ParseHookDeadline(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 2s or 1500ms", s)
	}
	if d < MinHookDeadline || d > MaxHookDeadline {
		return 0, fmt.Errorf("%s is not between %s and %s", d, MinHookDeadline, MaxHookDeadline)
	}
	return d, nil
}

// DefaultHooks add protection and never remove it: allows defer to the agent, asks are
// sent only where they hold.
var DefaultHooks = Hooks{Allow: HookAllowDefer, Ask: HookAskAuto}

func (l *loader) hooks(n *yaml.Node) Hooks {
	out := DefaultHooks
	fields, ok := l.mapping(n, "hooks", hooksKeys)
	if !ok {
		return out
	}
	for _, f := range fields {
		s, ok := l.str(f.value, "hooks."+f.key)
		if !ok {
			continue
		}
		if f.key == "deadline" {
			d, err := ParseHookDeadline(s)
			if err != nil {
				l.errorf(f.value, "hooks.deadline: %v", err)
				continue
			}
			out.Deadline = d
			continue
		}
		forms := hookAllowForms
		if f.key == "ask" {
			forms = hookAskForms
		}
		if !slices.Contains(forms, s) {
			l.errorf(f.value, "hooks.%s must be one of %s, not %q%s", f.key, strings.Join(forms, ", "), s, suggest(s, forms))
			continue
		}
		switch f.key {
		case "allow":
			out.Allow = HookAllow(s)
		case "ask":
			out.Ask = HookAsk(s)
		}
	}
	return out
}
