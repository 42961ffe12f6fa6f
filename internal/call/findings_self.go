package call

// selfKinds are the findings of the guard of moat's own command line
// (internal/selfguard), which self-protection denies.
var selfKinds = []FindingKind{
	{ID: "tamper.protected-link", Category: "tamper", Severity: High, Taxonomy: "T1562.001", Summary: "makes a link to one of moat's protected files (its policy, trust store or audit log, an agent's hook settings): another name through which a later call could change it"},
	{ID: "tamper.moat-command", Category: "tamper", Severity: Critical, Taxonomy: "T1562.001", Summary: "runs one of moat's own commands in a way that loosens its protection: removes its hooks or proxy, trusts or chooses a policy, accepts changed MCP tools, or decides as another agent"},
}
