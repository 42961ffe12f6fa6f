package toolscan

// Finding ids of a tool listing; the kinds are catalogued in package call
// (findings_mcp.go), which grades them.
const (
	FindPoisoning = "mcp.tool-poisoning"
	FindShadowing = "mcp.tool-shadowing"
	FindHidden    = "mcp.hidden-text"
	FindChanged   = "mcp.tool-changed"
)
