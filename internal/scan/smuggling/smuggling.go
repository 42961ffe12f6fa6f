package smuggling

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan/confusable"
)

// Unicode smuggling: characters that a reader does not see, or sees as something else,
// hiding what a command, path or text really says. Emoji sequences are ordinary text: a
// zero-width joiner between two pictographs, or one variation selector after a
// pictograph, is not reported.

// Finding ids of Unicode smuggling.
const (
	FindZeroWidth         = "unicode.zero-width"
	FindBidiControl       = "unicode.bidi-control"
	FindTagCharacters     = "unicode.tag-characters"
	FindVariationSelector = "unicode.variation-selector"
	FindCompatibilityForm = "unicode.compatibility-form"
)

// FindingIDs lists the ids Unicode reports.
var FindingIDs = []string{FindZeroWidth, FindBidiControl, FindTagCharacters, FindVariationSelector, FindCompatibilityForm, FindConfusable}

// Unicode returns the smuggling findings of s: invisible characters (zero-width, bidi
// controls, tag characters with the ASCII they hide, variation selectors used as
// carriers) and compatibility forms that normalise to ASCII (ｒｍ is rm). Evidence gives the
// byte offset and the code points, never more than 80 bytes of text.
func Findings(s string) []call.Finding {
	if isASCII(s) {
		return nil
	}
	var out []call.Finding
	var zw, bidi []string
	var hidden strings.Builder
	tags, carriers, compat := 0, 0, 0
	firstTag, firstCompat := -1, -1
	prev := rune(-1)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		switch {
		case isZeroWidth(r):
			if !(r == '\u200d' && isPictograph(prev) && isPictograph(next)) && !(r == '\ufeff' && i == 0) {
				zw = appendLimited(zw, fmt.Sprintf("U+%04X at %d", r, i))
			}
		case isBidi(r):
			bidi = appendLimited(bidi, fmt.Sprintf("U+%04X at %d", r, i))
		case r >= 0xE0000 && r <= 0xE007F:
			if firstTag < 0 {
				firstTag = i
			}
			tags++
			if r >= 0xE0020 && r <= 0xE007E && hidden.Len() < 80 {
				hidden.WriteByte(byte(r - 0xE0000))
			}
		case isVariationSelector(r):
			// One selector after a pictograph picks its presentation (❤️); anything else
			// carries data.
			if !(r == '\ufe0f' || r == '\ufe0e') || !isPictograph(prev) {
				carriers++
			}
		case r >= utf8.RuneSelf && compatToASCII(r):
			if firstCompat < 0 {
				firstCompat = i
			}
			compat++
		}
		if !isVariationSelector(r) {
			prev = r
		}
		i += size
	}
	if len(zw) > 0 {
		out = append(out, Kinds.New(FindZeroWidth, strings.Join(zw, ", ")))
	}
	if len(bidi) > 0 {
		out = append(out, Kinds.New(FindBidiControl, strings.Join(bidi, ", ")))
	}
	if tags > 0 {
		out = append(out, Kinds.New(FindTagCharacters, fmt.Sprintf("%d tag characters at %d hiding %q", tags, firstTag, hidden.String())))
	}
	if carriers > 0 {
		out = append(out, Kinds.New(FindVariationSelector, fmt.Sprintf("%d variation selectors not after an emoji", carriers)))
	}
	if compat > 0 {
		folded := Fold(s)
		if len(folded) > 60 {
			folded = folded[:57] + "..."
		}
		out = append(out, Kinds.New(FindCompatibilityForm, fmt.Sprintf("%d characters at %d that normalise to ASCII; reads as %q", compat, firstCompat, folded)))
	}
	return out
}

// Fold returns s as analysis should read it: NFKC-normalised (ｒｍ －ｒｆ ／ is rm -rf /)
// with the invisible characters Unicode reports removed. ASCII is returned unchanged.
func Fold(s string) string {
	if isASCII(s) {
		return s
	}
	if hasInvisible(s) {
		s = strings.Map(func(r rune) rune {
			if isZeroWidth(r) || isBidi(r) || r >= 0xE0000 && r <= 0xE007F || isVariationSelector(r) {
				return -1
			}
			return r
		}, s)
	}
	if norm.NFKC.IsNormalString(s) {
		return s // most non-ASCII text (accents, CJK, emoji) is already in NFKC
	}
	return norm.NFKC.String(s)
}

// invisibleLeads are the first bytes, in UTF-8, of every character Fold removes: texts
// without any of them need no closer look.
var invisibleLeads = []string{"\xe2\x80", "\xe2\x81", "\xef\xbb", "\xef\xb8", "\xe1\xa0", "\xc2\xad", "\xd8\x9c", "\xf3\xa0"}

// hasInvisible reports whether s holds a character Fold removes.
func hasInvisible(s string) bool {
	maybe := false
	for _, lead := range invisibleLeads {
		if strings.Contains(s, lead) {
			maybe = true
			break
		}
	}
	if !maybe {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isZeroWidth(r) || isBidi(r) || r >= 0xE0000 && r <= 0xE007F || isVariationSelector(r) {
			return true
		}
		i += size - 1
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isZeroWidth(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\u2061', '\u2062', '\u2063', '\u2064', '\ufeff', '\u180e', '\u00ad':
		return true
	}
	return false
}

func isBidi(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069' || r == '\u200e' || r == '\u200f' || r == '\u061c'
}

func isVariationSelector(r rune) bool {
	return r >= '\ufe00' && r <= '\ufe0f' || r >= 0xE0100 && r <= 0xE01EF
}

// isPictograph reports whether r is drawn as an emoji or a symbol that variation
// selectors and joiners legitimately follow.
func isPictograph(r rune) bool {
	switch r {
	case 0x203C, 0x2049, 0x2122, 0x2139, 0x24C2, 0x3030, 0x303D, 0x3297, 0x3299:
		// ‼ ⁉ ™ ℹ Ⓜ 〰 〽 ㊗ ㊙: emoji by a selector, outside the ranges below.
		return true
	}
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x2190 && r <= 0x21FF ||
		r >= 0x2B00 && r <= 0x2BFF || r == 0x00A9 || r == 0x00AE || r >= 0x2300 && r <= 0x23FF ||
		r >= 0x25A0 && r <= 0x25FF || unicode.Is(unicode.So, r)
}

// compatToASCII reports whether NFKC maps r to ASCII letters, digits or symbols that a
// command could use (fullwidth forms, mathematical alphanumerics, ligatures).
func compatToASCII(r rune) bool {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	f := norm.NFKC.Bytes(buf[:n])
	if len(f) == 0 || string(f) == string(buf[:n]) {
		return false
	}
	for _, c := range f {
		if c >= utf8.RuneSelf || c == ' ' {
			return false
		}
	}
	return true
}

func appendLimited(list []string, s string) []string {
	if len(list) < 5 {
		return append(list, s)
	}
	if len(list) == 5 {
		return append(list, "…")
	}
	return list
}

// FindConfusable is the finding of a command name, path or domain written with letters
// of another script that imitate ASCII (сurl with a Cyrillic с).
const FindConfusable = "unicode.confusable"

// Confusables returns a finding for each part of name (a command name, a path or a
// domain, as what says) that imitates ASCII with look-alike letters of another script:
// the evidence shows the part, what it reads as and the first imitating code points.
// Ordinary words of one non-Latin script are not reported.
func Confusables(what, name string) []call.Finding {
	if isASCII(name) {
		return nil
	}
	var out []call.Finding
	parts := strings.FieldsFunc(name, func(r rune) bool {
		return r == '/' || r == '.' || r == ' ' || r == '\\' || r == ':' || r == '@'
	})
	for _, part := range parts {
		looks := confusable.Lookalikes(part)
		if len(looks) == 0 {
			continue
		}
		var cps []string
		for _, l := range looks {
			cps = appendLimited(cps, fmt.Sprintf("U+%04X as %q", l.Rune, l.ASCII))
		}
		out = append(out, Kinds.New(FindConfusable, fmt.Sprintf("%s part %q reads as %q (%s)",
			what, part, confusable.Skeleton(part), strings.Join(cps, ", "))))
	}
	return out
}
