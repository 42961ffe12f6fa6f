package textmatch

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestKeywordIndex(t *testing.T) {
	words := []string{"key", "token", "sk-", "sk_live_", "ghp_", "a", "aa", "://"}
	x := NewKeywordIndex(words)
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "keyKEYtokenTOKENsk-_liveghpaA:/ \n"
	for _, n := range []int{0, 1, 5, 100, 4095, 4096, 4097, 10000, 50000} {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		var want []KeywordHit
		lower := strings.ToLower(s)
		for wi, w := range words {
			for i := 0; i+len(w) <= len(lower); i++ {
				if lower[i:i+len(w)] == w {
					want = append(want, KeywordHit{Word: wi, Start: i})
				}
			}
		}
		got := x.Find(s, nil)
		sortHits := func(h []KeywordHit) {
			slices.SortFunc(h, func(a, b KeywordHit) int {
				if a.Start != b.Start {
					return a.Start - b.Start
				}
				return a.Word - b.Word
			})
		}
		sortHits(got)
		sortHits(want)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: %d hits, want %d", n, len(got), len(want))
		}
	}
}
