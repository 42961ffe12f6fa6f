package redact

import "regexp"

// patterns matches values that should never reach log output. The list is
// intentionally conservative: false positives only cost readability.
var patterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(authorization:\s*bearer\s+)[A-Za-z0-9._~+/-]+=*`),
	regexp.MustCompile(`(?i)(password=)[^&\s]+`),
	regexp.MustCompile(`(?i)("(?:api_key|secret|token)"\s*:\s*")[^"]*`),
	regexp.MustCompile(`(postgres(?:ql)?://[^:]+:)[^@]+`),
}

// String replaces secret-looking values in s with "[REDACTED]".
func String(s string) string {
	for _, p := range patterns {
		s = p.ReplaceAllString(s, "${1}[REDACTED]")
	}
	return s
}
