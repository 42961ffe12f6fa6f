// Package call defines moat's canonical model of an agent's action: the call, its class, the
// findings analysis attaches to it, and the decision the engine returns.
package call

import (
	"fmt"
	"strings"
)

// Class is the canonical kind of action a call performs, whatever the agent calls its tool.
// The set is closed: ParseClass accepts only the constants below.
type Class string

// The canonical classes. DESIGN.md's table lists the arguments each one carries.
const (
	Shell      Class = "shell"
	FileRead   Class = "file.read"
	FileWrite  Class = "file.write"
	FileEdit   Class = "file.edit"
	FileDelete Class = "file.delete"
	FileSearch Class = "file.search"
	WebFetch   Class = "web.fetch"
	MCP        Class = "mcp"
	Other      Class = "other"
)

// Classes lists every class, in the order the documentation presents them.
var Classes = []Class{Shell, FileRead, FileWrite, FileEdit, FileDelete, FileSearch, WebFetch, MCP, Other}

// ParseClass returns the class named s, or false when s names no class.
func ParseClass(s string) (Class, bool) {
	for _, c := range Classes {
		if string(c) == s {
			return c, true
		}
	}
	return "", false
}

// Call is one action an agent is about to take, in canonical form.
type Call struct {
	Agent Agent // who asks; empty when unknown (a direct `moat check`)
	Class Class
	// Tool is the tool's native name as the agent spelled it ("Bash", "run_shell_command").
	Tool string
	// Args holds the arguments under the canonical keys of the class (see ArgKeys); native
	// keys that have no canonical name are kept as they came. Numbers are json.Number or
	// float64/int values; strings, maps and slices are as decoded from JSON.
	Args map[string]any
	// MCP names the server and tool of an mcp call; nil for other classes.
	MCP *MCPTarget
	// Cwd is the absolute working directory the action runs in.
	Cwd string
	// Project is the project root the agent reported or moat found above Cwd; it is what
	// $workspace means when the policy does not say. Empty means "use Cwd".
	Project string
	Session string
}

// MCPTarget names an MCP server and one of its tools.
type MCPTarget struct {
	Server string
	Tool   string
}

// String renders the target as rules write it: mcp:SERVER/TOOL.
func (t MCPTarget) String() string { return "mcp:" + t.Server + "/" + t.Tool }

// Canonical argument keys.
const (
	ArgCommand = "command"
	ArgPath    = "path"
	ArgPaths   = "paths"
	ArgContent = "content"
	ArgOld     = "old"
	ArgNew     = "new"
	ArgEdits   = "edits"
	ArgPattern = "pattern"
	ArgURL     = "url"
	// ArgFilter is a content search's file filter, a glob relative to where it searches
	// (Grep's glob, Gemini's include): it names the files whose text the search reads.
	ArgFilter = "filter"
)

// ArgKeys lists, per class, the canonical argument keys the class carries.
var ArgKeys = map[Class][]string{
	Shell:      {ArgCommand},
	FileRead:   {ArgPath, ArgPaths},
	FileWrite:  {ArgPath, ArgContent},
	FileEdit:   {ArgPath, ArgOld, ArgNew, ArgEdits},
	FileDelete: {ArgPath},
	FileSearch: {ArgPattern, ArgPath, ArgPaths, ArgFilter},
	WebFetch:   {ArgURL},
	MCP:        nil,
	Other:      nil,
}

// String returns the argument's value when it is a string, "" otherwise.
func (c *Call) String(key string) string {
	s, _ := c.Args[key].(string)
	return s
}

// Describe renders the call in one short line for reasons, logs and traces.
func (c *Call) Describe() string {
	switch c.Class {
	case Shell:
		return fmt.Sprintf("shell: %s", c.String(ArgCommand))
	case MCP:
		if c.MCP != nil {
			return c.MCP.String()
		}
	case FileRead, FileWrite, FileEdit, FileDelete:
		return fmt.Sprintf("%s %s", c.Class, c.String(ArgPath))
	case FileSearch:
		return strings.TrimSpace(fmt.Sprintf("%s %s %s", c.Class, c.String(ArgPattern), c.String(ArgPath)))
	case WebFetch:
		return fmt.Sprintf("%s %s", c.Class, c.String(ArgURL))
	}
	return fmt.Sprintf("%s %s", c.Class, c.Tool)
}
