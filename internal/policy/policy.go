// Package policy reads, validates and compiles moat policy files and the rule packs embedded
// in the binary, and matches compiled rules against the units of a call.
package policy

import (
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/pathset"
)

// FailMode says what a caller does when it cannot evaluate a call at all.
type FailMode string

// Failure modes.
const (
	FailClosed FailMode = "closed" // deny
	FailOpen   FailMode = "open"   // allow, with a visible warning
)

// Policy is a compiled policy: the file's own rules, then the rules of its packs, ready to
// be matched. It is immutable after Load and safe for concurrent use.
type Policy struct {
	// Source names where the policy came from: a file path, or "embedded:NAME".
	Source  string
	Default call.Verdict
	Fail    FailMode
	// Serial is the policy's `serial:` (0 when it has none): signed policies count up, and
	// moat refuses one older than the newest it accepted (package policysign).
	Serial int64
	// Hooks says how hooks put allows and asks to the agents.
	Hooks Hooks
	// Approvals says which asks wait in moat's approval queue.
	Approvals Approvals
	// Output says what hooks do with tool outputs that hold injection or credentials.
	Output Output
	// MCP says what the MCP proxy does with tools whose definitions changed.
	MCP MCP
	// Workspace lists the absolute project roots $workspace stands for. Empty means each
	// call's own project directory.
	Workspace []string
	Packs     []string
	// Wrappers are programs declared to run the program named in their arguments.
	Wrappers []Wrapper
	// Rules are in evaluation order: the file's rules, then each pack's.
	Rules []*Rule
	Tests []Test
	// Sandbox is the policy's sandbox section for `moat launch`; nil when it has none.
	Sandbox *Sandbox

	// Keys are the top-level keys the document writes, with their lines: a setting the
	// managed layer writes is locked (see Combine).
	Keys map[string]int
	// Included are the files `extends` read, absolute, in the order read.
	Included []string
	// ForbidAllow matches the calls that only the managed layer may allow (see Combine);
	// nil when the document has no forbid_allow.
	ForbidAllow *Rule
	// Layers, set by Combine, are the policies this one combines, highest first; nil for
	// a policy loaded from one document.
	Layers []Layer

	byClass map[call.Class][]*Rule
}

// Candidates returns, in order, the rules that can match a call of class c. Rules whose
// conditions rule the class out are never tried, so the cost of a call does not grow
// with rules written for other classes.
func (p *Policy) Candidates(c call.Class) []*Rule { return p.byClass[c] }

// Rule is one compiled rule.
type Rule struct {
	ID          string
	Description string
	Decision    call.Verdict
	Reason      string
	// Origin is the file the rule came from, or "pack NAME".
	Origin string
	Line   int
	// Limit, when set, makes the rule apply only to the calls over it: the calls that
	// match its conditions within the limit fall through to the rules below.
	Limit *Limit

	tool     *toolCond
	command  *commandCond
	paths    *pathsCond
	args     []*argCond
	findings *findingsCond
	agents   []call.Agent
	classes  []call.Class // the classes the rule can match, derived from its conditions
}

// Test is an inline policy test: a call and the decision the policy must reach.
type Test struct {
	Name string
	Line int
	// Call is the call to evaluate, canonical; its Cwd may be empty, meaning the runner's.
	Call   call.Call
	Expect call.Verdict
	// Rule, when set, is the rule id that must decide.
	Rule string
}

// Host is what compiling a policy depends on outside the file.
type Host = pathset.Host
