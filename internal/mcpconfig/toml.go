package mcpconfig

import (
	"errors"

	"github.com/moatdev/moat/internal/textedit"
)

// Codex keeps its MCP servers in TOML. The reader is internal/textedit, the one moat
// setup edits Codex's hook trust with; this file only gives its spans the names the rest
// of the package uses and turns its errors into *ParseErrors.

// tomlDoc is a TOML document as spans.
type tomlDoc struct {
	tables []tomlTable
	kvs    []tomlKV
}

// tomlTable is a [table] or [[array.of.tables]] header.
type tomlTable struct {
	path       []string // decoded key parts
	array      bool
	start, end int // the header, brackets included
}

// tomlKV is a key = value line.
type tomlKV struct {
	table     int      // index in tables of the table it belongs to; -1 for the root
	path      []string // the key's decoded parts (more than one for a dotted key)
	keyStart  int
	lineStart int // where the key's line starts
	val       *value
}

func parseTOML(text string) (*tomlDoc, error) {
	d, err := textedit.ParseTOML(text)
	if se, ok := errors.AsType[*textedit.SyntaxError](err); ok {
		return nil, newParseError(text, se.Offset, "%s", se.Msg)
	}
	if err != nil {
		return nil, err
	}
	doc := &tomlDoc{tables: make([]tomlTable, len(d.Tables)), kvs: make([]tomlKV, len(d.KVs))}
	for i, t := range d.Tables {
		doc.tables[i] = tomlTable{path: t.Path, array: t.Array, start: t.Start, end: t.End}
	}
	for i, kv := range d.KVs {
		doc.kvs[i] = tomlKV{table: kv.Table, path: kv.Path, keyStart: kv.KeyStart, lineStart: kv.LineStart, val: kv.Val}
	}
	return doc, nil
}

// unquoteTOML decodes a string token of any of the four kinds.
func unquoteTOML(raw string) (string, bool) { return textedit.UnquoteTOML(raw) }

func isBare(c byte) bool { return textedit.IsBareKey(c) }
