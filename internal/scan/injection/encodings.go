package injection

import (
	"encoding/base64"
	"encoding/hex"
	"iter"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// EncodedTexts yields the stretches of s that are text written in an encoding a person
// does not read, with the text they decode to when that reads as words: runs of at
// least minEncoded base64 or hex bytes; binary octets or hex pairs written one per word
// ("01001001 00100000", "49 67 6e"); Morse code; and letters rotated through the
// alphabet (ROT13, a Caesar shift). Nobody encodes prose for a human reader, so such
// text is read for instructions (in prompts, tool outputs, tool definitions).
func EncodedTexts(s string) iter.Seq[EncodedText] {
	return func(yield func(EncodedText) bool) {
		for _, decoder := range []func(string, func(EncodedText) bool) bool{base64Runs, wordCodeRuns, rotatedRuns} {
			if !decoder(s, yield) {
				return
			}
		}
	}
}

// base64Runs yields the runs of base64 or hex bytes that decode to readable text; it
// returns false when yield does.
func base64Runs(s string, yield func(EncodedText) bool) bool {
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && isBase64Byte(s[j]) {
			j++
		}
		if j-i >= minEncoded {
			if text, ok := decodeRun(s[i:j]); ok && !yield(EncodedText{i, j, text}) {
				return false
			}
		}
		i = j + 1
	}
	return true
}

func isBase64Byte(c byte) bool { return base64Bytes[c] }

// base64Bytes marks the bytes of the standard and URL-safe base64 alphabets and padding.
var base64Bytes = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_") {
		t[c] = true
	}
	return t
}()

// decodeRun decodes a run as hex or base64 and reports whether the result reads as
// text.
func decodeRun(run string) (string, bool) {
	raw, err := DecodeHexOrBase64(run)
	if err != nil {
		return "", false
	}
	return readable(raw)
}

// DecodeHexOrBase64 decodes s as hex when it is only hex digits of an even count, else
// as base64, standard or URL-safe, padded or not.
func DecodeHexOrBase64(s string) ([]byte, error) {
	if len(s)%2 == 0 && strings.Trim(s, "0123456789abcdefABCDEF") == "" {
		return hex.DecodeString(s)
	}
	trimmed := strings.TrimRight(s, "=")
	raw, err := base64.RawStdEncoding.DecodeString(trimmed)
	if err != nil {
		raw, err = base64.RawURLEncoding.DecodeString(trimmed)
	}
	return raw, err
}

// readable reports whether raw reads as text: valid UTF-8, mostly letters and spaces,
// with at least three words.
func readable(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	text := string(raw)
	letters, spaces := 0, 0
	for _, r := range text {
		switch {
		case r == ' ':
			spaces++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsPunct(r):
			letters++
		}
	}
	n := utf8.RuneCountInString(text)
	return text, spaces >= 2 && float64(letters+spaces) >= 0.9*float64(n)
}

// minCodeWords is the fewest code words (octets, hex pairs, Morse letters) from which a
// run is decoded: a sentence of three words has more, a version number or a short
// binary flag field fewer.
const minCodeWords = 10

// wordCodeRuns yields the runs of code words separated by blanks (binary octets, hex
// pairs, Morse letters with '/' between words) that decode to readable text; it returns
// false when yield does. It looks at each word once: a word that is no code word is
// skipped whole.
func wordCodeRuns(s string, yield func(EncodedText) bool) bool {
	for i := 0; i < len(s); {
		end := wordEnd(s, i)
		kind := codeKind(s[i:end])
		if kind == noCode || (i > 0 && !opensCode(s[i-1])) {
			i = end + 1
			continue
		}
		j, n := codeRun(s, i, kind)
		if n >= minCodeWords {
			if text, ok := decodeWordCode(kind, s[i:j]); ok && !yield(EncodedText{i, j, text}) {
				return false
			}
		}
		i = j + 1
	}
	return true
}

type wordCode int

const (
	noCode wordCode = iota
	octets
	hexPairs
	morse
)

// wordEnd is the end of the word that starts at s[i]: the next blank, or the end of s.
func wordEnd(s string, i int) int {
	for i < len(s) && !isBlank(s[i]) {
		i++
	}
	return i
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// opensCode reports whether a run of code words may start after c: a blank, or a quote
// or bracket that opens it.
func opensCode(c byte) bool {
	return isBlank(c) || c == '\'' || c == '"' || c == '>' || c == '(' || c == ':'
}

// codeRun reads the run of code words of kind that starts at s[i], one or a few blanks
// apart (a '/' word between Morse words), and returns its end and its number of words.
func codeRun(s string, i int, kind wordCode) (int, int) {
	end, n := i, 0
	for at := i; at < len(s); {
		next := wordEnd(s, at)
		w := s[at:next]
		if w == "" || (codeKind(w) != kind && !(kind == morse && w == "/")) {
			break
		}
		end, n = next, n+1
		at = next
		for at < len(s) && (s[at] == ' ' || s[at] == '\t') {
			at++
		}
		if at == next {
			break
		}
	}
	return end, n
}

// codeKind is the kind of code word w is.
func codeKind(w string) wordCode {
	switch {
	case len(w) == 8 && onlyBytes(w, "01"):
		return octets
	case len(w) == 2 && isHexDigit(w[0]) && isHexDigit(w[1]):
		return hexPairs
	case len(w) >= 1 && len(w) <= 7 && onlyBytes(w, ".-"):
		return morse
	}
	return noCode
}

// onlyBytes reports whether every byte of w is one of the two bytes of set.
func onlyBytes(w, set string) bool {
	for k := 0; k < len(w); k++ {
		if w[k] != set[0] && w[k] != set[1] {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// decodeWordCode decodes a run of code words and reports whether it reads as text.
func decodeWordCode(kind wordCode, run string) (string, bool) {
	words := strings.Fields(run)
	switch kind {
	case octets, hexPairs:
		raw := make([]byte, 0, len(words))
		base := 2
		if kind == hexPairs {
			base = 16
		}
		for _, w := range words {
			v := 0
			for _, c := range []byte(w) {
				v = v*base + hexDigit(c)
			}
			raw = append(raw, byte(v))
		}
		return readable(raw)
	case morse:
		if !strings.Contains(run, ".") || !strings.Contains(run, "-") {
			return "", false // a rule of dashes, a row of dots
		}
		var b strings.Builder
		for _, w := range words {
			if w == "/" {
				b.WriteByte(' ')
				continue
			}
			c, ok := morseLetters()[w]
			if !ok {
				return "", false
			}
			b.WriteByte(c)
		}
		return readable([]byte(strings.ToLower(b.String())))
	}
	return "", false
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 0
}

// morseLetters maps International Morse code to letters, digits and common punctuation.
var morseLetters = sync.OnceValue(func() map[string]byte {
	const table = "A.- B-... C-.-. D-.. E. F..-. G--. H.... I.. J.--- K-.- L.-.. M-- N-. O--- P.--. Q--.- R.-. S... T- U..- V...- W.-- X-..- Y-.-- Z--.. " +
		"0----- 1.---- 2..--- 3...-- 4....- 5..... 6-.... 7--... 8---.. 9----. ..-.-.- ,--..-- ?..--.. '.----. !-.-.-- :---... =-...- @.--.-."
	m := map[string]byte{}
	for _, e := range strings.Fields(table) {
		m[e[1:]] = e[0]
	}
	return m
})

// Rotated text: letters shifted through the alphabet (ROT13, Caesar's 3) read as
// words of no language until shifted back. The shift of a stretch of words is the one
// that gives its letters English's frequencies (one count of the letters, then 26
// shifts of 26 counts); when that is not 0, the stretch shifted back is the text if
// many of its words are then common English words.
const (
	minRotatedWords = 6
	// minRotatedLetters is the fewest letters whose frequencies tell a shift.
	minRotatedLetters = 30
)

// rotatedRuns yields the stretches of words that read as English once their letters are
// rotated back; it returns false when yield does.
func rotatedRuns(s string, yield func(EncodedText) bool) bool {
	for i := 0; i < len(s); {
		j, words := letterStretch(s, i)
		if words >= minRotatedWords {
			run := s[i:j]
			if shift := likelyShift(run); shift != 0 && commonShare(run, shift) >= 0.35 {
				if !yield(EncodedText{i, j, rotate(run, shift)}) {
					return false
				}
			}
		}
		i = max(j, i+1)
	}
	return true
}

// englishFrequency is how often each letter occurs in English text, in tenths of a
// percent.
var englishFrequency = [26]float64{82, 15, 28, 43, 127, 22, 20, 61, 70, 1.5, 7.7, 40, 24, 67, 75, 19, 1, 60, 63, 91, 28, 9.8, 24, 1.5, 20, 0.7}

// likelyShift is the shift that brings the letters of run closest to English's
// frequencies (chi-squared), 0 for too few letters.
func likelyShift(run string) int {
	var counts [26]float64
	total := 0.0
	for k := 0; k < len(run); k++ {
		if c := run[k] | 0x20; 'a' <= c && c <= 'z' {
			counts[c-'a']++
			total++
		}
	}
	// English's nine commonest letters are two thirds of its text, and of most code
	// and other languages in Latin script; under a shift they are at most half of it.
	common := counts['e'-'a'] + counts['t'-'a'] + counts['a'-'a'] + counts['o'-'a'] + counts['i'-'a'] + counts['n'-'a'] + counts['s'-'a'] + counts['h'-'a'] + counts['r'-'a']
	if total < minRotatedLetters || common >= 0.55*total {
		return 0
	}
	best, bestScore := 0, 0.0
	for shift := range 26 {
		score := 0.0
		for k, f := range englishFrequency {
			want := f / 1000 * total
			d := counts[(k+shift)%26] - want
			score += d * d / want
		}
		if shift == 0 || score < bestScore {
			best, bestScore = shift, score
		}
	}
	return best
}

// letterStretch returns the end of the stretch from s[i] made of ASCII letters, blanks
// and sentence punctuation, and its number of words; it is empty when s[i] is none of
// those.
func letterStretch(s string, i int) (int, int) {
	j, words, inWord := i, 0, false
	for ; j < len(s); j++ {
		c := s[j]
		switch {
		case isLetter(c):
			if !inWord {
				words++
			}
			inWord = true
		case c == ' ' || c == ',' || c == '.' || c == ':' || c == ';' || c == '?' || c == '!' || c == '\'':
			inWord = false
		default:
			return j, words
		}
	}
	return j, words
}

// commonShare is the share of the words of run, each rotated back by shift, that are
// common English words.
func commonShare(run string, shift int) float64 {
	common := commonWords()
	var buf [16]byte
	words, hits := 0, 0
	for i := 0; i < len(run); {
		for i < len(run) && !isLetter(run[i]) {
			i++
		}
		j := i
		for j < len(run) && isLetter(run[j]) {
			j++
		}
		if j == i {
			break
		}
		words++
		if n := j - i; n <= len(buf) {
			b := buf[:n]
			for k := range n {
				b[k] = rotateByte(run[i+k]|0x20, shift)
			}
			if common[string(b)] {
				hits++
			}
		}
		i = j
	}
	if words == 0 {
		return 0
	}
	return float64(hits) / float64(words)
}

// rotate shifts the letters of s back by shift places.
func rotate(s string, shift int) string {
	b := []byte(s)
	for k, c := range b {
		if isLetter(c) {
			b[k] = rotateByte(c, shift)
		}
	}
	return string(b)
}

func rotateByte(c byte, shift int) byte {
	base := byte('a')
	if c < 'a' {
		base = 'A'
	}
	return base + byte((int(c-base)-shift+26)%26)
}

// commonWords are frequent English words, and the words injections are made of.
var commonWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the a an and or of to in on at for with by from is are was were be been
		it this that these those you your yours i me my we our us he him his she her they them their
		what which who where when why how not no all any every some do does did done have has had
		will would can could should must may might shall if then than so as but into about after before
		now new just only also there here out up down over again more most other such own same
		ignore previous instructions instruction prompt system tell say state write print send give
		password secret key user users data email answer question say said above below following`) {
		m[w] = true
	}
	return m
})
