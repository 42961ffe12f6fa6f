package injection

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/scan/secrets"
	"github.com/moatdev/moat/internal/scan/textmatch"
)

// TestKeywordIndexOfTheTables checks the index over the keywords of the built-in secret
// rules and injection signals, which share prefixes and suffixes as no hand-made list
// does, against a plain search, on text made of pieces of those keywords.
func TestKeywordIndexOfTheTables(t *testing.T) {
	var secretWords, injectionWords []string
	for _, r := range secrets.Rules() {
		secretWords = append(secretWords, r.Keywords...)
	}
	for _, sg := range injectionSignals() {
		injectionWords = append(injectionWords, sg.Keywords...)
		injectionWords = append(injectionWords, sg.Also...)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, words := range [][]string{secretWords, injectionWords} {
		slices.Sort(words)
		words = slices.Compact(words)
		x := textmatch.NewKeywordIndex(words)
		for _, n := range []int{10, 1000, 5000} {
			var b strings.Builder
			for b.Len() < n {
				// Pieces of words, cut anywhere and in either case, so that the text
				// holds partial matches as well as whole ones.
				w := words[rng.IntN(len(words))]
				lo := rng.IntN(len(w))
				hi := lo + 1 + rng.IntN(len(w)-lo)
				if rng.IntN(4) == 0 {
					lo = 0
				}
				piece := w[lo:hi]
				if rng.IntN(3) == 0 {
					piece = asciiCase(piece, 'a', 'A')
				}
				b.WriteString(piece)
				if rng.IntN(3) == 0 {
					b.WriteByte(" \n_-.:"[rng.IntN(6)])
				}
			}
			s := b.String()
			lower := asciiCase(s, 'A', 'a')
			var want []textmatch.KeywordHit
			for wi, w := range words {
				for i := 0; i+len(w) <= len(lower); i++ {
					if lower[i:i+len(w)] == w {
						want = append(want, textmatch.KeywordHit{Word: wi, Start: i})
					}
				}
			}
			got := x.Find(s, nil)
			byPlace := func(a, b textmatch.KeywordHit) int {
				return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Word, b.Word))
			}
			slices.SortFunc(got, byPlace)
			slices.SortFunc(want, byPlace)
			if !slices.Equal(got, want) {
				t.Errorf("%d words, text of %d bytes: %d hits, want %d", len(words), len(s), len(got), len(want))
			}
		}
	}
}

// asciiCase shifts the ASCII letters of s from the case whose a is from to the case
// whose a is to, leaving other bytes (and so any UTF-8, whole or cut) as they are: the
// index folds ASCII case only.
func asciiCase(s string, from, to byte) string {
	b := []byte(s)
	for i, c := range b {
		if from <= c && c <= from+25 {
			b[i] = c - from + to
		}
	}
	return string(b)
}
