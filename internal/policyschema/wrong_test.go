package policyschema

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/policy"
)

// wrongDocuments are documents with one mistake each, which the loader refuses: the
// schema must refuse them too, and say where.
var wrongDocuments = []struct {
	name string
	doc  string
	at   string // where the validator reports the mistake
	want string // what it says
}{
	{"no version", "default: deny\n", "", "missing property 'version'"},
	{"version 2", "version: 2\n", "/version", "value must be 1"},
	{"version as a string", "version: \"1\"\n", "/version", "got string, want integer"},
	{"unknown top-level key", "version: 1\ndefualt: deny\n", "", "additional properties 'defualt' not allowed"},
	{"unknown verdict", "version: 1\ndefault: maybe\n", "/default", "value must be one of 'allow', 'audit', 'ask', 'deny'"},
	{"unknown fail mode", "version: 1\nfail: later\n", "/fail", "value must be one of 'closed', 'open'"},
	{"rules as a mapping", "version: 1\nrules: {id: x, decision: deny}\n", "/rules", "got object, want null or array"},
	{"rule without decision", "version: 1\nrules:\n  - id: x\n    tool: shell\n", "/rules/0", "missing property 'decision'"},
	{"unknown rule key", "version: 1\nrules:\n  - id: x\n    decison: deny\n    decision: deny\n", "/rules/0", "additional properties 'decison' not allowed"},
	{"bad rule id", "version: 1\nrules:\n  - {id: -x, decision: deny, tool: shell}\n", "/rules/0/id", "does not match pattern"},
	{"unknown agent", "version: 1\nrules:\n  - {id: x, decision: deny, agent: claude}\n", "/rules/0/agent", "value must be one of"},
	{"unknown tool", "version: 1\nrules:\n  - {id: x, decision: deny, tool: Bsh}\n", "/rules/0/tool", "value must be one of 'shell', 'file.read'"},
	{"unknown finding", "version: 1\nrules:\n  - {id: x, decision: deny, findings: [secret.nope]}\n", "/rules/0/findings/0", "'secret.nope' does not match pattern"},
	{"empty tool list", "version: 1\nrules:\n  - {id: x, decision: deny, tool: []}\n", "/rules/0/tool", "minItems"},
	{"command without program", "version: 1\nrules:\n  - {id: x, decision: deny, command: {flags: [r]}}\n", "/rules/0/command", "missing property 'program'"},
	{"unknown access kind", "version: 1\nrules:\n  - {id: x, decision: deny, paths: {erase: [/]}}\n", "/rules/0/paths", "additional properties 'erase' not allowed"},
	{"empty paths", "version: 1\nrules:\n  - {id: x, decision: deny, paths: {}}\n", "/rules/0/paths", "minProperties"},
	{"argument test on a list", "version: 1\nrules:\n  - {id: x, decision: deny, args: {to: [a, b]}}\n", "/rules/0/args/to", "got array, want object"},
	{"unknown argument test", "version: 1\nrules:\n  - {id: x, decision: deny, args: {n: {above: 3}}}\n", "/rules/0/args/n", "additional properties 'above' not allowed"},
	{"number test on a string", "version: 1\nrules:\n  - {id: x, decision: deny, args: {n: {gt: lots}}}\n", "/rules/0/args/n/gt", "got string, want number"},
	{"limit without per", "version: 1\nrules:\n  - {id: x, decision: deny, limit: lots}\n", "/rules/0/limit", "does not match pattern"},
	// A name like a drop-in pack's is the loader's to check (it lists the drop-in directories);
	// the schema refuses what no pack can be called.
	{"impossible pack name", "version: 1\npacks: [Team Deploy]\n", "/packs/0", "does not match pattern"},
	{"hooks.allow", "version: 1\nhooks: {allow: always}\n", "/hooks/allow", "value must be one of 'defer', 'explicit'"},
	{"hooks.deadline", "version: 1\nhooks: {deadline: soon}\n", "/hooks/deadline", "does not match pattern"},
	{"approvals.notify", "version: 1\napprovals: {notify: yes please}\n", "/approvals/notify", "got string, want boolean"},
	{"output.injection redact", "version: 1\noutput: {injection: redact}\n", "/output/injection", "value must be one of 'warn', 'block'"},
	{"mcp.changed_tools", "version: 1\nmcp: {changed_tools: ignore}\n", "/mcp/changed_tools", "value must be one of 'block', 'warn'"},
	{"wrapper operands", "version: 1\nwrappers:\n  - {name: w, operands: 9}\n", "/wrappers/0/operands", "maximum"},
	{"wrapper option", "version: 1\nwrappers:\n  - {name: w, value_options: [user]}\n", "/wrappers/0/value_options/0", "'user' does not match pattern"},
	{"test with command and tool", "version: 1\ntests:\n  - {command: ls, tool: Bash, expect: allow}\n", "/tests/0", "'oneOf' failed, subschemas 0, 1 matched"},
	{"test without expect", "version: 1\ntests:\n  - {command: ls}\n", "/tests/0", "missing property 'expect'"},
	{"sandbox port", "version: 1\nsandbox: {connect: [70000]}\n", "/sandbox/connect/0", "maximum: got 70,000, want 65,535"},
	{"sandbox relative path", "version: 1\nsandbox: {read: [src]}\n", "/sandbox/read/0", "'src' does not match pattern"},
	{"sandbox scope", "version: 1\nsandbox: {scope: {signals: no-thanks}}\n", "/sandbox/scope/signals", "got string, want boolean"},
	{"sandbox limit", "version: 1\nsandbox: {limits: {memory: lots}}\n", "/sandbox/limits/memory", "'lots' does not match pattern"},
	{"sandbox env value", "version: 1\nsandbox: {env: {set: {A: 1}}}\n", "/sandbox/env/set/A", "got number, want string"},
	{"pack with a policy key", "version: 1\npack: mine\ndefault: deny\n", "", "additional properties 'default' not allowed"},
	{"pack rule without id", "version: 1\npack: mine\nrules:\n  - {decision: deny, tool: shell}\n", "/rules/0", "missing property 'id'"},
}

// TestWrongDocuments checks that deliberately wrong documents, which the loader refuses,
// get the schema's error too, at the right place.
func TestWrongDocuments(t *testing.T) {
	s := compiled(t, "")
	for _, tt := range wrongDocuments {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.doc)
			err := s.Validate(instance(t, tt.name, data))
			if err == nil {
				t.Fatalf("the schema accepts\n%s", tt.doc)
			}
			msg := err.Error()
			if !strings.Contains(msg, "at '"+tt.at+"'") || !strings.Contains(msg, tt.want) {
				t.Errorf("the schema's error is\n%s\nwant %q at '%s'", msg, tt.want, tt.at)
			}
			if strings.Contains(tt.doc, "\npack:") {
				return // the loader reads packs only from its own directories
			}
			if _, err := policy.Load("moat.yaml", data, testHost); err == nil {
				t.Errorf("the loader accepts this document, so the schema must too:\n%s", tt.doc)
			}
		})
	}
}
