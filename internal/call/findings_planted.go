package call

// plantedKinds are the findings of files that tools run later without asking
// (internal/planted), besides those of the code such a file carries.
var plantedKinds = []FindingKind{
	{ID: "persistence.path-shadow", Category: "persistence", Severity: High, Taxonomy: "T1574.007", Summary: "writes a program into a directory on PATH under the name of a common program (ls, git, sudo…), so that it runs in that program's place"},
}
