// Package daemonenv names the environment variables a client of moat's daemon hands it.
// The daemon answers for processes that may run with other variables than its own (an
// agent started with another HOME, a test's fake HOME, a service manager's short PATH),
// and a decision must not depend on whose process made it. It imports nothing beyond the
// standard library, so that the thin hook client can link it.
package daemonenv

import (
	"fmt"
	"sort"
	"strings"
)

// service are the variables that shape the decision service itself: where the user's
// policy, trust records and audit log are (HOME and the XDG directories, TMPDIR for the
// runtime directory), which policy applies (MOAT_POLICY), and where a bare `moat` is
// found (PATH, for the guard of moat's own commands).
var service = [...]string{
	"HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "TMPDIR",
	"MOAT_POLICY", "PATH",
}

// Service returns the names of the variables that shape the decision service: the
// daemon keeps one service per distinct set of their values.
func Service() []string { return service[:] }

// IsService reports whether name is one of Service.
func IsService(name string) bool {
	for _, n := range service {
		if n == name {
			return true
		}
	}
	return false
}

// Capture is the values of the service variables as getenv gives them; an unset or
// empty variable is absent.
func Capture(getenv func(string) string) map[string]string {
	env := make(map[string]string, len(service))
	for _, n := range service {
		if v := getenv(n); v != "" {
			env[n] = v
		}
	}
	return env
}

// Check refuses an environment that names a variable other than the service's: a client
// and a daemon that disagree on the list must not be served as if they agreed.
func Check(env map[string]string) error {
	for n := range env {
		if !IsService(n) {
			return fmt.Errorf("environment variable %q is not one the daemon's service depends on", n)
		}
	}
	return nil
}

// Key is a canonical form of env, the same for equal environments (an empty value is the
// same as an absent one).
func Key(env map[string]string) string {
	names := make([]string, 0, len(env))
	for n, v := range env {
		if v != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s=%q\n", n, env[n])
	}
	return b.String()
}
