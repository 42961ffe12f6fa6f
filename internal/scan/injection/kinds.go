package injection

import "github.com/moatdev/moat/internal/call"

// Kinds are the findings of the prompt-injection detector: text an agent reads
// or writes that tries to take control of it (MITRE ATLAS AML.T0051, LLM prompt
// injection; the ATT&CK field holds the ATLAS id).
var Kinds = call.FindingKinds{
	{ID: "injection.instruction-override", Category: "injection", Severity: call.High, Taxonomy: "AML.T0051", Summary: "text that tells the model to ignore its instructions, take another identity or follow new orders"},
	{ID: "injection.role-tag", Category: "injection", Severity: call.High, Taxonomy: "AML.T0051", Summary: "chat-template control tokens or fake system tags ([INST], <|im_start|>, <system>) that pose as the model's own prompt"},
	{ID: "injection.hidden-instruction", Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051", Summary: "instructions hidden from a human reader: in an HTML comment, invisible styling, or encoded in base64 or hex"},
	{ID: "injection.secret-request", Category: "injection", Severity: call.High, Taxonomy: "AML.T0051", Summary: "text that asks the model for passwords, keys, its system prompt or people's personal data"},
	{ID: "injection.file-coercion", Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051", Summary: "text that tells the model to read credential files or pass data in extra tool parameters"},
	{ID: "injection.exfiltration", Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051", Summary: "text that tells the model to send data away, such as an image URL that carries it"},
	{ID: "injection.safety-bypass", Category: "injection", Severity: call.High, Taxonomy: "AML.T0054", Summary: "text that tells the model to disable or bypass safety tooling, or to act as an unrestricted persona"},
	{ID: "injection.concealment", Category: "injection", Severity: call.High, Taxonomy: "AML.T0051", Summary: "text that tells the model to keep something from the user"},
	{ID: "injection.output-manipulation", Category: "injection", Severity: call.Medium, Taxonomy: "AML.T0051", Summary: "text that dictates what the model's answer must contain or how it must be encoded, or code it must insert"},
	{ID: "injection.invisible-text", Category: "injection", Severity: call.Critical, Taxonomy: "AML.T0051", Summary: "text hidden in Unicode tag characters, invisible to a human and read by the model"},
}
