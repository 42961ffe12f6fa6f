package toolscan

// keywordIndex finds every occurrence of a set of byte strings in one pass over a text
// (Aho-Corasick, with the failure links folded into a dense transition table). The
// signals' keywords are checked in every string of every tool; one pass per string
// instead of one search per keyword is what keeps Inspect within a few milliseconds
// for a large listing.
type keywordIndex struct {
	class   [256]uint16 // byte → column; bytes in no keyword share column 0
	columns int
	next    []uint16  // state*columns + class → state
	out     [][]int32 // state → the keywords that end there, longest first
	words   []string
}

// newKeywordIndex builds the index of words, which must be non-empty and fewer than
// 65536 bytes in all.
func newKeywordIndex(words []string) *keywordIndex {
	k := &keywordIndex{words: words}
	for _, w := range words {
		for i := 0; i < len(w); i++ {
			if k.class[w[i]] == 0 {
				k.columns++
				k.class[w[i]] = uint16(k.columns)
			}
		}
	}
	k.columns++
	// The trie, with 0 as "no edge" (the root is never a child).
	k.next = make([]uint16, k.columns)
	k.out = [][]int32{nil}
	for id, w := range words {
		s := 0
		for i := 0; i < len(w); i++ {
			c := int(k.class[w[i]])
			if k.next[s*k.columns+c] == 0 {
				k.next = append(k.next, make([]uint16, k.columns)...)
				k.out = append(k.out, nil)
				k.next[s*k.columns+c] = uint16(len(k.out) - 1)
			}
			s = int(k.next[s*k.columns+c])
		}
		k.out[s] = append(k.out[s], int32(id))
	}
	// Breadth first: each state's missing edges are those of its failure state, which is
	// shallower and so already complete.
	fail := make([]uint16, len(k.out))
	queue := []int{}
	for c := 0; c < k.columns; c++ {
		if t := k.next[c]; t != 0 {
			queue = append(queue, int(t))
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		k.out[s] = append(k.out[s], k.out[fail[s]]...)
		for c := 0; c < k.columns; c++ {
			t := k.next[s*k.columns+c]
			f := k.next[int(fail[s])*k.columns+c]
			if t == 0 {
				k.next[s*k.columns+c] = f
				continue
			}
			fail[t] = f
			queue = append(queue, int(t))
		}
	}
	return k
}

// find calls hit with the number of each keyword found in s and the offset where it
// starts, in the order the occurrences end.
func (k *keywordIndex) find(s string, hit func(word, start int)) {
	state := 0
	for i := 0; i < len(s); i++ {
		state = int(k.next[state*k.columns+int(k.class[s[i]])])
		for _, w := range k.out[state] {
			hit(int(w), i+1-len(k.words[w]))
		}
	}
}
