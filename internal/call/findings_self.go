package call

// selfKinds are the findings of the guard of moat's own command line
// (internal/selfguard), which self-protection denies.
var selfKinds = []FindingKind{
	{ID: "tamper.moat-command", Category: "tamper", Severity: Critical, Taxonomy: "T1562.001", Summary: "runs one of moat's own commands in a way that loosens its protection: removes its hooks or proxy, trusts or chooses a policy, accepts changed MCP tools, or decides as another agent"},
}
