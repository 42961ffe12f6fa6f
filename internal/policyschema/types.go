package policyschema

import (
	"reflect"
	"slices"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/policy"
)

// The leaves of the document: each says its own schema. The words of closed sets come
// from the code that reads them (call, findings, policy), never from copies.

// durationPattern is a Go duration such as 2s, 1m30s or 1500ms; bounds are the loader's.
const durationPattern = `^((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`

// Version is the version of the policy language.
type Version int

func (Version) schema(*generator) *Schema { return &Schema{Type: "integer", Const: 1} }

// Verdict is a decision.
type Verdict string

func (Verdict) schema(*generator) *Schema {
	var words []string
	for v := call.Allow; v.Valid(); v++ {
		words = append(words, v.String())
	}
	return &Schema{
		Description: "allow lets the call run; audit lets it run and flags it; ask requires approval; deny refuses it.",
		Type:        "string",
		Enum:        words,
	}
}

// choice is the schema of a setting that takes one word of policy.Choices()[key].
func (g *generator) choice(key string) *Schema {
	words, ok := policy.Choices()[key]
	if !ok || len(words) == 0 {
		g.fail("policy.Choices() has no words for %q", key)
	}
	return &Schema{Type: "string", Enum: words}
}

// FailMode is the policy's fail setting.
type FailMode string

func (FailMode) schema(g *generator) *Schema { return g.choice("fail") }

// HookAllow is hooks.allow.
type HookAllow string

func (HookAllow) schema(g *generator) *Schema { return g.choice("hooks.allow") }

// HookAsk is hooks.ask.
type HookAsk string

func (HookAsk) schema(g *generator) *Schema { return g.choice("hooks.ask") }

// ApprovalQueue is approvals.queue.
type ApprovalQueue string

func (ApprovalQueue) schema(g *generator) *Schema { return g.choice("approvals.queue") }

// InjectionAction is output.injection.
type InjectionAction string

func (InjectionAction) schema(g *generator) *Schema { return g.choice("output.injection") }

// SecretsAction is output.secrets.
type SecretsAction string

func (SecretsAction) schema(g *generator) *Schema { return g.choice("output.secrets") }

// ChangedToolAction is mcp.changed_tools.
type ChangedToolAction string

func (ChangedToolAction) schema(g *generator) *Schema { return g.choice("mcp.changed_tools") }

// HookDeadline is hooks.deadline.
type HookDeadline string

func (HookDeadline) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: durationPattern}
}

// ApprovalExpiry is approvals.expire.
type ApprovalExpiry string

func (ApprovalExpiry) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: durationPattern}
}

// OneOrMore is a key written as one T or a non-empty list of them.
type OneOrMore[T any] []T

func (OneOrMore[T]) schema(g *generator) *Schema {
	one := g.schemaOf(reflect.TypeFor[T]())
	return &Schema{AnyOf: []*Schema{one, {Type: "array", Items: g.schemaOf(reflect.TypeFor[T]()), MinItems: ptr(1)}}}
}

// ItemOrList is a key written as one T or a list of them, which may be empty.
type ItemOrList[T any] []T

func (ItemOrList[T]) schema(g *generator) *Schema {
	one := g.schemaOf(reflect.TypeFor[T]())
	return &Schema{AnyOf: []*Schema{one, {Type: "array", Items: g.schemaOf(reflect.TypeFor[T]())}}}
}

// List is a list of T, which the loader also takes empty (null).
type List[T any] []T

func (List[T]) schema(g *generator) *Schema {
	return &Schema{Type: []string{"array", "null"}, Items: g.schemaOf(reflect.TypeFor[T]())}
}

// PackName is the name of a pack: one of moat's own, which editors offer, or a team's
// drop-in pack, which only the machine that runs the policy can list.
type PackName string

func (PackName) schema(*generator) *Schema {
	return &Schema{AnyOf: []*Schema{
		{Type: "string", Enum: policy.PackNames()},
		{Type: "string", Pattern: policy.DropInNamePattern, Description: "A drop-in pack: NAME.yaml in the managed directory's or your configuration directory's packs/ (moat packs list shows them)."},
	}}
}

// AgentName is an agent moat knows.
type AgentName string

func (AgentName) schema(*generator) *Schema {
	var names []string
	for _, a := range call.Agents() {
		names = append(names, string(a))
	}
	return &Schema{Type: "string", Enum: names}
}

// RuleID is a rule's id.
type RuleID string

func (RuleID) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^[A-Za-z0-9][A-Za-z0-9._/-]*$`}
}

// globPattern holds a glob's special characters.
const globPattern = `[*?\[{]`

// ToolName is one entry of a rule's tool.
type ToolName string

func (ToolName) schema(*generator) *Schema {
	classes := make([]string, len(call.Classes))
	for i, c := range call.Classes {
		classes[i] = string(c)
	}
	var native []string
	for _, nt := range call.NativeTools {
		native = append(native, nt.Name)
	}
	slices.Sort(native)
	return &Schema{
		Description: "A class, a native tool name, mcp:SERVER/TOOL, other:NAME or a glob over them.",
		Type:        "string",
		AnyOf: []*Schema{
			{Description: "A class of calls.", Enum: classes},
			{Description: "A native tool name of an agent moat knows.", Enum: slices.Compact(native)},
			{Description: "An MCP tool (mcp:SERVER/TOOL), or a tool moat does not know (other:NAME).", Pattern: `^(mcp:|mcp__|other:)`},
			{Description: "A glob over classes or native tool names.", Pattern: globPattern},
		},
	}
}

// CommandPattern is one shell command a rule matches.
type CommandPattern struct{}

func (CommandPattern) schema(g *generator) *Schema {
	return &Schema{AnyOf: []*Schema{
		{Description: "The command's words, globs allowed: \"git push --force *\".", Type: "string", MinLength: ptr(1)},
		g.schemaOf(reflect.TypeFor[CommandMatch]()),
	}}
}

// Args are a rule's tests on arguments, by argument path.
type Args map[string]ArgCondition

func (Args) schema(g *generator) *Schema {
	return &Schema{
		Type:                 "object",
		AdditionalProperties: g.schemaOf(reflect.TypeFor[ArgCondition]()),
		MinProperties:        ptr(1),
	}
}

// ArgCondition is a value the argument equals, or tests on it.
type ArgCondition struct{}

func (ArgCondition) schema(g *generator) *Schema {
	return &Schema{AnyOf: []*Schema{
		g.schemaOf(reflect.TypeFor[ArgValue]()),
		g.schemaOf(reflect.TypeFor[ArgTests]()),
	}}
}

// ArgValue is one value an argument can carry.
type ArgValue struct{}

func (ArgValue) schema(*generator) *Schema {
	return &Schema{Type: []string{"string", "number", "boolean", "null"}}
}

// ArgString is the text of a glob, regex or contains test.
type ArgString string

func (ArgString) schema(*generator) *Schema {
	return &Schema{Type: []string{"string", "number", "boolean"}}
}

// FindingPattern is a finding id, or a glob over them.
type FindingPattern string

func (FindingPattern) schema(*generator) *Schema {
	kinds := findings.Kinds()
	ids := make([]string, len(kinds))
	for i, k := range kinds {
		ids[i] = k.ID
	}
	slices.Sort(ids)
	return &Schema{
		Type: "string",
		AnyOf: []*Schema{
			{Description: "A finding moat reports.", Enum: slices.Compact(ids)},
			{Description: "A glob over finding ids, such as secret.*.", Pattern: `[*?\[\\]`},
		},
	}
}

// Limit is a rule's rate limit.
type Limit string

func (Limit) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^\s*\d+\s+per\s+\S`}
}

// ProgramName is a program's name, without a directory.
type ProgramName string

func (ProgramName) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^[^/\s]+$`}
}

// WrapperOption is an option of a wrapper that takes a value.
type WrapperOption string

func (WrapperOption) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^(--.+|-[^-])$`}
}

// WrapperOperands is how many operands a wrapper takes before the command.
type WrapperOperands int

func (WrapperOperands) schema(*generator) *Schema {
	return &Schema{Type: "integer", Minimum: ptr(0), Maximum: ptr(8)}
}

// SandboxPath is a path pattern of the sandbox.
type SandboxPath string

func (SandboxPath) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^(\$|~$|~/|/|\*\*/)`}
}

// HomeStatePath is a literal path under ~/ that a sandboxed agent keeps.
type HomeStatePath string

func (HomeStatePath) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^~/[^*?\[{]+$`}
}

// Ports are the TCP ports of sandbox.connect or sandbox.bind.
type Ports struct{}

func (Ports) schema(g *generator) *Schema {
	port := reflect.TypeFor[Port]()
	return &Schema{AnyOf: []*Schema{
		{Description: "Every port.", Const: "any"},
		g.schemaOf(port),
		{Type: "array", Items: g.schemaOf(port)},
	}}
}

// Port is a TCP port, or a range of them.
type Port struct{}

func (Port) schema(*generator) *Schema {
	return &Schema{AnyOf: []*Schema{
		{Type: "integer", Minimum: ptr(1), Maximum: ptr(65535)},
		{Description: "A port, or a range of ports such as 8000-8100.", Type: "string", Pattern: `^\s*\d+\s*(-\s*\d+\s*)?$`},
	}}
}

// limitOf is a resource limit: a positive number, unlimited, or text the pattern allows.
func limitOf(minimum int, pattern string) *Schema {
	return &Schema{AnyOf: []*Schema{
		{Type: "integer", Minimum: ptr(minimum)},
		{Type: "string", Pattern: pattern},
	}}
}

// SizeLimit is sandbox.limits.memory.
type SizeLimit struct{}

func (SizeLimit) schema(*generator) *Schema {
	return limitOf(1<<20, `^(unlimited|\d+\s*(TiB|GiB|MiB|KiB|TB|GB|MB|KB|B)?)$`)
}

// CountLimit is sandbox.limits.open-files.
type CountLimit struct{}

func (CountLimit) schema(*generator) *Schema { return limitOf(1, `^(unlimited|\d+)$`) }

// ProcessLimit is sandbox.limits.processes.
type ProcessLimit struct{}

func (ProcessLimit) schema(*generator) *Schema { return limitOf(1, `^(unlimited|\+?\d+)$`) }

// TimeLimit is sandbox.limits.cpu-time.
type TimeLimit struct{}

func (TimeLimit) schema(*generator) *Schema {
	return limitOf(1, `^(unlimited|\d+|`+durationPattern[1:len(durationPattern)-1]+`)$`)
}

// EnvPattern is a variable name, or a pattern of letters, digits, _ and *.
type EnvPattern string

func (EnvPattern) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^[A-Za-z0-9_*]+$`}
}

// EnvName is a variable name.
type EnvName string

func (EnvName) schema(*generator) *Schema {
	return &Schema{Type: "string", Pattern: `^[A-Za-z0-9_]+$`}
}

// Serial is a policy's serial number.
type Serial int

func (Serial) schema(*generator) *Schema { return &Schema{Type: "integer", Minimum: ptr(1)} }
