package mcpconfig

import (
	"errors"

	"github.com/moatdev/moat/internal/textedit"
)

// value is a parsed JSON or TOML value and where it lies in the text. The readers are
// internal/textedit's, which moat's hook installer uses too; both build the same values,
// so that wrapping works alike on JSON and TOML.
type value = textedit.Value

// maxDepth bounds the nesting of TOML values, as textedit.MaxDepth bounds JSON's.
const maxDepth = textedit.MaxDepth

// parseJSON reads a JSON (with comments) config file. A mistake is a *ParseError.
func parseJSON(text string) (*value, error) {
	v, err := textedit.ParseJSON(text)
	if se, ok := errors.AsType[*textedit.SyntaxError](err); ok {
		return nil, &ParseError{Line: se.Line, Col: se.Col, Msg: se.Msg}
	}
	return v, err
}
