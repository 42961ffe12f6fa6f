package toolscan

import "github.com/moatdev/moat/internal/call"

// Finding ids of a tool listing, declared in Kinds.
const (
	FindPoisoning = "mcp.tool-poisoning"
	FindShadowing = "mcp.tool-shadowing"
	FindHidden    = "mcp.hidden-text"
	FindChanged   = "mcp.tool-changed"
)

// Kinds are the findings about the tools an MCP server lists. A tool's definition is
// text the model reads as guidance from the user's own setup, so poisoning it is an
// indirect prompt injection (MITRE ATLAS AML.T0051.001); a definition that changes after
// it was approved is a compromise of what the user installed (ATT&CK T1195).
var Kinds = call.FindingKinds{
	{ID: "mcp.hidden-text", Category: "injection", Severity: call.Critical, Taxonomy: "T1027", Summary: "an MCP tool's definition holds text a human reviewer does not see and the model reads: Unicode tag or zero-width characters, an HTML comment, an encoded instruction, a name in look-alike letters"},
	{ID: "mcp.tool-changed", Category: "supply-chain", Severity: call.High, Taxonomy: "T1195", Summary: "an MCP tool's description or input schema differs from the definition pinned when it was first seen or last accepted (a rug pull)"},
	{ID: "mcp.tool-poisoning", Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051.001", Summary: "an MCP tool's description or parameter documentation gives the model instructions: read files or credentials, put data in a parameter, hide something from the user, override its instructions"},
	{ID: "mcp.tool-shadowing", Category: "injection", Severity: call.High, Taxonomy: "AML.T0051.001", Summary: "an MCP tool's definition tries to change how another tool is used: it names another server's tool, gives orders for when another tool is called, or imitates another tool's name"},
}

// newFinding returns a finding of the kind id, declared in Kinds or, for text too long
// to inspect, in call.InputKinds.
func newFinding(id, evidence string) call.Finding {
	if k, ok := call.InputKinds.Lookup(id); ok {
		return k.New(evidence)
	}
	return Kinds.New(id, evidence)
}
