package confusable

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// entry is one row of table: a non-ASCII rune and the printable ASCII character it imitates.
type entry struct {
	r     rune
	ascii byte
}

// ASCII reports the ASCII character r imitates, if r is a non-ASCII confusable of one.
// Characters that are confusable with each other map to one of them: 'l' for the
// lookalikes of l, 1, I and |, 'O' for those of O and 0, the apostrophe for those of the
// apostrophe and the grave accent.
func ASCII(r rune) (byte, bool) {
	if r < utf8.RuneSelf || r > table[len(table)-1].r {
		return 0, false
	}
	// A binary search by hand: sort.Search would call a closure per step, and this runs
	// for every non-ASCII rune of every word moat checks.
	lo, hi := 0, len(table)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if table[m].r < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(table) && table[lo].r == r {
		return table[lo].ascii, true
	}
	return 0, false
}

// Skeleton returns s with every confusable rune replaced by the ASCII character it
// imitates (other runes unchanged). Bytes that are not valid UTF-8 are kept as they are.
// The result is never longer than s, and is s itself when nothing changes. Unlike the
// skeleton of UTS #39 it neither decomposes s nor maps runes to anything but ASCII: é and
// привет's п stay as they are.
func Skeleton(s string) string {
	for i, r := range s {
		if r < utf8.RuneSelf {
			continue
		}
		if _, ok := ASCII(r); ok {
			return skeletonFrom(s, i)
		}
	}
	return s
}

// skeletonFrom is Skeleton once it has found the first confusable, at byte i of s.
func skeletonFrom(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if a, ok := ASCII(r); ok {
			b.WriteByte(a)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Lookalike is one rune of a word that imitates an ASCII character.
type Lookalike struct {
	Offset int // byte offset in the word
	Rune   rune
	ASCII  byte
}

// Lookalikes returns the runes of word (one command name, path segment or domain label)
// that imitate ASCII characters, but only when the word is deceptive: its skeleton is
// entirely ASCII (every non-ASCII rune in it imitates ASCII), or it mixes Latin letters
// with letters of another script (Cyrillic, Greek, Armenian, Cherokee, …). A deceptive
// word has all its lookalikes reported, in order. Whole words in one non-Latin script are
// ordinary text (Russian привет, Greek αλφα in a Greek file name) and are not reported,
// unless every rune imitates ASCII: Cyrillic рор looks exactly like pop.
//
// Scripts are compared within each run of letters and combining marks, so a Russian and
// an English word joined by punctuation (отчет-final, отчет_final.txt) are ordinary text,
// while gіthub and Zürісh are not. Latin mixed with Han, Hiragana, Katakana, Hangul or
// Bopomofo is ordinary Chinese, Japanese or Korean text, which UTS #39 allows in its
// highly restrictive profile. Letters of no particular script (the mathematical
// alphanumerics, such as 𝐜) count as another script when they imitate an ASCII letter or
// digit, since no ordinary word puts them among Latin letters.
//
// Lookalikes returns nil for an ASCII word without allocating.
func Lookalikes(word string) []Lookalike {
	if isASCII(word) {
		return nil
	}
	n, deceptive := scan(word)
	if !deceptive {
		return nil
	}
	out := make([]Lookalike, 0, n)
	for i, r := range word {
		if a, ok := ASCII(r); ok {
			out = append(out, Lookalike{Offset: i, Rune: r, ASCII: a})
		}
	}
	return out
}

// scan returns how many runes of word imitate ASCII, and whether word is deceptive.
func scan(word string) (n int, deceptive bool) {
	allImitate := true           // every non-ASCII rune imitates ASCII
	mixed := false               // some run of letters mixes Latin with another script
	latin, other := false, false // the current run of letters has Latin, another script
	for _, r := range word {
		var ascii byte
		if r >= utf8.RuneSelf {
			a, ok := ASCII(r)
			if ok {
				ascii = a
				n++
			} else {
				allImitate = false
			}
		}
		switch {
		case unicode.IsLetter(r):
			switch script(r, ascii) {
			case scriptLatin:
				latin = true
			case scriptOther:
				other = true
			}
			if latin && other {
				mixed = true
			}
		case unicode.IsMark(r):
			// A combining mark belongs to the letter before it.
		default:
			latin, other = false, false
		}
	}
	return n, n > 0 && (allImitate || mixed)
}

const (
	scriptNeutral = iota // mixes with Latin in ordinary text
	scriptLatin
	scriptOther
)

// script classifies the letter r for the mixed-script check; ascii is the character r
// imitates, or 0.
func script(r rune, ascii byte) int {
	switch {
	case r < utf8.RuneSelf || unicode.Is(unicode.Latin, r):
		return scriptLatin
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo):
		return scriptNeutral
	case unicode.In(r, unicode.Common, unicode.Inherited):
		// 𝐜 and ℯ stand in for Latin letters, but the modifier letters that imitate an
		// apostrophe or a colon are ordinary in Latin words: Kaʻū in Hawaiian.
		if isAlnum(ascii) {
			return scriptOther
		}
		return scriptNeutral
	default:
		return scriptOther
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
