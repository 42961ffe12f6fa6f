package textmatch

// KeywordIndex finds every occurrence of a fixed set of ASCII keywords in a text in one
// pass, ignoring ASCII case: an Aho–Corasick automaton compiled to a table-driven DFA over
// byte classes. It is built once and only read afterwards.
type KeywordIndex struct {
	words   []string   // lower-case keywords
	longest int        // length of the longest word
	class   [256]int32 // byte → column of the transition table; 0 for bytes in no keyword
	// next maps state+class to the next state. A state is its row's offset in next; a
	// state where words end is stored negated, so the scan loop tests only a sign.
	next []int32
	out  map[int32][]int32 // state → the words that end there
}

// Word returns the keyword numbered n, as it was given to NewKeywordIndex.
func (x *KeywordIndex) Word(n int) string { return x.words[n] }

// NewKeywordIndex builds the index of words, which must be lower-case and non-empty.
func NewKeywordIndex(words []string) *KeywordIndex {
	x := &KeywordIndex{words: words, out: map[int32][]int32{}}
	cols, maxStates := int32(1), int32(1)
	for _, w := range words {
		x.longest = max(x.longest, len(w))
		maxStates += int32(len(w))
		for i := 0; i < len(w); i++ {
			c := w[i]
			if x.class[c] == 0 {
				x.class[c] = cols
				if 'a' <= c && c <= 'z' {
					x.class[c-'a'+'A'] = cols
				}
				cols++
			}
		}
	}

	// The trie, its goto edges written straight into the transition table, one row of
	// cols entries per state: a map of edges per state made building the index of the
	// injection signals' keywords cost milliseconds, paid by the first scan of every hook
	// process. No edge leads back to the root, so 0 marks a missing edge.
	next := make([]int32, cols, cols*maxStates)
	ends := make([]int32, len(words)) // word → the state where it ends
	for wi, w := range words {
		s := int32(0)
		for i := 0; i < len(w); i++ {
			e := s*cols + x.class[w[i]]
			if next[e] == 0 {
				next[e] = int32(len(next)) / cols
				next = append(next, make([]int32, cols)...)
			}
			s = next[e]
		}
		ends[wi] = s
	}
	states := int32(len(next)) / cols
	out := make([][]int32, states) // state → the words that end there
	for wi, s := range ends {
		out[s] = append(out[s], int32(wi))
	}

	// Breadth-first, so that a state's failure state is complete before the state is; a
	// state's row is read for its goto edges before it is completed.
	fail := make([]int32, states)
	queue := make([]int32, 0, states)
	for c := int32(0); c < cols; c++ {
		if t := next[c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		out[s] = append(out[s], out[fail[s]]...)
		row, failRow := next[s*cols:(s+1)*cols], next[fail[s]*cols:(fail[s]+1)*cols]
		for c, t := range row {
			if t != 0 {
				fail[t] = failRow[c]
				queue = append(queue, t)
			} else {
				row[c] = failRow[c]
			}
		}
	}
	// Renumber the states as row offsets, negated where words end.
	for i, t := range next {
		next[i] = t * cols
		if len(out[t]) > 0 {
			next[i] = -t * cols
		}
	}
	x.next = next
	for s, o := range out {
		if len(o) > 0 {
			x.out[int32(s)*cols] = o
		}
	}
	return x
}

// KeywordHit is one occurrence of word number Word starting at byte offset Start.
type KeywordHit struct {
	Word, Start int
}

// Find appends every keyword occurrence in s to hits, in no particular order.
//
// A DFA's speed is bounded by the latency of its dependent table loads, so long texts are
// cut into four lanes scanned in lock step: each lane runs on past its end by the length
// of the longest keyword less one and reports only the words that start inside it.
func (x *KeywordIndex) Find(s string, hits []KeywordHit) []KeywordHit {
	const lanes = 4
	if len(s) < 4096 {
		_, hits = x.scan(s, 0, len(s), len(s), 0, hits)
		return hits
	}
	var start, stop, limit [lanes]int
	for k := range lanes {
		start[k] = k * len(s) / lanes
	}
	for k := range lanes {
		limit[k] = len(s)
		if k+1 < lanes {
			limit[k] = start[k+1]
		}
		stop[k] = min(len(s), limit[k]+x.longest-1)
	}
	n := stop[0] - start[0]
	for k := range lanes {
		n = min(n, stop[k]-start[k])
	}
	next, class := x.next, &x.class
	var st0, st1, st2, st3 int32
	s0, s1, s2, s3 := s[start[0]:stop[0]], s[start[1]:stop[1]], s[start[2]:stop[2]], s[start[3]:stop[3]]
	s0, s1, s2, s3 = s0[:n], s1[:n], s2[:n], s3[:n]
	for i := 0; i < n; i++ {
		st0 = next[st0+class[s0[i]]]
		st1 = next[st1+class[s1[i]]]
		st2 = next[st2+class[s2[i]]]
		st3 = next[st3+class[s3[i]]]
		if st0|st1|st2|st3 < 0 {
			if st0 < 0 {
				st0 = -st0
				hits = x.emit(st0, start[0]+i, limit[0], hits)
			}
			if st1 < 0 {
				st1 = -st1
				hits = x.emit(st1, start[1]+i, limit[1], hits)
			}
			if st2 < 0 {
				st2 = -st2
				hits = x.emit(st2, start[2]+i, limit[2], hits)
			}
			if st3 < 0 {
				st3 = -st3
				hits = x.emit(st3, start[3]+i, limit[3], hits)
			}
		}
	}
	for k, st := range [lanes]int32{st0, st1, st2, st3} {
		_, hits = x.scan(s, start[k]+n, stop[k], limit[k], st, hits)
	}
	return hits
}

// scan runs the automaton over s[from:to] from state st, appending the words that start
// before limit, and returns the state it ends in.
func (x *KeywordIndex) scan(s string, from, to, limit int, st int32, hits []KeywordHit) (int32, []KeywordHit) {
	next, class := x.next, &x.class
	for i := from; i < to; i++ {
		st = next[st+class[s[i]]]
		if st < 0 {
			st = -st
			hits = x.emit(st, i, limit, hits)
		}
	}
	return st, hits
}

// emit appends the words that end at byte i in state st and start before limit.
func (x *KeywordIndex) emit(st int32, i, limit int, hits []KeywordHit) []KeywordHit {
	for _, w := range x.out[st] {
		if start := i + 1 - len(x.words[w]); start < limit {
			hits = append(hits, KeywordHit{Word: int(w), Start: start})
		}
	}
	return hits
}
