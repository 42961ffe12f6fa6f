package toolscan

import (
	"slices"
	"strings"
	"testing"
)

// TestKeywordIndex compares the index with a plain search for every word, on texts that
// hold overlapping words, words inside words and multi-byte text.
func TestKeywordIndex(t *testing.T) {
	words := []string{"he", "she", "his", "hers", "user", "us", "ユーザー", "ー", "~/", ".ssh", "ssh", "s"}
	k := newKeywordIndex(words)
	for _, text := range []string{
		"", "ushers", "she sells ~/.ssh keys to users", "ユーザーには", "hhhhis", "sssss", "x", strings.Repeat("hers ", 50),
	} {
		type hit struct{ word, start int }
		var got, want []hit
		k.find(text, func(w, start int) { got = append(got, hit{w, start}) })
		for w, word := range words {
			for i := 0; i+len(word) <= len(text); i++ {
				if text[i:i+len(word)] == word {
					want = append(want, hit{w, i})
				}
			}
		}
		order := func(a, b hit) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return a.word - b.word
		}
		slices.SortFunc(got, order)
		slices.SortFunc(want, order)
		if !slices.Equal(got, want) {
			t.Errorf("%q: found %v, want %v", text, got, want)
		}
	}
}

// TestSignalKeywords: every signal's keywords are in the index, so that a pattern is
// never skipped because its gate was lost.
func TestSignalKeywords(t *testing.T) {
	tab := compiled()
	for i, sg := range tab.list {
		for _, list := range [][]string{sg.Keywords, sg.Also} {
			for _, w := range list {
				n := slices.Index(tab.index.words, w)
				if n < 0 || !slices.ContainsFunc(tab.refs[n], func(r keywordRef) bool { return r.signal == i }) {
					t.Errorf("%s: keyword %q is not indexed for it", sg.Name, w)
				}
			}
		}
	}
}
