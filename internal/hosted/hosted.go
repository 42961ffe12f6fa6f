// Package hosted knows the settings of hosted services (a code host, a CDN, a cloud
// account) that defend them, and reads the nested arguments that change such settings,
// whether an MCP tool's or an HTTP request's body: one reading for both, so that turning
// secret scanning or HTTPS off is judged alike through either.
package hosted

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// defences are the words of a setting that defends a repository, a site or an account
// (squashed: lower case, letters and digits only): secret scanning and push protection,
// vulnerability alerts, code scanning, TLS and HTTPS, a firewall, two-factor
// authentication, audit logs, encryption, deletion protection, branch protection's
// enforcement on administrators.
var defences = []string{"secretscanning", "pushprotection", "vulnerabilityalerts", "dependabotsecurityupdates",
	"advancedsecurity", "codescanning", "ssl", "tls", "alwaysusehttps", "hsts", "waf", "firewall", "securitylevel",
	"mfa", "twofactor", "twofactorrequirement", "auditlog", "auditlogging", "logging", "encryption",
	"deletionprotection", "enforceadmins", "requiredsignatures", "botfightmode", "ddosprotection"}

// SecurityOff says which argument switches a defence off ("" when none does): a key
// naming one (secret_scanning, alwaysUseHttps) set false, "off", "disabled" or "none", or
// to {"status": "disabled"}; or a setting named by value ({"setting": "ssl", "value":
// "off"}). Nested settings are read (FirstNested).
func SecurityOff(args map[string]any) string {
	return FirstNested(args, func(k string, v any, parent map[string]any) string {
		key := Squash(k)
		switch v := v.(type) {
		case map[string]any:
			if Defence(key) {
				if st, ok := v["status"].(string); ok && switchedOff(st) {
					return k + " " + st
				}
				if en, ok := v["enabled"].(bool); ok && !en {
					return k + " disabled"
				}
			}
		case bool:
			if Defence(key) && !v {
				return fmt.Sprintf("%s %v", k, v)
			}
		case string:
			if Defence(key) && switchedOff(v) {
				return k + " " + v
			}
			if (key == "setting" || key == "name" || key == "id") && Defence(Squash(v)) {
				for _, vk := range []string{"value", "status", "state"} {
					if val, ok := parent[vk].(string); ok && switchedOff(val) {
						return v + " " + val
					}
					if val, ok := parent[vk].(bool); ok && !val {
						return v + " false"
					}
				}
			}
		}
		return ""
	})
}

// Defence reports whether a squashed name names a defence, alone or with enabled/status
// after it (ssl_enabled).
func Defence(key string) bool {
	key = strings.TrimSuffix(strings.TrimSuffix(key, "enabled"), "status")
	return slices.Contains(defences, key)
}

// switchedOff reports whether a setting's value switches it off.
func switchedOff(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "disabled", "disable", "false", "none", "0", "essentially_off", "no":
		return true
	}
	return false
}

// Squash returns a name in lower case with only its letters and digits: force_push,
// forcePush and force-push are all forcepush.
func Squash(k string) string {
	var b strings.Builder
	for _, r := range k {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// maxDepth bounds how deep FirstNested reads nested arguments.
const maxDepth = 4

// FirstNested returns the first non-empty answer of match for the arguments, by key in
// sorted order, and then for each nested object's, to maxDepth: match is given the key,
// its value and the object holding it.
func FirstNested(args map[string]any, match func(key string, v any, parent map[string]any) string) string {
	var walk func(m map[string]any, depth int) string
	walk = func(m map[string]any, depth int) string {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if r := match(k, m[k], m); r != "" {
				return r
			}
			if nested, ok := m[k].(map[string]any); ok && depth < maxDepth {
				if r := walk(nested, depth+1); r != "" {
					return r
				}
			}
		}
		return ""
	}
	return walk(args, 0)
}
