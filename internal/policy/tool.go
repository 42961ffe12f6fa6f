package policy

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
)

// toolCond is a rule's `tool` condition: classes, native tool names and MCP tools.
type toolCond struct {
	text    []string
	classes map[call.Class]bool // every class the condition can match (for the index)
	// byClass holds class entries ("shell", "file.*"): any call of the class matches.
	byClass map[call.Class]bool
	native  []*glob.Word // native tool names, matched against Call.Tool
	mcp     []mcpPattern
}

type mcpPattern struct {
	server, tool *glob.Word
}

const otherPrefix = "other:"

func (l *loader) toolCond(n *yaml.Node) *toolCond {
	items, ok := l.strs(n, "tool")
	if !ok {
		return nil
	}
	t := &toolCond{classes: make(map[call.Class]bool), byClass: make(map[call.Class]bool)}
	for _, it := range items {
		t.text = append(t.text, it.val)
		l.toolEntry(t, it)
	}
	return t
}

func (l *loader) toolEntry(t *toolCond, it item) {
	s := it.val
	// A class, or a glob over classes ("file.*").
	if c, ok := call.ParseClass(s); ok {
		t.byClass[c], t.classes[c] = true, true
		return
	}
	if strings.HasPrefix(s, "file.") || s == "*" {
		w, err := glob.CompileWord(s)
		if err != nil {
			l.errorf(it.node, "tool: %v", err)
			return
		}
		n := 0
		for _, c := range call.Classes {
			if w.Match(string(c)) {
				t.byClass[c], t.classes[c] = true, true
				n++
			}
		}
		if n == 0 {
			l.errorf(it.node, "tool %q matches no class (classes: %s)", s, classNames())
		}
		return
	}
	// An MCP tool, in moat's spelling or an agent's.
	if strings.HasPrefix(s, "mcp:") || strings.HasPrefix(s, "mcp__") {
		server, tool, ok := splitMCP(s)
		if !ok {
			l.errorf(it.node, "tool %q: write MCP tools as mcp:SERVER/TOOL (globs allowed, e.g. mcp:github/delete_*)", s)
			return
		}
		sw, err1 := glob.CompileWord(server)
		tw, err2 := glob.CompileWord(tool)
		if err1 != nil || err2 != nil {
			l.errorf(it.node, "tool %q: invalid glob", s)
			return
		}
		t.mcp = append(t.mcp, mcpPattern{server: sw, tool: tw})
		t.classes[call.MCP] = true
		return
	}
	// A native tool name: one moat knows, or `other:NAME` for one it does not know yet.
	name, unknownOK := strings.CutPrefix(s, otherPrefix)
	w, err := glob.CompileWord(name)
	if err != nil {
		l.errorf(it.node, "tool: %v", err)
		return
	}
	matched := false
	for _, nt := range call.NativeTools {
		if w.Match(nt.Name) {
			matched = true
			t.classes[nt.Class] = true
		}
	}
	if unknownOK {
		// Tools moat does not know arrive as class other.
		t.classes[call.Other] = true
	} else if !matched {
		l.errorf(it.node, "unknown tool %q: not a class (%s), an MCP tool (mcp:SERVER/TOOL) or a native tool name moat knows%s; to match a tool moat does not know yet, write %q",
			s, classNames(), suggest(s, nativeNames()), otherPrefix+s)
		return
	}
	t.native = append(t.native, w)
}

// splitMCP splits mcp:SERVER/TOOL (or mcp__SERVER__TOOL) into its globs; a bare server means
// all of its tools.
func splitMCP(s string) (server, tool string, ok bool) {
	if rest, found := strings.CutPrefix(s, "mcp:"); found {
		server, tool, found = strings.Cut(rest, "/")
		if !found {
			tool = "*"
		}
		return server, tool, server != "" && tool != ""
	}
	rest := strings.TrimPrefix(s, "mcp__")
	server, tool, found := strings.Cut(rest, "__")
	if !found {
		tool = "*"
	}
	return server, tool, server != "" && tool != ""
}

func (t *toolCond) match(c *call.Call) bool {
	if t.byClass[c.Class] {
		return true
	}
	if c.Class == call.MCP && c.MCP != nil {
		for _, p := range t.mcp {
			if p.server.Match(c.MCP.Server) && p.tool.Match(c.MCP.Tool) {
				return true
			}
		}
	}
	for _, w := range t.native {
		if w.Match(c.Tool) {
			return true
		}
	}
	return false
}

// possibleForAgents reports whether some named agent could make a call this condition
// matches. Classes and MCP tools are possible for every agent; native names only for the
// agents that have them.
func (t *toolCond) possibleForAgents(agents []call.Agent) bool {
	if len(t.byClass) > 0 || len(t.mcp) > 0 {
		return true
	}
	for _, w := range t.native {
		known := false
		for _, nt := range call.NativeTools {
			if w.Match(nt.Name) {
				known = true
				for _, a := range agents {
					if nt.Agent == a {
						return true
					}
				}
			}
		}
		if !known {
			return true // an other:NAME tool: any agent may have it
		}
	}
	return false
}

func classNames() string {
	names := make([]string, len(call.Classes))
	for i, c := range call.Classes {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

func nativeNames() []string {
	names := make([]string, 0, len(call.NativeTools))
	for _, nt := range call.NativeTools {
		names = append(names, nt.Name)
	}
	return names
}
