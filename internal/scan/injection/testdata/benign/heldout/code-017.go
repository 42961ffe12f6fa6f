package redact

import "regexp"

// Patterns that are redacted from agent transcripts before they are stored.
// Keep this list in sync with docs/redaction.md.
var patterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(authorization:\s*bearer\s+)[A-Za-z0-9._~+/=-]+`),
	regexp.MustCompile(`(?i)(password\s*[:=]\s*)\S+`),
	regexp.MustCompile(`(?i)(api[_-]?key\s*[:=]\s*)\S+`),
	regexp.MustCompile(`(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----)`),
}

// String replaces secret values with [REDACTED], keeping the key name so the
// transcript still makes sense to a reader.
func String(s string) string {
	for i, re := range patterns {
		if i == 3 {
			s = re.ReplaceAllString(s, "$1\n[REDACTED]\n$2")
			continue
		}
		s = re.ReplaceAllString(s, "${1}[REDACTED]")
	}
	return s
}
