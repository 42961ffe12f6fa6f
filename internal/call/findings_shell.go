package call

// shellKinds are the findings of shell command analysis.
var shellKinds = []FindingKind{
	{ID: "destructive.fs.recursive-delete", Category: "destructive", Severity: High, Taxonomy: "T1485", Summary: "deletes a directory tree"},
	{ID: "evasion.dynamic-command", Category: "evasion", Severity: High, Taxonomy: "T1027", Summary: "the program to run is computed at run time and cannot be known before it runs"},
	{ID: "shell.parse-error", Category: "analysis", Severity: Medium, Taxonomy: "T1027", Summary: "the command line does not parse as a shell command, so what it runs is unknown"},
	{ID: "shell.too-deep", Category: "analysis", Severity: Medium, Taxonomy: "T1027", Summary: "the command line nests brackets deeper than moat analyses, so what it runs is unknown"},
	{ID: "evasion.nul-byte", Category: "evasion", Severity: High, Taxonomy: "T1027", Summary: "the command line holds NUL bytes, which shells and agents drop, cut at or refuse, so it may run something other than what is analysed"},
}
