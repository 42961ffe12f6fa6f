package scan

import (
	"strings"

	"github.com/moatdev/moat/internal/scan/secrets"
)

// MaskPrefix opens every mask Redact writes: "[REDACTED:" KIND "]".
const MaskPrefix = "[REDACTED:"

// Redact returns s with the value of every secret secrets.Find reports replaced by a mask
// naming its kind, "[REDACTED:aws-access-key-id]"; every other byte is left as it was.
func Redact(s string) string {
	found := secrets.Find(s)
	if len(found) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, f := range found {
		b.WriteString(s[prev:f.Start])
		b.WriteString(MaskPrefix)
		b.WriteString(f.Kind())
		b.WriteString("]")
		prev = f.End
	}
	b.WriteString(s[prev:])
	return b.String()
}

// Redactor redacts secrets from the strings given to it; the zero value is ready to use.
type Redactor struct{}

// RedactString returns s with its secrets masked, as Redact does.
func (Redactor) RedactString(s string) string { return Redact(s) }

// SecretValues returns the values of the secrets in s, so that a record can mask them
// wherever else they appear.
func (Redactor) SecretValues(s string) []string {
	found := secrets.Find(s)
	values := make([]string, len(found))
	for i, f := range found {
		values[i] = s[f.Start:f.End]
	}
	return values
}
