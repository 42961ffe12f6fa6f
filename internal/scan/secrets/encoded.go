package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
)

// Encoded secrets: a token written base64-, hex- or URL-encoded into an argument is no
// less a token, and encoding it is how one is slipped past a scanner that reads the text
// as written. EncodedFindings decodes the words that look encoded and looks for
// secrets in what they decode to.

// maxEncodedWords and maxEncodedLen bound the decoding work for one command.
const (
	maxEncodedWords = 256
	maxEncodedLen   = 16 << 10
)

// EncodedFindings returns the findings of secrets in the decoded text of words
// written base64-, hex- or URL-encoded, alone or as the value of a KEY=VALUE pair, a
// query parameter or a header. The evidence names the encoding and the word, never the
// value.
func EncodedFindings(words []string, where string) []call.Finding {
	var out []call.Finding
	for i, w := range words {
		if i >= maxEncodedWords {
			break
		}
		if len(w) > maxEncodedLen || len(w) < minEncodedWord && !strings.Contains(w, "%") {
			continue // too short to hold an encoded token: most words of a command
		}
		eachEncodedPart(w, func(part string) {
			for _, d := range decodings(part) {
				for _, f := range Findings(d.text, "") {
					if slices.ContainsFunc(out, func(g call.Finding) bool { return g.ID == f.ID }) {
						continue
					}
					f.Evidence = shortID(f.ID) + " " + d.encoding + "-encoded in " + where + " word " + itoa(i+1)
					out = append(out, f)
				}
			}
		})
	}
	return out
}

// minEncodedWord is the length below which a word cannot hold an encoded token (the shortest
// tokens the rules know are about 20 characters, longer once encoded).
const minEncodedWord = 16

// eachEncodedPart calls fn with the pieces of a word that may each be an encoded value:
// the word, the value after = or ": ", the token after an authentication scheme, and
// each value of a query string.
func eachEncodedPart(w string, fn func(string)) {
	fn(w)
	if _, v, ok := strings.Cut(w, "="); ok {
		fn(v)
	}
	if _, v, ok := strings.Cut(w, ": "); ok {
		fn(v)
		if _, tok, ok := strings.Cut(v, " "); ok {
			fn(tok) // Authorization: Basic BASE64
		}
	}
	if _, q, ok := strings.Cut(w, "?"); ok {
		for q != "" {
			var kv string
			kv, q, _ = strings.Cut(q, "&")
			if _, v, ok := strings.Cut(kv, "="); ok {
				fn(v)
			}
		}
	}
}

type decoded struct {
	encoding, text string
}

// decodings returns what s decodes to in each encoding it is written in, when the result
// is text.
func decodings(s string) []decoded {
	var out []decoded
	if strings.Contains(s, "%") {
		if t, err := url.QueryUnescape(s); err == nil && t != s && textual(t) {
			out = append(out, decoded{"URL", t})
		}
	}
	if len(s) >= 24 && len(s)%2 == 0 && isHexString(s) {
		if b, err := hex.DecodeString(s); err == nil && textual(string(b)) {
			out = append(out, decoded{"hex", string(b)})
		}
	}
	if len(s) >= 16 && isBase64String(s) {
		trimmed := strings.TrimRight(s, "=")
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(trimmed); err == nil && textual(string(b)) {
				out = append(out, decoded{"base64", string(b)})
				break
			}
		}
	}
	return out
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isBase64String(s string) bool {
	end := len(strings.TrimRight(s, "="))
	if len(s)-end > 2 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// textual reports whether decoded bytes are printable text, as an encoded token is.
func textual(s string) bool {
	if !utf8.ValidString(s) || s == "" {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
