package toolscan

import "github.com/moatdev/moat/internal/call"

// Finding ids of a tool listing.
const (
	FindPoisoning = "mcp.tool-poisoning"
	FindShadowing = "mcp.tool-shadowing"
	FindHidden    = "mcp.hidden-text"
	FindChanged   = "mcp.tool-changed"
)

// FindingKinds are the findings of this package, sorted by id, in the form of the catalog
// in package call, which is where they belong: until they are registered there, Inspect
// grades its findings from this list, so that they do not fall back to "uncatalogued".
//
// A tool's definition is text the model reads as guidance from the user's own setup,
// which makes poisoning an indirect prompt injection (MITRE ATLAS AML.T0051.001); a
// definition that changes after it was approved is a compromise of what the user
// installed (ATT&CK T1195, supply chain compromise).
var FindingKinds = []call.FindingKind{
	{ID: FindHidden, Category: "injection", Severity: call.Critical, Taxonomy: "T1027", Summary: "an MCP tool's definition holds text a human reviewer does not see and the model reads: Unicode tag or zero-width characters, an HTML comment, an encoded instruction, a name in look-alike letters"},
	{ID: FindChanged, Category: "supply-chain", Severity: call.High, Taxonomy: "T1195", Summary: "an MCP tool's description or input schema differs from the definition pinned when it was first seen or last accepted (a rug pull)"},
	{ID: FindPoisoning, Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051.001", Summary: "an MCP tool's description or parameter documentation gives the model instructions: read files or credentials, put data in a parameter, hide something from the user, override its instructions"},
	{ID: FindShadowing, Category: "injection", Severity: call.High, Taxonomy: "AML.T0051.001", Summary: "an MCP tool's definition tries to change how another tool is used: it names another server's tool, gives orders for when another tool is called, or imitates another tool's name"},
}

// newFinding returns a finding of kind id, graded by package call's catalog when the id
// is registered there and by FindingKinds until it is.
func newFinding(id, evidence string) call.Finding {
	if _, ok := call.LookupFinding(id); ok {
		return call.NewFinding(id, evidence)
	}
	for _, k := range FindingKinds {
		if k.ID == id {
			return call.Finding{ID: k.ID, Category: k.Category, Severity: k.Severity, Taxonomy: k.Taxonomy, Evidence: evidence}
		}
	}
	return call.NewFinding(id, evidence)
}
