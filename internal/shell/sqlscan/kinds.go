package sqlscan

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of the statements sqlscan recognises, which the shell reports
// for database clients' scripts and the engine for MCP tools that run SQL, redis or mongo
// commands. Taxonomy is the MITRE ATT&CK technique each is evidence of.
var Kinds = call.FindingKinds{
	{ID: "destructive.db.drop", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "drops, truncates or overwrites a database, table or key space"},
	{ID: "destructive.db.unbounded-write", Category: "destructive", Severity: call.High, Taxonomy: "T1485", Summary: "deletes or updates every row of a table (no WHERE clause, or one that holds for every row: WHERE 1=1)"},
	{ID: "privilege.db-server", Category: "privilege", Severity: call.High, Taxonomy: "T1059", Summary: "reaches past the database into its server, or makes a superuser: runs a program (COPY … PROGRAM, xp_cmdshell) or untrusted procedural code, reads or writes the server's files (pg_read_file, lo_export, INTO OUTFILE, LOAD_FILE), loads an extension"},
	{ID: "privilege.db-grant", Category: "privilege", Severity: call.High, Taxonomy: "T1098", Summary: "hands out access to the database, or to the application it serves: GRANT, a user or role created or altered (a password, a login), row-level security switched off, an account made an administrator in the application's tables (is_admin = true, role = 'admin')"},
	{ID: "persistence.redis-config", Category: "persistence", Severity: call.High, Taxonomy: "T1505", Summary: "points Redis's dump file at another directory, a known way to write files on a server"},
}
