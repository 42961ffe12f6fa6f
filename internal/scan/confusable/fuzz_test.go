package confusable

import (
	"testing"
	"unicode/utf8"
)

func FuzzLookalikes(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzLookalikes.
	for _, s := range []string{"", "curl", "сurl", "gіthub.com", "привет", "Zürісh", "𝐜𝐮𝐫𝐥", "ｒｍ", "\xffа"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, word string) {
		ls := Lookalikes(word)
		if isASCII(word) && ls != nil {
			t.Fatalf("Lookalikes(%q) = %v for an ASCII word", word, ls)
		}
		imitating := 0 // runes of word that imitate ASCII
		for _, r := range word {
			if _, ok := ASCII(r); ok {
				imitating++
			}
		}
		if ls != nil && len(ls) != imitating {
			t.Fatalf("Lookalikes(%q) reports %d of the %d lookalikes", word, len(ls), imitating)
		}
		prev := -1
		for _, l := range ls {
			if l.Offset <= prev || l.Offset >= len(word) {
				t.Fatalf("Lookalikes(%q): offset %d out of order or range", word, l.Offset)
			}
			prev = l.Offset
			if r, _ := utf8.DecodeRuneInString(word[l.Offset:]); r != l.Rune {
				t.Fatalf("Lookalikes(%q): offset %d has %q, not %q", word, l.Offset, r, l.Rune)
			}
			if a, ok := ASCII(l.Rune); !ok || a != l.ASCII || l.Rune < utf8.RuneSelf {
				t.Fatalf("Lookalikes(%q): %+v disagrees with ASCII", word, l)
			}
		}

		sk := Skeleton(word)
		// Each lookalike, two to four bytes, becomes one byte; nothing else changes.
		shrink := 0
		for _, r := range word {
			if _, ok := ASCII(r); ok {
				shrink += utf8.RuneLen(r) - 1
			}
		}
		if len(sk) != len(word)-shrink {
			t.Fatalf("Skeleton(%q) = %q: %d bytes, want %d", word, sk, len(sk), len(word)-shrink)
		}
		if utf8.ValidString(word) && utf8.RuneCountInString(sk) != utf8.RuneCountInString(word) {
			t.Fatalf("Skeleton(%q) = %q changes the number of runes", word, sk)
		}
		if again := Skeleton(sk); again != sk {
			t.Fatalf("Skeleton(%q) = %q, but Skeleton of that is %q", word, sk, again)
		}
		// A word whose skeleton is ASCII is deceptive.
		if !isASCII(word) && isASCII(sk) && ls == nil {
			t.Fatalf("Lookalikes(%q) = nil, but its skeleton %q is ASCII", word, sk)
		}
	})
}
