package selfguard

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of self-protection, which denies them: the guard of moat's own
// command line (this package), and the engine's check of links to protected files, which
// works on the file identities only the engine resolves.
var Kinds = call.FindingKinds{
	{ID: "tamper.protected-link", Category: "tamper", Severity: call.High, Taxonomy: "T1562.001", Summary: "makes a link to one of moat's protected files (its policy, trust store or audit log, an agent's hook settings): another name through which a later call could change it"},
	{ID: "tamper.moat-command", Category: "tamper", Severity: call.Critical, Taxonomy: "T1562.001", Summary: "runs one of moat's own commands in a way that loosens its protection: removes its hooks or proxy, trusts or chooses a policy, accepts changed MCP tools, or decides as another agent"},
}
