package policy

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ChangedToolAction is what the MCP proxy does with a tool whose definition differs from
// the one pinned when it was first seen (a "rug pull").
type ChangedToolAction string

// Changed tool actions.
const (
	// ChangedToolBlock hides the tool from the client and refuses its calls until the
	// user accepts the new definition with `moat mcp pin --accept SERVER`.
	ChangedToolBlock ChangedToolAction = "block"
	// ChangedToolWarn keeps the tool listed and callable, and reports the change on the
	// proxy's standard error and in the decision log each time the tool is listed, until
	// the user accepts it. It suits servers whose tools change often and are trusted.
	ChangedToolWarn ChangedToolAction = "warn"
)

var changedToolActions = []string{string(ChangedToolBlock), string(ChangedToolWarn)}

// MCP is the policy's mcp section.
type MCP struct {
	ChangedTools ChangedToolAction
}

// DefaultMCP hides a changed tool: its new description reaches the model only after a
// person has read it.
var DefaultMCP = MCP{ChangedTools: ChangedToolBlock}

var mcpKeys = []string{"changed_tools"}

func (l *loader) mcp(n *yaml.Node) MCP {
	out := DefaultMCP
	fields, ok := l.mapping(n, "mcp", mcpKeys)
	if !ok {
		return out
	}
	for _, f := range fields {
		s, ok := l.str(f.value, "mcp."+f.key)
		if !ok {
			continue
		}
		if !slices.Contains(changedToolActions, s) {
			l.errorf(f.value, "mcp.%s must be one of %s, not %q%s", f.key, strings.Join(changedToolActions, ", "), s, suggest(s, changedToolActions))
			continue
		}
		out.ChangedTools = ChangedToolAction(s)
	}
	return out
}
