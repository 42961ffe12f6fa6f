package secrets

import (
	"math"
	"strings"

	"github.com/moatdev/moat/internal/scan/textmatch"
)

// entropy returns the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// placeholderParts are substrings (compared in lower case) that mark a value as a stand-in
// for a secret rather than one: documentation, templates and masked output.
var placeholderParts = []string{
	"example", "...", "changeme", "change_me", "change-me", "changethis", "replaceme",
	"replace_me", "replace-me", "your_", "your-", "_here", "-here", "placeholder", "dummy",
	"redacted", "sample", "${", "{{", "}}", "$(", "#{", "%s", "%v", "%(",
}

// shortPlaceholderParts are placeholder substrings short enough to occur by chance in a
// long random value, so they are only looked for in values of up to 256 bytes.
var shortPlaceholderParts = []string{"xxxx", "****", "fake", "•••"}

// placeholderWords are whole values (in lower case) that stand for a secret.
var placeholderWords = []string{
	"password", "passwd", "pass", "secret", "token", "apikey", "api_key", "test", "testing",
	"none", "null", "nil", "undefined", "true", "false", "yes", "no", "required", "optional",
	"string", "str", "hidden", "masked", "empty", "default", "foo", "bar", "baz", "foobar",
	"user", "username", "admin", "root", "guest", "demo", "mysecret", "secretkey", "mypassword",
	"qwerty", "abc123", "123456", "1234567", "12345678", "123456789", "1234567890", "letmein",
}

// documentationMarks are the placeholder parts that documentation writes into a value
// otherwise shaped as a real one: AWS's AKIAIOSFODNN7EXAMPLE and its secret key, and a
// key cut short with "..." (a private key's block whose body ends in "...").
var documentationMarks = []string{"example", "sample", "..."}

// documentationKey reports whether v is a placeholder only for a documentation mark in
// it: without them, it is no stand-in.
func documentationKey(v string) bool {
	lower := strings.ToLower(v)
	rest := lower
	for _, m := range documentationMarks {
		rest = strings.ReplaceAll(rest, m, "")
	}
	return rest != lower && len(rest) >= len(lower)/2 && !isPlaceholder(rest)
}

// isPlaceholder reports whether v is a stand-in for a secret: a documentation or template
// value, a masked one, or one character repeated.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	lower := strings.ToLower(v)
	for _, p := range placeholderParts {
		if strings.Contains(lower, p) {
			return true
		}
	}
	if len(v) <= 256 {
		for _, p := range shortPlaceholderParts {
			if strings.Contains(lower, p) {
				return true
			}
		}
	}
	for _, w := range placeholderWords {
		if lower == w {
			return true
		}
	}
	switch {
	case strings.HasPrefix(lower, "your"), strings.HasPrefix(lower, "insert"), strings.HasPrefix(lower, "enter"):
		return true
	case strings.Contains(v, "<") && strings.Contains(v, ">"):
		return true // <token>, <your-key>
	case v[0] == '$' && len(v) > 1 && (isLetter(v[1]) || v[1] == '_' || v[1] == '{' || v[1] == '('):
		return true // $VAR, ${VAR}, $(cmd)
	case v[0] == '{' && v[len(v)-1] == '}':
		return true // {password}
	case strings.Count(v, v[:1]) == len(v):
		return true // aaaaaaaa, 00000000
	}
	return false
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// isNameByte reports whether c can occur in a key name: an identifier, a dotted or dashed
// configuration key.
func isNameByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '-' || c == '.'
}

// charClasses reports which kinds of character v contains.
func charClasses(v string) (lower, upper, digit, other bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case isDigit(c):
			digit = true
		default:
			other = true
		}
	}
	return
}

// isHex reports whether v is made of hexadecimal digits only.
func isHex(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !isDigit(c) && !('a' <= c|0x20 && c|0x20 <= 'f') {
			return false
		}
	}
	return v != ""
}

// isUUID reports whether v is a UUID in its 8-4-4-4-12 form.
func isUUID(v string) bool {
	if len(v) != 36 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if v[i] != '-' {
				return false
			}
		} else if !isHex(v[i : i+1]) {
			return false
		}
	}
	return true
}

// hashPrefixes introduce digests that look random but are not secrets: subresource
// integrity (package-lock.json), go.sum, container digests.
var hashPrefixes = []string{"sha1-", "sha256-", "sha384-", "sha512-", "sha1:", "sha256:", "sha512:", "h1:", "md5-", "md5:"}

// looksLikeCode reports whether v is more likely part of a program, a path, a URL, a
// version or a digest than a secret value.
func looksLikeCode(v string) bool {
	lower := strings.ToLower(v)
	for _, p := range hashPrefixes {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	switch {
	case strings.Contains(v, "://"), strings.HasPrefix(v, "data:"):
		return true
	case strings.HasPrefix(v, "./"), strings.HasPrefix(v, "../"), strings.HasPrefix(v, "~/"):
		return true
	case v[0] == '/' && strings.Count(v, "/") > 1 && !strings.ContainsAny(v, "+=") && !hasUpper(v):
		return true // an absolute path
	case strings.HasPrefix(v, "--"):
		return true // the next flag of a command line
	case isDottedPath(v), isVersion(v), isNumber(v), isCall(v):
		return true
	}
	for _, p := range publicKeyPrefixes {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}

// publicKeyPrefixes begin public keys, which are random-looking but meant to be shared:
// the base64 DER (SubjectPublicKeyInfo) of P-256, P-384, P-521, Ed25519 and RSA
// 1024/2048/4096 keys, and age recipients.
var publicKeyPrefixes = []string{"age1",
	"MFkwEwYHKoZIzj0CAQYI", "MHYwEAYHKoZIzj0CAQYF", "MIGbMBAGByqGSM49AgEG", "MCowBQYDK2VwAyEA",
	"MIGfMA0GCSqGSIb3DQEBAQUAA4GN", "MIIBIjANBgkqhkiG9w0BAQEFAAOC", "MIICIjANBgkqhkiG9w0BAQEFAAOC",
}

// isNumber reports whether v is a number literal: 42, -7, 0x3f, 1e9, 3.14.
func isNumber(v string) bool {
	v = strings.TrimLeft(v, "+-")
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		return isHex(v[2:])
	}
	if v == "" || !isDigit(v[0]) {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isDigit(c) && c != '.' && c != '_' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

func hasUpper(v string) bool {
	_, upper, _, _ := charClasses(v)
	return upper
}

// isDottedPath reports whether v is a chain of identifiers, a.b.c: a field access or a
// message key, not a value.
func isDottedPath(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || isDigit(p[0]) {
			return false
		}
		for i := 0; i < len(p); i++ {
			if !isLetter(p[i]) && p[i] != '_' && p[i] != '$' {
				return false
			}
		}
	}
	return true
}

// isVersion reports whether v is a version number such as 1.2.3 or v2.0.0-rc1.
func isVersion(v string) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "^"), "~")
	v = strings.TrimPrefix(v, "v")
	if v == "" || !isDigit(v[0]) {
		return false
	}
	dots := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '.':
			dots++
		case isDigit(c):
		case c == '-' || c == '+':
			return dots > 0 // a pre-release or build suffix follows
		default:
			return false
		}
	}
	return dots > 0
}

// notSecretNameParts are words that, anywhere in a key name, say that the value is about a
// secret rather than the secret itself: its id, its name, its length, where it is kept.
var notSecretNameParts = textmatch.WordSet{
	"checksum", "count", "cursor", "description", "digest", "dir", "enabled", "endpoint", "env",
	"error", "expiration", "expires", "expiry", "fd", "field", "file", "fingerprint", "format",
	"generator", "hash", "hashed", "header", "hint", "host", "id", "ids", "integrity", "kind",
	"label", "len", "length", "manager", "max", "md5", "message", "method", "min", "mode",
	"msg", "name", "names", "next", "page", "path", "pattern", "placeholder", "policy",
	"prefix", "prompt", "provider", "pub", "public", "ref", "regex", "required", "rotation",
	"scope", "scopes", "sha", "sha1", "sha256", "sha512", "size", "stdin", "store", "suffix", "template",
	"timeout", "tokenizer", "tokens", "ttl", "type", "uri", "url", "usage", "uuid", "validator",
	"var", "version",
}

// notSecretName reports whether the key name marks its value as not itself a secret.
func notSecretName(name string, extra textmatch.WordSet) bool {
	for _, p := range textmatch.IdentWords(name) {
		if notSecretNameParts.Has(p) || extra.Has(p) {
			return true
		}
	}
	return false
}

// isCall reports whether v is a function call as code writes it: a name, dotted or not,
// then its arguments in brackets (cookie = nt._add_dll_directory(path)).
func isCall(v string) bool {
	open := strings.IndexByte(v, '(')
	if open <= 0 || !strings.HasSuffix(v, ")") {
		return false
	}
	for i, r := range v[:open] {
		if !(r == '_' || r == '$' || r == '.' && i > 0 || 'a' <= r|0x20 && r|0x20 <= 'z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
