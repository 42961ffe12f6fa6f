package mcpconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// jsonEntries finds the server entries of a JSON file, following the client's paths.
func (c Client) jsonEntries(text string) ([]entry, error) {
	root, err := parseJSON(text)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, nil
	}
	if root.Kind != '{' {
		return nil, newParseError(text, root.Start, "the file holds a JSON %s, not an object", kindName(root.Kind))
	}
	var out []entry
	var walk func(v *value, path []string, where string)
	walk = func(v *value, path []string, where string) {
		if v.Kind != '{' {
			return
		}
		for i, k := range v.Keys {
			if path[0] != "*" && k != path[0] {
				continue
			}
			w := step(where, k, path[0] == "*")
			m := v.Elems[i]
			if len(path) > 1 {
				walk(m, path[1:], w)
				continue
			}
			if m.Kind != '{' {
				out = append(out, entry{where: w, pos: v.KeyStarts[i], val: m,
					skip: fmt.Sprintf("%s is a %s, not an object of servers", w, kindName(m.Kind))})
				continue
			}
			for j, name := range m.Keys {
				out = append(out, entry{where: w, name: name, pos: m.KeyStarts[j], val: m.Elems[j]})
			}
		}
	}
	for _, path := range c.servers {
		walk(root, path, "")
	}
	return out, nil
}

// step extends a path for Change.Where: by ".key", or by ["key"] for a key given by a
// wildcard (a project's absolute path) or that is not a plain name.
func step(where, key string, quoted bool) string {
	plain := key != ""
	for i := 0; i < len(key); i++ {
		plain = plain && isBare(key[i])
	}
	switch {
	case quoted || !plain:
		return where + "[" + textedit.Quote(key) + "]"
	case where == "":
		return key
	}
	return where + "." + key
}

func kindName(kind byte) string {
	switch kind {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	}
	return "scalar"
}

// tomlEntries finds Codex's servers: the [mcp_servers.NAME] tables. Servers written in
// any other way (an inline table, dotted keys) are found too, to be reported as
// skipped: editing them would mean rewriting a value moat has not been asked to touch,
// on a line that may hold other servers.
func tomlEntries(text string) ([]entry, error) {
	doc, err := parseTOML(text)
	if err != nil {
		return nil, err
	}
	const where = "mcp_servers"
	var out []entry
	byName := map[string]int{}
	add := func(e entry) {
		if i, ok := byName[e.name]; ok {
			// A server defined twice (invalid TOML, or two spellings of one name) is
			// not one moat can know the shape of. Several dotted keys of one server
			// are one definition, already reported.
			if out[i].skip == "" || e.skip == "" {
				out[i].skip = "the server is defined more than once"
			}
			return
		}
		byName[e.name] = len(out)
		out = append(out, e)
	}
	tables := map[int]*value{}
	for i, t := range doc.Tables {
		if len(t.Path) != 2 || t.Path[0] != where {
			continue
		}
		e := entry{where: where, name: t.Path[1], pos: t.Start, val: &value{Kind: '{', Start: t.Start, End: t.End}}
		if t.Array {
			e.skip = "it is an array of tables, not a table"
		}
		tables[i] = e.val
		add(e)
	}
	for _, kv := range doc.KVs {
		if v, ok := tables[kv.Table]; ok {
			v.Keys = append(v.Keys, strings.Join(kv.Path, "."))
			v.KeyStarts = append(v.KeyStarts, kv.KeyStart)
			v.Elems = append(v.Elems, kv.Val)
			continue
		}
		var full []string
		if kv.Table >= 0 {
			full = slices.Clone(doc.Tables[kv.Table].Path)
		}
		full = append(full, kv.Path...)
		if len(full) == 0 || full[0] != where || kv.Table >= 0 && len(doc.Tables[kv.Table].Path) > 2 {
			// Not a server, or inside one's subtable ([mcp_servers.NAME.env]).
			continue
		}
		const reason = "it is written as %s; moat edits only [mcp_servers.NAME] tables"
		switch {
		case len(full) >= 2:
			how := "dotted keys"
			if len(full) == 2 {
				how = "an inline table"
			}
			add(entry{where: where, name: full[1], pos: kv.KeyStart, val: kv.Val, skip: fmt.Sprintf(reason, how)})
		case kv.Val.Kind == '{':
			for i, name := range kv.Val.Keys {
				name, _, _ = strings.Cut(name, ".")
				add(entry{where: where, name: name, pos: kv.Val.KeyStarts[i], val: kv.Val.Elems[i], skip: fmt.Sprintf(reason, "an inline table")})
			}
		default:
			add(entry{where: where, pos: kv.KeyStart, val: kv.Val, skip: "mcp_servers is not a table"})
		}
	}
	// A server's own subtables ([mcp_servers.NAME.env]) lie outside its table's span;
	// wrapping a remote server rewrites the whole entry, so it must know of them.
	for _, t := range doc.Tables {
		if len(t.Path) > 2 && t.Path[0] == where {
			if i, ok := byName[t.Path[1]]; ok && out[i].subtable == "" {
				out[i].subtable = strings.Join(t.Path[2:], ".")
			}
		}
	}
	slices.SortStableFunc(out, func(a, b entry) int { return a.pos - b.pos })
	return out, nil
}

type jsonSyntax struct{}

func (jsonSyntax) unquote(raw string) (string, bool) { return textedit.UnquoteJSON(raw) }

// addArgs puts the new member right after the command's value, so that whatever
// followed the command (a comma, a comment, the closing brace) still follows: on a line
// of its own, indented like the command, when the command's key starts its line.
func (jsonSyntax) addArgs(text string, cmdKey int, cmd *value, list string) edit {
	return edit{Start: cmd.End, End: cmd.End, Text: jsonArgsSep(text, cmdKey) + `"args": ` + list}
}

func (jsonSyntax) removeAddedArgs(text string, cmdKey int, cmd *value, argsKey int, args *value) (edit, bool) {
	sep := jsonArgsSep(text, cmdKey)
	if argsKey != cmd.End+len(sep) || text[cmd.End:args.Start] != sep+`"args": ` {
		return edit{}, false
	}
	return edit{Start: cmd.End, End: args.End, Text: ""}, true
}

// jsonArgsSep is what separates the command's value from an added args member. It is
// derived from the text before the command's key, which wrapping leaves alone, so that
// Unwrap finds the same separator Wrap used.
func jsonArgsSep(text string, cmdKey int) string {
	lineStart := strings.LastIndexByte(text[:cmdKey], '\n') + 1
	indent := text[lineStart:cmdKey]
	if lineStart == 0 || strings.Trim(indent, " \t") != "" {
		return ", "
	}
	nl := "\n"
	if lineStart >= 2 && text[lineStart-2] == '\r' {
		nl = "\r\n"
	}
	return "," + nl + indent
}

func (jsonSyntax) skipSpace(text string, pos int) int { return textedit.SkipJSONSpace(text, pos) }

type tomlSyntax struct{}

func (tomlSyntax) skipSpace(text string, pos int) int { return textedit.SkipTOMLSpace(text, pos) }

func (tomlSyntax) unquote(raw string) (string, bool) { return unquoteTOML(raw) }

// addArgs puts a new line after the command's, indented like it: TOML wants one key
// on a line.
func (tomlSyntax) addArgs(text string, cmdKey int, cmd *value, list string) edit {
	at, nl, indent := tomlLineAfter(text, cmdKey, cmd)
	return edit{Start: at, End: at, Text: nl + indent + "args = " + list}
}

func (tomlSyntax) removeAddedArgs(text string, cmdKey int, cmd *value, argsKey int, args *value) (edit, bool) {
	at, nl, indent := tomlLineAfter(text, cmdKey, cmd)
	if argsKey != at+len(nl)+len(indent) || text[at:args.Start] != nl+indent+"args = " {
		return edit{}, false
	}
	if rest := text[args.End:]; rest != "" && !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
		return edit{}, false
	}
	return edit{Start: at, End: args.End, Text: ""}, true
}

// tomlLineAfter returns where the line holding the end of the command's value ends, the
// new line to start another with (the file's own), and the indentation of the command's
// key.
func tomlLineAfter(text string, cmdKey int, cmd *value) (at int, nl, indent string) {
	at = len(text)
	if i := strings.IndexByte(text[cmd.End:], '\n'); i >= 0 {
		at = cmd.End + i
	}
	nl = "\n"
	if at > cmd.End && text[at-1] == '\r' {
		at--
		nl = "\r\n"
	} else if at == len(text) && strings.Contains(text, "\r\n") {
		nl = "\r\n"
	}
	lineStart := strings.LastIndexByte(text[:cmdKey], '\n') + 1
	if ind := text[lineStart:cmdKey]; strings.Trim(ind, " \t") == "" {
		indent = ind
	}
	return at, nl, indent
}
