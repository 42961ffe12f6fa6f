package mcpconfig

import (
	"errors"

	"github.com/moatdev/moat/internal/textedit"
)

// Codex keeps its MCP servers in TOML. The reader is internal/textedit, the one moat
// setup edits Codex's hook trust with; this file only turns its errors into *ParseErrors.

func parseTOML(text string) (*textedit.TOMLDoc, error) {
	d, err := textedit.ParseTOML(text)
	if se, ok := errors.AsType[*textedit.SyntaxError](err); ok {
		return nil, newParseError(text, se.Offset, "%s", se.Msg)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

// unquoteTOML decodes a string token of any of the four kinds.
func unquoteTOML(raw string) (string, bool) { return textedit.UnquoteTOML(raw) }

func isBare(c byte) bool { return textedit.IsBareKey(c) }
