package policyschema

import (
	"strings"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// The types below are the policy and pack documents as they are written, in YAML: they are
// never decoded into (internal/policy reads the documents, with positions for its errors),
// only reflected into the JSON Schema. Each field names its key with a yaml tag and says
// what it does with a doc tag, the description editors show; `schema:"required"` marks a
// key the loader requires. A key the loader accepts (policy.DocumentKeys) needs a field
// here, in the struct whose loaderMapping names that mapping: TestSchemaKeysMatchLoader
// fails until it has one.
//
// Types whose YAML form is not one Go shape (a string or a list of strings, a port or a
// range) and the words of closed sets describe themselves in types.go.

// Policy is a policy file, moat.yaml.
type Policy struct {
	Version     Version             `yaml:"version" schema:"required" doc:"The version of the policy language: 1."`
	Serial      Serial              `yaml:"serial" doc:"The policy's serial number, counted up by each signed release of it: a managed policy with a pinned key needs one, and one lower than a serial accepted before is refused."`
	Extends     OneOrMore[string]   `yaml:"extends" doc:"Packs by name and policy files by a path relative to this one (within its repository), whose rules follow this policy's own, in order."`
	Default     Verdict             `yaml:"default" doc:"The decision when no rule matches a call (default: ask)."`
	Fail        FailMode            `yaml:"fail" doc:"What callers do when moat cannot evaluate a call at all: closed denies it, open lets it run with a warning (default: closed)."`
	Hooks       Hooks               `yaml:"hooks" doc:"How the agents' hooks put decisions to each agent."`
	Approvals   Approvals           `yaml:"approvals" doc:"Which asks become pending approvals, answered with moat approve or moat deny."`
	Output      Output              `yaml:"output" doc:"What happens to tool outputs (fetched pages, files read, MCP results) in which scanning finds prompt injection or credentials."`
	MCP         MCP                 `yaml:"mcp" doc:"How the MCP proxy treats the tools of the servers it guards."`
	Workspace   OneOrMore[string]   `yaml:"workspace" doc:"What $workspace means: directories, absolute, under ~/ or relative to this file (default: each call's project root)."`
	Wrappers    List[Wrapper]       `yaml:"wrappers" doc:"Programs that run the command after their own options (like sudo or timeout), so that rules see the command they run."`
	Packs       OneOrMore[PackName] `yaml:"packs" doc:"Rule sets whose rules follow this policy's own: moat's own packs, or a team's drop-in packs (NAME.yaml in the managed directory's or your configuration directory's packs/); moat packs lists them."`
	Rules       List[Rule]          `yaml:"rules" doc:"The policy's rules, tried top to bottom: the first that matches decides."`
	Tests       List[Test]          `yaml:"tests" doc:"Calls with their expected decisions, run by moat test and moat validate."`
	Sandbox     Sandbox             `yaml:"sandbox" doc:"What a program started by moat launch may read, write, run and connect to (Landlock on Linux)."`
	ForbidAllow OneOrMore[ToolName] `yaml:"forbid_allow" doc:"In the managed policy: the tools lower layers may not allow; their allow of such a call becomes an ask."`
}

func (Policy) loaderMapping() string { return policy.MappingPolicy }

// The loader starts every policy from these (policy.Load).
func (Policy) defaults() map[string]any {
	return map[string]any{"default": call.Ask.String(), "fail": string(policy.FailClosed)}
}

// Pack is a pack document: a named rule set with its tests.
type Pack struct {
	Version     Version    `yaml:"version" schema:"required" doc:"The version of the policy language: 1."`
	Pack        string     `yaml:"pack" schema:"required" doc:"The pack's name, which policies list in packs: the file's name without .yaml."`
	Description string     `yaml:"description" doc:"One line on what the pack does, shown by moat packs."`
	Rules       List[Rule] `yaml:"rules" doc:"The pack's rules, tried top to bottom after the policy's own."`
	Tests       List[Test] `yaml:"tests" doc:"Calls with their expected decisions under a policy that enables only this pack, with default: allow."`
}

func (Pack) loaderMapping() string { return policy.MappingPack }

// Hooks is the hooks section.
type Hooks struct {
	Allow    HookAllow    `yaml:"allow" doc:"defer leaves a call the policy lets run to the agent's own permission prompts; explicit answers allow, which skips them (default: defer)."`
	Ask      HookAsk      `yaml:"ask" doc:"auto sends an ask only where the agent shows it to the user and denies elsewhere; deny denies every ask (default: auto)."`
	Deadline HookDeadline `yaml:"deadline" doc:"How long a hook may take before it answers in the agent's fail-closed form, a duration from 100ms to 30s such as 2s."`
}

func (Hooks) loaderMapping() string { return policy.MappingHooks }

func (Hooks) defaults() map[string]any {
	return map[string]any{"allow": string(policy.DefaultHooks.Allow), "ask": string(policy.DefaultHooks.Ask)}
}

// Approvals is the approvals section.
type Approvals struct {
	Queue  ApprovalQueue  `yaml:"queue" doc:"unattended queues the asks that cannot reach the user; always queues every ask; never queues none, so such an ask is a deny (default: unattended)."`
	Expire ApprovalExpiry `yaml:"expire" doc:"How long a pending approval waits for an answer, and how long an answer lasts: a duration from 1m to 168h such as 30m or 8h (default: 1h)."`
	Notify bool           `yaml:"notify" doc:"Raise a desktop notification (or a terminal bell) for each new pending approval (default: true)."`
}

func (Approvals) loaderMapping() string { return policy.MappingApprovals }

func (Approvals) defaults() map[string]any {
	d := policy.DefaultApprovals
	return map[string]any{"queue": string(d.Queue), "expire": shortDuration(d.Expire), "notify": d.Notify}
}

// shortDuration writes d as people write it in a policy: 1h rather than 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// Output is the output section.
type Output struct {
	Injection InjectionAction `yaml:"injection" doc:"Output that reads as prompt injection: warn lets it reach the model with a note, block withholds it (default: warn)."`
	Secrets   SecretsAction   `yaml:"secrets" doc:"Output holding credentials: warn notes it, redact masks each credential where moat carries the output (the MCP proxy), block withholds it (default: warn)."`
}

func (Output) loaderMapping() string { return policy.MappingOutput }

func (Output) defaults() map[string]any {
	return map[string]any{"injection": string(policy.DefaultOutput.Injection), "secrets": string(policy.DefaultOutput.Secrets)}
}

// MCP is the mcp section.
type MCP struct {
	ChangedTools ChangedToolAction `yaml:"changed_tools" doc:"A tool whose definition changed since it was pinned: block hides it until moat mcp pin --accept SERVER, warn keeps it and reports the change (default: block)."`
}

func (MCP) loaderMapping() string { return policy.MappingMCP }

func (MCP) defaults() map[string]any {
	return map[string]any{"changed_tools": string(policy.DefaultMCP.ChangedTools)}
}

// Wrapper is one entry of wrappers.
type Wrapper struct {
	Name         ProgramName              `yaml:"name" schema:"required" doc:"The wrapper's program name, without a directory."`
	ValueOptions OneOrMore[WrapperOption] `yaml:"value_options" doc:"The wrapper's options that take a value, such as -u or --user, so that the value is not taken for the command."`
	Assignments  bool                     `yaml:"assignments" doc:"NAME=value words may come before the command, as with env."`
	Operands     WrapperOperands          `yaml:"operands" doc:"How many operands before the command belong to the wrapper, as timeout's duration does (0 to 8)."`
}

func (Wrapper) loaderMapping() string { return policy.MappingWrapper }

// Rule is one entry of rules. A rule matches a call when every condition it has holds.
type Rule struct {
	ID          RuleID                    `yaml:"id" schema:"required" doc:"The rule's id, unique in the policy and its packs: letters, digits and . _ / -."`
	Description string                    `yaml:"description" doc:"What the rule is about, for people reading the policy and --explain."`
	Tool        OneOrMore[ToolName]       `yaml:"tool" doc:"The tools the rule applies to: classes (shell, file.read, file.*, web.fetch, mcp, other), native tool names (Bash, read_file), MCP tools (mcp:SERVER/TOOL, globs allowed) or other:NAME for a tool moat does not know."`
	Command     OneOrMore[CommandPattern] `yaml:"command" doc:"Shell commands the rule matches, as words (\"rm -rf *\") or as program, flags and args; a list matches any of them. Only shell calls have commands."`
	Paths       Paths                     `yaml:"paths" doc:"Paths the call reads, writes, deletes or runs: patterns, path sets ($secrets, $workspace/**) and exclusions (!pattern)."`
	Args        Args                      `yaml:"args" doc:"Tests on the call's arguments, by argument path (a.b, list.*.field): a value to equal, or eq, glob, regex, contains, gt, gte, lt, lte and exists."`
	Findings    OneOrMore[FindingPattern] `yaml:"findings" doc:"Findings of the analysis of the call, by id or glob (secret.*); moat findings lists them."`
	Agent       OneOrMore[AgentName]      `yaml:"agent" doc:"The agents whose calls the rule applies to."`
	Decision    Verdict                   `yaml:"decision" schema:"required" doc:"The decision when the rule matches."`
	Reason      string                    `yaml:"reason" doc:"The reason given to the agent and the user when the rule decides."`
	Limit       Limit                     `yaml:"limit" doc:"A rate limit, N per DURATION [per session|agent|class|tool] (20 per minute per session): the rule decides only calls over the limit. Not on allow rules."`
}

func (Rule) loaderMapping() string { return policy.MappingRule }

// CommandMatch is a shell command written as a mapping.
type CommandMatch struct {
	Program OneOrMore[string] `yaml:"program" schema:"required" doc:"Program names or globs, any of them (rm, git, python*); with a slash, matched against the program's path."`
	Flags   OneOrMore[string] `yaml:"flags" doc:"Options that must all be set: r, force or -f (-rf sets r and f)."`
	Args    OneOrMore[string] `yaml:"args" doc:"Globs that must each match some operand (a non-option argument)."`
}

func (CommandMatch) loaderMapping() string { return policy.MappingCommand }

// Paths is a rule's paths condition, by access kind.
type Paths struct {
	Read   OneOrMore[string] `yaml:"read" doc:"Paths the call reads."`
	Write  OneOrMore[string] `yaml:"write" doc:"Paths the call writes, creates or edits."`
	Delete OneOrMore[string] `yaml:"delete" doc:"Paths the call deletes."`
	Exec   OneOrMore[string] `yaml:"exec" doc:"Programs and scripts the call runs."`
	Any    OneOrMore[string] `yaml:"any" doc:"Paths the call accesses in any way."`
}

func (Paths) loaderMapping() string { return policy.MappingPaths }

func (Paths) extend(s *Schema) { s.MinProperties = ptr(1) }

// ArgTests are the tests on one argument of a rule's args; all must hold.
type ArgTests struct {
	Eq       ArgValue  `yaml:"eq" doc:"The argument equals this value."`
	Glob     ArgString `yaml:"glob" doc:"The argument matches this glob."`
	Regex    ArgString `yaml:"regex" doc:"The argument matches this regular expression (Go syntax)."`
	Contains ArgString `yaml:"contains" doc:"The argument holds this text, or is a list holding this value."`
	Gt       float64   `yaml:"gt" doc:"The argument is a number above this one (numbers written as strings count)."`
	Gte      float64   `yaml:"gte" doc:"The argument is a number at least this one."`
	Lt       float64   `yaml:"lt" doc:"The argument is a number below this one."`
	Lte      float64   `yaml:"lte" doc:"The argument is a number at most this one."`
	Exists   bool      `yaml:"exists" doc:"The argument is present (true) or absent (false)."`
}

func (ArgTests) loaderMapping() string { return policy.MappingArgTests }

func (ArgTests) extend(s *Schema) { s.MinProperties = ptr(1) }

// Test is one entry of tests: a call and the decision expected for it.
type Test struct {
	Name    string               `yaml:"name" doc:"The test's name (default: the call, described)."`
	Agent   OneOrMore[AgentName] `yaml:"agent" doc:"The agent making the call, which decides how a native tool name is read."`
	Tool    string               `yaml:"tool" doc:"The tool called: a native name (Read, run_shell_command), a class or mcp:SERVER/TOOL, with args."`
	Command string               `yaml:"command" doc:"A shell command: the test is a shell call (instead of tool)."`
	Args    map[string]any       `yaml:"args" doc:"The call's arguments, as the agent sends them (file_path, url…)."`
	Cwd     string               `yaml:"cwd" doc:"The working directory of the call, absolute or under ~/ (default: the policy's directory)."`
	Expect  Verdict              `yaml:"expect" schema:"required" doc:"The decision the call must get."`
	Rule    string               `yaml:"rule" doc:"The id of the rule that must decide (or default)."`
}

func (Test) loaderMapping() string { return policy.MappingTest }

// A test is a shell command or a tool call, never both.
func (Test) extend(s *Schema) {
	s.OneOf = []*Schema{{Required: []string{"command"}}, {Required: []string{"tool"}}}
}

// Sandbox is a policy's sandbox section.
type Sandbox struct {
	Read    ItemOrList[SandboxPath] `yaml:"read" doc:"Paths programs may read: absolute, under ~/, path sets ($home, $workspace, $temp) or **/ patterns."`
	Write   ItemOrList[SandboxPath] `yaml:"write" doc:"Paths programs may write (which implies read)."`
	Exec    ItemOrList[SandboxPath] `yaml:"exec" doc:"Paths programs may be run from."`
	Deny    ItemOrList[SandboxPath] `yaml:"deny" doc:"Paths neither read nor written, whatever grants them ($secrets)."`
	Protect ItemOrList[SandboxPath] `yaml:"protect" doc:"Paths readable but never writable ($moat, $agent-config)."`
	Connect Ports                   `yaml:"connect" doc:"TCP ports programs may connect to: any, a port, or a list of ports and ranges (\"8000-8100\")."`
	Bind    Ports                   `yaml:"bind" doc:"TCP ports programs may listen on: any, a port, or a list of ports and ranges."`
	Scope   SandboxScope            `yaml:"scope" doc:"Which ways of reaching processes outside the sandbox are closed."`
	Limits  SandboxLimits           `yaml:"limits" doc:"Resource limits of the programs."`
	Env     SandboxEnv              `yaml:"env" doc:"Which environment variables reach the programs."`
}

func (Sandbox) loaderMapping() string { return policy.MappingSandbox }

// SandboxProfile is a sandbox profile document: an agent's sandbox, with what moat
// launch needs to know about it.
type SandboxProfile struct {
	Description string                   `yaml:"description" doc:"The agent the profile is for."`
	Commands    OneOrMore[ProgramName]   `yaml:"commands" doc:"The program names the profile applies to, without a directory."`
	State       OneOrMore[HomeStatePath] `yaml:"state" doc:"Literal paths under ~/ that the agent creates and keeps, beneath a writable ~/DIR/**."`
	Caveats     OneOrMore[string]        `yaml:"caveats" doc:"What does not work inside the sandbox, shown by moat launch."`
	Sandbox
}

func (SandboxProfile) loaderMapping() string { return policy.MappingSandboxProfile }

// SandboxScope is sandbox.scope.
type SandboxScope struct {
	AbstractUnixSockets bool `yaml:"abstract-unix-sockets" doc:"Programs cannot connect to abstract Unix sockets created outside the sandbox (default: true)."`
	Signals             bool `yaml:"signals" doc:"Programs cannot send signals to processes outside the sandbox (default: true)."`
}

func (SandboxScope) loaderMapping() string { return policy.MappingSandboxScope }

// SandboxLimits is sandbox.limits.
type SandboxLimits struct {
	Memory    SizeLimit    `yaml:"memory" doc:"Bytes of data a program may use: a size such as 512MiB or 4GiB, or unlimited."`
	OpenFiles CountLimit   `yaml:"open-files" doc:"Files a program may hold open, or unlimited."`
	Processes ProcessLimit `yaml:"processes" doc:"Processes and threads the user may have, or +N for N more than the system runs at launch, or unlimited."`
	CPUTime   TimeLimit    `yaml:"cpu-time" doc:"CPU time of a program: seconds or a duration such as 30m, or unlimited."`
}

func (SandboxLimits) loaderMapping() string { return policy.MappingSandboxLimits }

// SandboxEnv is sandbox.env.
type SandboxEnv struct {
	Allow List[EnvPattern]   `yaml:"allow" doc:"Variables that pass, by name or pattern (AWS_*), besides moat's own list."`
	Deny  List[EnvPattern]   `yaml:"deny" doc:"Variables removed, by name or pattern, even when allowed."`
	Set   map[EnvName]string `yaml:"set" doc:"Variables given to the programs when their environment does not set them (a value may start with ~/)."`
}

func (SandboxEnv) loaderMapping() string { return policy.MappingSandboxEnv }
