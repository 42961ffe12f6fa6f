package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one mistake in a policy file, at the position where it was made.
type Error struct {
	File      string
	Line, Col int // 1-based; Col is 0 when only the line is known
	Msg       string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrorList is every mistake found in a policy, in file order. Loading reports all of them
// at once so that a user fixes a policy in one pass.
type ErrorList []*Error

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

func (l ErrorList) sorted() ErrorList {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return l
}
