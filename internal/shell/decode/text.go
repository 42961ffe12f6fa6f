package decode

import (
	"strings"
	"unicode/utf8"
)

// Rev returns what `rev` prints for s: each line with its characters in reverse order,
// newlines kept where they were. Characters are UTF-8 sequences; a byte that is not part
// of one is reversed as a character of its own, where util-linux rev would stop with an
// error. Only the first MaxOutput bytes of s are read.
func Rev(s string) string {
	s = s[:min(len(s), MaxOutput)]
	var out strings.Builder
	out.Grow(len(s))
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		for end := len(line); end > 0; {
			_, size := utf8.DecodeLastRuneInString(line[:end])
			out.WriteString(line[end-size : end])
			end -= size
		}
		if found {
			out.WriteByte('\n')
		}
		s = rest
	}
	return out.String()
}

// Rot13 returns s with each ASCII letter replaced by the letter 13 places after it in the
// alphabet, wrapping around, as `tr 'A-Za-z' 'N-ZA-Mn-za-m'` does. Only the first MaxOutput
// bytes of s are read.
func Rot13(s string) string {
	s = s[:min(len(s), MaxOutput)]
	out := []byte(s)
	for i, c := range out {
		switch {
		case 'a' <= c && c <= 'z':
			out[i] = 'a' + (c-'a'+13)%26
		case 'A' <= c && c <= 'Z':
			out[i] = 'A' + (c-'A'+13)%26
		}
	}
	return string(out)
}
