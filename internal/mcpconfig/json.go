package mcpconfig

import (
	"errors"

	"github.com/moatdev/moat/internal/jsonc"
)

// value is a parsed JSON or TOML value and where it lies in the text. The JSON reader is
// internal/jsonc, which moat's hook installer uses too; the TOML reader (toml.go) builds
// the same values, so that wrapping works alike on both.
type value = jsonc.Value

// maxDepth bounds the nesting of TOML values, as jsonc.MaxDepth bounds JSON's.
const maxDepth = jsonc.MaxDepth

// parseJSON reads a JSON (with comments) config file. A mistake is a *ParseError.
func parseJSON(text string) (*value, error) {
	v, err := jsonc.Parse(text)
	if se, ok := errors.AsType[*jsonc.SyntaxError](err); ok {
		return nil, &ParseError{Line: se.Line, Col: se.Col, Msg: se.Msg}
	}
	return v, err
}
