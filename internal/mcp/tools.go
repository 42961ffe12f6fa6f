package mcp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan"
)

// MethodToolsList is the request whose results the proxy inspects.
const MethodToolsList = "tools/list"

// readToolList inspects the tools a server lists before the client sees them. A tool
// whose definition is poisoned (hidden instructions, shadowing of other tools, hidden
// text), or that changed since it was pinned and the user has not accepted the change,
// is removed from the list, every other tool and field kept as the server sent them, and
// calls to it are refused from then on. It returns the response to send instead of the
// server's, or nil to relay the server's unchanged.
func (p *Proxy) readToolList(conn *Conn, m jsonrpc.Message, r pendingRequest) []byte {
	tools, err := toolscan.ParseList(m.Result)
	if err != nil {
		// A list moat cannot read is not passed on unread: the client gets an error,
		// and so none of the server's tools.
		fmt.Fprintf(p.Log, "moat: refused the tool list of %s: %v\n", p.Server, err)
		return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.InternalError, "moat could not read the server's tool list: "+err.Error(), nil))
	}
	drop := p.inspectTools(conn, tools)
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	// The tools of this page are vetted now: the hidden ones are refused by name, the
	// others may be called without another listing.
	conn.tools().add(r.epoch, names)
	if len(drop) == 0 {
		return nil
	}
	filtered, err := toolscan.Filter(m.Result, drop)
	if err != nil {
		fmt.Fprintf(p.Log, "moat: filtering the tool list of %s: %v\n", p.Server, err)
		return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.InternalError, "moat could not filter the server's tool list: "+err.Error(), nil))
	}
	return p.answer(jsonrpc.ResultMessage(m.ID, filtered))
}

// inspectTools vets the tools of a listing, whoever asked for it: the scanner's findings
// and, with Pins, the changes since each tool was pinned (new tools are pinned). It
// returns the tools to take out of the list, which are hidden from then on, each
// recorded with its reason.
func (p *Proxy) inspectTools(conn *Conn, tools []toolscan.Tool) map[string]bool {
	reasons := map[string][]call.Finding{}
	for _, f := range toolscan.Inspect(p.Server, tools, nil) {
		reasons[f.Tool] = append(reasons[f.Tool], f.Finding)
	}
	if p.Pins != nil {
		p.pinsMu.Lock()
		changed, added := p.Pins.Check(tools)
		var err error
		if len(changed) > 0 || len(added) > 0 {
			err = p.Pins.Save()
		}
		p.pinsMu.Unlock()
		if err != nil {
			fmt.Fprintf(p.Log, "moat: saving the pins of %s: %v\n", p.Server, err)
		}
		if p.warnChanged() {
			p.warnOfChanges(conn, changed)
		} else {
			for _, c := range changed {
				reasons[c.Tool] = append(reasons[c.Tool], c.Finding(p.Server))
			}
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	drop := map[string]bool{}
	why := map[string]string{}
	for name, fs := range reasons {
		drop[name] = true
		why[name] = scan.Redact(hiddenReason(p.Server, name, fs))
	}
	p.mu.Lock()
	if p.hidden == nil {
		p.hidden = map[string]string{}
	}
	for name, reason := range why {
		p.hidden[name] = reason
	}
	p.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(why)) {
		fmt.Fprintf(p.Log, "moat: %s\n", why[name])
		if p.Record != nil {
			p.Record(RecordList, p.toolCall(conn, name), call.Decision{Verdict: call.Deny, Rule: "mcp-tool-list", Reason: why[name], Findings: reasons[name]})
		}
	}
	return drop
}

// toolCall is the call that records about a tool of the server are about, for the
// client of conn.
func (p *Proxy) toolCall(conn *Conn, tool string) call.Call {
	return call.Call{Class: call.MCP, Agent: conn.agent(), Tool: "mcp__" + p.Server + "__" + tool, MCP: &call.MCPTarget{Server: p.Server, Tool: tool}, Cwd: p.Cwd, Project: p.Project}
}

// hiddenReason says why a tool was taken out of the list, and how the user can bring a
// changed one back.
func hiddenReason(server, tool string, fs []call.Finding) string {
	var parts []string
	changed := false
	for _, f := range fs {
		parts = append(parts, f.ID+": "+f.Evidence)
		changed = changed || f.ID == toolscan.FindChanged
	}
	s := fmt.Sprintf("the tool %s of the MCP server %s is hidden and its calls refused (%s)", tool, server, strings.Join(parts, "; "))
	if changed {
		s += "; after reviewing the new definition, the user can accept it with `moat mcp pin --accept " + server + "`"
	}
	return s
}

// hiddenTool returns why calls to tool are refused: its listing was withheld, or its
// definition changed (as this or another proxy for the server saw) and the user has not
// accepted the change, even if this client never listed the tools again.
func (p *Proxy) hiddenTool(tool string) (string, bool) {
	p.mu.Lock()
	r, ok := p.hidden[tool]
	p.mu.Unlock()
	if ok || p.Pins == nil || p.warnChanged() {
		return r, ok
	}
	p.pinsMu.Lock()
	defer p.pinsMu.Unlock()
	for _, c := range p.Pins.Pending() {
		if c.Tool == tool {
			f := c.Finding(p.Server)
			return scan.Redact(hiddenReason(p.Server, tool, []call.Finding{f})), true
		}
	}
	return "", false
}

func (p *Proxy) warnChanged() bool { return p.ChangedTools == policy.ChangedToolWarn }

// warnOfChanges reports tools whose definitions changed since they were pinned, when the
// policy keeps them listed: the pins are left as they were, so the warning comes back at
// every listing until the user accepts the change.
func (p *Proxy) warnOfChanges(conn *Conn, changed []toolscan.Change) {
	for _, c := range changed {
		f := c.Finding(p.Server)
		why := scan.Redact(fmt.Sprintf("the tool %s of the MCP server %s changed since it was pinned (%s); it stays listed because the policy says mcp.changed_tools: warn; after reviewing the new definition, accept it with `moat mcp pin --accept %s`", c.Tool, p.Server, f.Evidence, p.Server))
		fmt.Fprintf(p.Log, "moat: warning: %s\n", why)
		if p.Record != nil {
			p.Record(RecordList, p.toolCall(conn, c.Tool), call.Decision{Verdict: call.Audit, Rule: "mcp-tool-list", Reason: why, Findings: []call.Finding{f}})
		}
	}
}
