package planted

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of files that tools run later without asking
// (this package), besides those of the code such a file carries.
var Kinds = call.FindingKinds{
	{ID: "persistence.path-shadow", Category: "persistence", Severity: call.High, Taxonomy: "T1574.007", Summary: "writes a program into a directory on PATH under the name of a common program (ls, git, sudo…), so that it runs in that program's place"},
}
