package daemonenv

import (
	"fmt"
	"slices"
)

// hook are the variables the hook path reads beyond the service's: the project directory
// each agent exports, whether anyone is there to answer an ask, and the hook's
// deadline. A thin hook client relays them with the payload, since the daemon's own
// values are not the agent's. TestHookEnv (internal/cli) answers every hook golden case
// and fails when the hook path asks for a variable in neither list.
var hook = [...]string{
	"CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CODEX_PROJECT_DIR",
	"MOAT_NONINTERACTIVE", "CI", "GITHUB_ACTIONS",
	"MOAT_HOOK_DEADLINE",
}

// Hook returns the names of the variables the hook path reads beyond Service's.
func Hook() []string { return hook[:] }

// CaptureHook is what a thin hook client relays: the values of the service's and the
// hook's variables as getenv gives them; an unset or empty variable is absent.
func CaptureHook(getenv func(string) string) map[string]string {
	env := Capture(getenv)
	for _, n := range hook {
		if v := getenv(n); v != "" {
			env[n] = v
		}
	}
	return env
}

// SplitHook separates an environment a hook client relayed into the service's part
// (for the daemon's service of that environment) and refuses a variable in neither
// list: a client and a daemon that disagree on them must not be served as if they
// agreed.
func SplitHook(env map[string]string) (service map[string]string, err error) {
	service = make(map[string]string, len(env))
	for n, v := range env {
		switch {
		case IsService(n):
			service[n] = v
		case slices.Contains(hook[:], n):
		default:
			return nil, fmt.Errorf("environment variable %q is not one the hook depends on", n)
		}
	}
	return service, nil
}
