package setup

import (
	"errors"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/textedit"
)

// The agents' settings files are edited in place, as text: what moat adds is spliced in
// and what it removes is cut out, so every byte moat does not touch (the user's other
// settings, their order, spacing and comments) stays as it was.

// node is a parsed JSON value and where it lies in the text. The reader, internal/textedit,
// is the one moat mcp wrap edits the agents' MCP configs with; it accepts JSON with // and
// /* */ comments (some agents' settings allow them) and trailing commas.
type node = textedit.Value

// parseJSON parses text, which must hold one value (an empty text gives a nil node).
func parseJSON(text string) (*node, error) { return textedit.ParseJSON(text) }

// member returns the value of key in an object node, or nil. A key written twice is read
// as the agents' JSON parsers read it: the last one counts.
func member(n *node, key string) *node {
	v, _ := n.Member(key)
	return v
}

// indentOf returns the white space that starts the line holding s[pos].
func indentOf(s string, pos int) string {
	lineStart := strings.LastIndexByte(s[:pos], '\n') + 1
	i := lineStart
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[lineStart:i]
}

// unitIndent guesses the file's indentation step: that of its first indented line, or
// two spaces.
func unitIndent(s string) string {
	for _, line := range strings.Split(s, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

// appendMember returns text with "key": value added as the last member of the object
// n. value is JSON text; its lines after the first are indented to fit.
func appendMember(text string, n *node, key, value string) string {
	return appendItem(text, n, fmt.Sprintf("%q: %s", key, value))
}

// appendElement returns text with value added as the last element of the array n.
func appendElement(text string, n *node, value string) string {
	return appendItem(text, n, value)
}

// appendItem inserts item before the closing bracket of the object or array n, after a
// comma if n has members, on its own line indented one step deeper than n's line.
func appendItem(text string, n *node, item string) string {
	base := indentOf(text, n.Start)
	inner := base + unitIndent(text)
	item = strings.ReplaceAll(item, "\n", "\n"+inner)
	closing := n.End - 1
	if len(n.Elems) == 0 {
		return text[:n.Start+1] + "\n" + inner + item + "\n" + base + text[closing:]
	}
	last := n.Elems[len(n.Elems)-1]
	// After the last member, keeping a trailing comma or comment where it is.
	insertAt := last.End
	rest := text[insertAt:closing]
	if trimmed := strings.TrimSpace(rest); strings.HasPrefix(trimmed, ",") {
		insertAt += strings.Index(rest, ",") + 1
		return text[:insertAt] + "\n" + inner + item + "," + text[insertAt:]
	}
	return text[:insertAt] + ",\n" + inner + item + text[insertAt:]
}

// itemStart is where the i-th member (its key) or element of n starts.
func itemStart(n *node, i int) int {
	if n.Kind == '{' {
		return n.KeyStarts[i]
	}
	return n.Elems[i].Start
}

// removeItem returns text without the i-th member or element of n, with the separator
// that went with it: the comma before it, or for the first item the comma after it.
func removeItem(text string, n *node, i int) string {
	start, end := itemStart(n, i), n.Elems[i].End
	switch {
	case len(n.Elems) == 1:
		// The only item: the container becomes empty, on one line.
		return text[:n.Start+1] + text[n.End-1:]
	case i > 0:
		return text[:n.Elems[i-1].End] + text[end:]
	default:
		return text[:start] + text[itemStart(n, 1):]
	}
}

var errNotObject = errors.New("the settings file does not hold a JSON object")
