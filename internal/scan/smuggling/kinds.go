package smuggling

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of Unicode smuggling: characters a reader does not see, or
// sees as something else (ATT&CK T1027 obfuscation; bidi reordering is T1036.002).
var Kinds = call.FindingKinds{
	{ID: "unicode.zero-width", Category: "evasion", Severity: call.High, Taxonomy: "T1027", Summary: "holds zero-width characters, invisible to a reader, outside emoji sequences"},
	{ID: "unicode.bidi-control", Category: "evasion", Severity: call.High, Taxonomy: "T1036.002", Summary: "holds bidirectional controls, which make text display in another order than it runs"},
	{ID: "unicode.tag-characters", Category: "evasion", Severity: call.Critical, Taxonomy: "T1027", Summary: "holds Unicode tag characters, invisible ASCII that models read; the hidden text is decoded into the evidence"},
	{ID: "unicode.variation-selector", Category: "evasion", Severity: call.Medium, Taxonomy: "T1027", Summary: "holds variation selectors that follow no emoji, a way to carry hidden data"},
	{ID: "unicode.confusable", Category: "evasion", Severity: call.High, Taxonomy: "T1036", Summary: "a command name, path or domain written with letters of another script that imitate ASCII (сurl with a Cyrillic с)"},
	{ID: "unicode.compatibility-form", Category: "evasion", Severity: call.Medium, Taxonomy: "T1027", Summary: "holds look-alike forms (fullwidth, mathematical letters) that normalise to ASCII; it is analysed as normalised"},
}
