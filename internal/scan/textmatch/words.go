package textmatch

import (
	"cmp"
	"slices"
)

// WordSet is a set of words as a sorted slice. A map literal is built by code that runs
// when a package loads, in every hook process; a slice literal is laid out by the linker
// and costs nothing until it is searched.
type WordSet []string

// Has reports whether w is in the set.
func (s WordSet) Has(w string) bool {
	_, ok := slices.BinarySearch(s, w)
	return ok
}

// Span is a byte range [Lo, Hi) of a text.
type Span struct{ Lo, Hi int }

// MergeSpans sorts spans and joins those that overlap or touch, reusing ws.
func MergeSpans(ws []Span) []Span {
	slices.SortFunc(ws, func(a, b Span) int { return cmp.Compare(a.Lo, b.Lo) })
	out := ws[:1]
	for _, w := range ws[1:] {
		last := &out[len(out)-1]
		if w.Lo <= last.Hi {
			last.Hi = max(last.Hi, w.Hi)
			continue
		}
		out = append(out, w)
	}
	return out
}
