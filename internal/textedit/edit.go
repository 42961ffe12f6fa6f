package textedit

import (
	"fmt"
	"slices"
	"strings"
)

// Edit replaces text[Start:End] with Text: an insertion when Start == End, a cut when
// Text is empty.
type Edit struct {
	Start, End int
	Text       string
}

// Apply makes the edits to text and keeps every byte outside them. Edits may come in any
// order but must not overlap: overlapping edits mean the caller's idea of the text is
// wrong, so the text is refused, not garbled.
func Apply(text string, edits []Edit) (string, error) {
	if len(edits) == 0 {
		return text, nil
	}
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b Edit) int { return a.Start - b.Start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.Start < at || e.End < e.Start || e.End > len(text) {
			return "", fmt.Errorf("internal error: overlapping edits at %d:%d", strings.Count(text[:max(0, min(e.Start, len(text)))], "\n")+1, e.Start)
		}
		b.WriteString(text[at:e.Start])
		b.WriteString(e.Text)
		at = e.End
	}
	b.WriteString(text[at:])
	return b.String(), nil
}
