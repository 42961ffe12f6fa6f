package sandbox

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan/secrets"
)

// secretNameWords make a variable's name one of a secret when they appear in it (lower
// case, separators removed).
var secretNameWords = []string{
	"secret", "token", "passw", "passphrase", "credential", "apikey", "accesskey",
	"privatekey", "signingkey", "encryptionkey", "sessionkey", "masterkey", "clientkey",
}

// secretNameParts make a name one of a secret when they are a whole word of it.
var secretNameParts = []string{"auth", "pass", "pat", "key", "pwd", "cookie"}

// keptAlways are never dropped: the sandbox itself and every program need them.
var keptAlways = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "PWD", "OLDPWD", "LANG", "TMPDIR"}

// LooksSecret reports whether an environment variable looks like it holds a secret: by
// its name (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASS, SSH_AUTH_SOCK), or by a value
// in a known credential format.
func LooksSecret(name, value string) bool {
	if slices.Contains(keptAlways, name) {
		return false
	}
	parts := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	joined := strings.Join(parts, "")
	for _, w := range secretNameWords {
		if strings.Contains(joined, w) {
			return true
		}
	}
	for _, p := range parts {
		if slices.Contains(secretNameParts, p) {
			return true
		}
	}
	return len(value) >= 8 && len(secrets.Find(value)) > 0
}

// SecretLooking tells, for variables of an environment ("NAME=value"), whether LooksSecret
// reports them. Working it out starts the secret scanner, a fraction of a millisecond in
// a fresh process: a launch does it while it waits for the daemon.
type SecretLooking map[string]bool

// FindSecretLooking tells of every variable of environ whether it looks like a secret.
func FindSecretLooking(environ []string) SecretLooking {
	s := make(SecretLooking, len(environ))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		s[kv] = LooksSecret(name, value)
	}
	return s
}

// looksSecret is LooksSecret for kv, as s tells it when it holds kv.
func (s SecretLooking) looksSecret(kv string) bool {
	if secret, ok := s[kv]; ok {
		return secret
	}
	name, value, _ := strings.Cut(kv, "=")
	return LooksSecret(name, value)
}

// FilterEnv returns the variables of environ that may reach the sandboxed command, and
// the names of those dropped: those that look like secrets unless f allows them, and
// those f denies.
func FilterEnv(environ []string, f policy.EnvFilter) (kept, dropped []string) {
	return filterEnv(environ, f, nil)
}

// filterEnv is FilterEnv with the variables that known tells of classified by it.
func filterEnv(environ []string, f policy.EnvFilter, known SecretLooking) (kept, dropped []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		drop := matchAny(f.Deny, name) || known.looksSecret(kv) && !matchAny(f.Allow, name)
		if drop {
			dropped = append(dropped, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, dropped
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}
