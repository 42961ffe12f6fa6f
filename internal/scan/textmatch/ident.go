package textmatch

import "strings"

// IdentWords splits an identifier into lower-case words at every character that is not
// an ASCII letter or digit, and at camel case: "dbPassword_HASH" gives db, password,
// hash; "APIKey" gives api, key; "doDelete" gives do, delete.
func IdentWords(name string) []string {
	var parts []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			parts = append(parts, strings.ToLower(name[start:end]))
		}
		start = -1
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLower(c|0x20) && !isDigit(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := name[i-1]
		upper := 'A' <= c && c <= 'Z'
		switch {
		case upper && (isLower(prev) || isDigit(prev)):
			flush(i) // fooBar, v2Key
			start = i
		case upper && 'A' <= prev && prev <= 'Z' && i+1 < len(name) && isLower(name[i+1]):
			flush(i) // APIKey → API, Key
			start = i
		}
	}
	flush(len(name))
	return parts
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
