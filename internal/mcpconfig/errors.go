package mcpconfig

import (
	"fmt"
	"strings"
)

// ParseError says where a configuration file stops being one moat can read. Such a file
// is never edited.
type ParseError struct {
	File      string // empty for text that came from no file
	Line, Col int    // 1-based; Col counts bytes, as Go's own parsers do
	Msg       string
}

func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

func newParseError(text string, pos int, format string, args ...any) error {
	pos = max(0, min(pos, len(text)))
	line := strings.Count(text[:pos], "\n") + 1
	col := pos - strings.LastIndexByte(text[:pos], '\n')
	return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lineOf is the 1-based line holding text[pos].
func lineOf(text string, pos int) int {
	return strings.Count(text[:max(0, min(pos, len(text)))], "\n") + 1
}
