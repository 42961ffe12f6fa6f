package sqlscan

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of the statements sqlscan recognises, which the shell reports
// for database clients' scripts and the engine for MCP tools that run SQL, redis or mongo
// commands. Taxonomy is the MITRE ATT&CK technique each is evidence of.
var Kinds = call.FindingKinds{
	{ID: "destructive.db.drop", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "drops or truncates a database, table or key space"},
	{ID: "destructive.db.unbounded-write", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes or updates every row of a table (no WHERE clause, or one that holds for every row: WHERE 1=1)"},
	{ID: "persistence.redis-config", Category: "persistence", Severity: call.High, Taxonomy: "T1505", Summary: "points Redis's dump file at another directory, a known way to write files on a server"},
}
