package policy

import (
	"slices"
	"strings"

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
	hooksKeys      = []string{"allow", "ask"}
)

// Hooks is the policy's hooks section: how its decisions are put to each agent.
type Hooks struct {
	Allow HookAllow
	Ask   HookAsk
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
