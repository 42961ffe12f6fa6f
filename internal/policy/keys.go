package policy

import "slices"

// Where a mapping sits in a policy or pack document, as DocumentKeys names it.
const (
	MappingPolicy         = "policy"          // the policy's top level
	MappingPack           = "pack"            // a pack document's top level
	MappingRule           = "rule"            // one entry of rules
	MappingTest           = "test"            // one entry of tests
	MappingHooks          = "hooks"           // hooks
	MappingApprovals      = "approvals"       // approvals
	MappingOutput         = "output"          // output
	MappingMCP            = "mcp"             // mcp
	MappingWrapper        = "wrapper"         // one entry of wrappers
	MappingCommand        = "command"         // a rule's command written as a mapping
	MappingPaths          = "paths"           // a rule's paths
	MappingArgTests       = "args.tests"      // the tests on one argument of a rule's args
	MappingSandbox        = "sandbox"         // a policy's sandbox
	MappingSandboxProfile = "sandbox-profile" // a sandbox profile document
	MappingSandboxScope   = "sandbox.scope"   // sandbox.scope
	MappingSandboxLimits  = "sandbox.limits"  // sandbox.limits
	MappingSandboxEnv     = "sandbox.env"     // sandbox.env
)

// DocumentKeys returns the keys the loader accepts in each kind of mapping of a policy or
// pack document, by where the mapping sits (the Mapping constants). Descriptions of the
// document kept elsewhere, such as its JSON Schema, are tested against it, so that a key
// added to the loader cannot be missing from them. The lists are copies.
func DocumentKeys() map[string][]string {
	keys := map[string][]string{
		MappingPolicy:         topKeys,
		MappingPack:           packKeys,
		MappingRule:           ruleKeys,
		MappingTest:           testKeys,
		MappingHooks:          hooksKeys,
		MappingApprovals:      approvalsKeys,
		MappingOutput:         outputKeys,
		MappingMCP:            mcpKeys,
		MappingWrapper:        wrapperKeys,
		MappingCommand:        commandKeys,
		MappingPaths:          pathKinds,
		MappingArgTests:       argOpKeys,
		MappingSandbox:        sandboxKeys,
		MappingSandboxProfile: profileKeys,
		MappingSandboxScope:   scopeKeys,
		MappingSandboxLimits:  limitKeys,
		MappingSandboxEnv:     envKeys,
	}
	for k, v := range keys {
		keys[k] = slices.Clone(v)
	}
	return keys
}

// Choices returns the values the loader accepts for each setting that takes one of a
// closed set of words, by the setting's dotted path ("fail", "hooks.allow", "limit.scope"
// for the scope word of a rule's limit). Verdicts are call.Verdict's, agents call.Agents'
// and pack names PackNames'. The lists are copies.
func Choices() map[string][]string {
	choices := map[string][]string{
		"fail":              {string(FailClosed), string(FailOpen)},
		"hooks.allow":       slices.Clone(hookAllowForms),
		"hooks.ask":         slices.Clone(hookAskForms),
		"approvals.queue":   slices.Clone(approvalQueues),
		"mcp.changed_tools": slices.Clone(changedToolActions),
		"limit.scope":       slices.Clone(limitScopes),
	}
	for k, actions := range outputActions {
		choices["output."+k] = slices.Clone(actions)
	}
	return choices
}
