package selfguard

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// This file is the guard's knowledge of what moat's commands do to its protection, kept
// beside the tree it classifies (surface_gen.go). A test in internal/cli fails when a
// command or flag of the CLI is not classified here, so that a new command or flag
// cannot be added without saying whether it loosens protection.
//
// The tables are functions returning fresh values rather than package variables: the
// guard indexes them once per engine, and nothing is built when moat starts.

// Use is a way of running one of moat's commands that loosens its protection: switches
// its hooks or proxy off, changes which policy or agent decides, trusts a policy or
// accepts changed MCP tools. An agent may not run it; only the user may.
type Use struct {
	// Command is the command's path ("setup", "mcp pin").
	Command string
	// When lists conditions that must all hold: a flag of the command that is set (a bool
	// that is true, a value that is not empty); written "$group", an environment
	// variable of that group (see EnvVar) that the command line sets; "!self", a program
	// other than the running moat binary, the one the hooks run; "approval-id", an
	// operand that may name a call of the approval queue. No conditions: every run of
	// the command.
	When []string
	// Unless lists bool flags that make the run read only (--dry-run, --list): set, the
	// use does not apply.
	Unless []string
	// Why says what the use does, for the user who reads the decision.
	Why string
}

// Placeholder is a command moat is to have that will loosen protection whatever its
// flags (the approval and daemon commands). Until it exists, it is recognised by its words
// alone; when it is added to the CLI, the test that keeps the tree and these tables
// together asks for it to be classified like any other command.
type Placeholder struct {
	Path string
	Why  string
}

// Other lists, for one command, the flags that do not change whether a run of it
// loosens protection: output formats, filters, the flags of commands that always or
// never loosen it.
type Other struct {
	Command string
	Flags   []string
}

// EnvVar is an environment variable that moat reads, with the group the uses refer to.
type EnvVar struct {
	Name string
	// Group is what setting the variable changes: "policy" (which policy decides, or
	// where moat's own files are), "agent" (whose rules apply), "shell" (what runs the
	// command moat shell allowed); "" when setting it loosens nothing.
	Group string
	Why   string
}

// Runner is a command that runs a program named in its operands: the program is judged
// as if the agent ran it itself, since moat launch and moat mcp proxy do not decide it,
// and moat run and moat shell decide it with whatever policy they were given.
type Runner struct {
	Command string
	// Shell: the operands are a shell's (-c 'COMMAND' [NAME ARG…]), not a program's argv.
	Shell bool
	// Unless lists bool flags with which the command runs nothing (--dry-run).
	Unless []string
}

// Program is a moat binary, known by its name or by the Go package it was built from.
type Program struct {
	Name string
	// Package is the import path of the binary's main package.
	Package string
	// Entry is the command the binary's arguments go to: "" for the root, "shell" for
	// moat-shell (the moat binary under another name), "hook" for the thin hook client.
	Entry string
}

// Module is the import path of moat's Go module.
const Module = "github.com/moatdev/moat"

// notSelf is the condition of a use by a moat binary other than the one that runs.
const notSelf = "!self"

// approvalID is the condition that the command's operand may name a call in the approval
// queue: IDs are hexadecimal prefixes of the call's key (3f2a), so a word of other letters
// (cargo deny check, run through a variable that may be moat) names none, and moat
// refuses it. A word known only at run time may be one.
const approvalID = "approval-id"

// mainPackage is the import path of the moat binary's main package.
const mainPackage = Module + "/cmd/moat"

// HookClient is the name of the thin hook client, installed beside moat: setup has the
// agents' hooks run it when it is there, and self-protection guards it as it guards moat.
const HookClient = "moat-hook"

// ClientPath returns where the hook client of the moat binary at moat is: beside it,
// under its own name (with moat's .exe, if moat has one). Setup has the hooks run it
// when it is there, since it answers from a running daemon at the cost of a bare
// process and otherwise runs moat hook itself; so it is guarded as moat is, there or not
// (an agent that could plant one would have the next setup install it).
func ClientPath(moat string) string {
	ext := ""
	if strings.HasSuffix(strings.ToLower(moat), ".exe") {
		ext = moat[len(moat)-len(".exe"):]
	}
	return filepath.Join(filepath.Dir(moat), HookClient+ext)
}

// Programs lists moat's binaries.
func Programs() []Program {
	return []Program{
		{Name: "moat", Package: mainPackage},
		// A link named moat-shell to moat is the guarded shell (cli.ProgramArgs).
		{Name: "moat-shell", Package: mainPackage, Entry: "shell"},
		// The thin hook client relays a hook payload, and falls back to moat hook.
		{Name: HookClient, Package: Module + "/cmd/" + HookClient, Entry: "hook"},
	}
}

const (
	whyPolicyFlag = "decides with the policy file named by --policy, which the agent may have written, instead of the one that applies here"
	whyPolicyEnv  = "decides with a policy chosen by an environment variable set on the command line (MOAT_POLICY, or the directories moat finds its policy, trust store and $temp in) instead of the one that applies here"
	whyAgentFlag  = "decides as if another agent made the calls (--agent), under that agent's rules"
	whyAgentEnv   = "decides as if another agent made the calls (MOAT_AGENT), under that agent's rules"
)

// Uses lists every use of moat's commands that loosens protection.
func Uses() []Use {
	return []Use{
		{Command: "init", Why: "writes a moat.yaml from a template and trusts it, so that a policy the agent chose would decide its calls"},
		{Command: "trust", Unless: []string{"list", "diff"}, Why: "trusts a project policy, or revokes trust in one, which changes the policy that decides the agent's calls"},
		{Command: "fix", When: []string{"write"}, Why: "writes a rule into the policy that decides the agent's calls, which could allow what it denies"},
		{Command: "setup", When: []string{"uninstall"}, Unless: []string{"dry-run"}, Why: "removes moat's hooks from the agents' settings, which switches moat off"},
		// setup and mcp wrap write the path of the binary that runs them into the agents'
		// settings: run from a copy or another build, they would point the hooks and
		// proxies at a file the agent can change.
		{Command: "setup", When: []string{notSelf}, Unless: []string{"dry-run"}, Why: "points the agents' hooks at a moat binary other than the one that runs them now (a copy or another build), which the agent could change"},
		{Command: "mcp wrap", When: []string{notSelf}, Unless: []string{"dry-run"}, Why: "points the agents' MCP servers at a moat binary other than the one that runs the hooks now (a copy or another build), which the agent could change"},
		{Command: "mcp unwrap", Unless: []string{"dry-run"}, Why: "takes MCP servers out of moat's proxy, so that their tool calls are no longer checked"},
		{Command: "mcp pin", When: []string{"accept"}, Why: "accepts changed MCP tool definitions, which moat holds back until you have reviewed them"},
		{Command: "check", When: []string{"record"}, Why: "appends decisions to moat's audit log, which only moat's hooks write"},
		// check --stdin is the format integrations use to have calls decided: answers given
		// with another policy are answers for calls that run.
		{Command: "check", When: []string{"stdin", "policy"}, Why: whyPolicyFlag},
		{Command: "check", When: []string{"stdin", "$policy"}, Why: whyPolicyEnv},
		{Command: "hook", When: []string{"policy"}, Why: whyPolicyFlag},
		{Command: "hook", When: []string{"$policy"}, Why: whyPolicyEnv},
		{Command: "run", When: []string{"policy"}, Why: whyPolicyFlag},
		{Command: "run", When: []string{"$policy"}, Why: whyPolicyEnv},
		{Command: "run", When: []string{"agent"}, Why: whyAgentFlag},
		{Command: "run", When: []string{"$agent"}, Why: whyAgentEnv},
		{Command: "shell", When: []string{"$policy"}, Why: whyPolicyEnv},
		{Command: "shell", When: []string{"$agent"}, Why: whyAgentEnv},
		{Command: "shell", When: []string{"$shell"}, Why: "runs the command it allowed with a program named by MOAT_REAL_SHELL, or with moat's own shell marker forged, instead of the real shell"},
		// The policy of moat launch is also the one the hooks of the agent it starts use.
		{Command: "launch", When: []string{"policy"}, Why: whyPolicyFlag + ", for the sandbox and for the hooks of what it starts"},
		{Command: "launch", When: []string{"$policy"}, Why: whyPolicyEnv + ", for the sandbox and for the hooks of what it starts"},
		{Command: "mcp proxy", When: []string{"policy"}, Why: whyPolicyFlag},
		{Command: "mcp proxy", When: []string{"$policy"}, Why: whyPolicyEnv},
		{Command: "mcp proxy", When: []string{"agent"}, Why: whyAgentFlag},
		{Command: "mcp proxy", When: []string{"$agent"}, Why: whyAgentEnv},
		// Only the user answers moat's approval queue: an agent that could would approve
		// the calls moat held back from it.
		{Command: "approve", When: []string{approvalID}, Why: "approves a call held in moat's approval queue, which only the user may answer"},
		{Command: "deny", When: []string{approvalID}, Why: "answers a call held in moat's approval queue, which only the user may answer"},
		// A login to the dashboard answers the queue as well (the daemon also refuses
		// one to a process under an agent).
		{Command: "ui", Why: "logs a browser in to moat's dashboard, which answers moat's approval queue, which only the user may answer"},
		{Command: "daemon stop", Why: "stops moat's daemon, which decides and records calls"},
		// The daemon decides for every process that asks it, with the policy of its own
		// environment and from its own binary.
		{Command: "daemon run", When: []string{"$policy"}, Why: whyPolicyEnv + ", for every call the daemon decides"},
		{Command: "daemon start", When: []string{"$policy"}, Why: whyPolicyEnv + ", for every call the daemon decides"},
		{Command: "daemon run", When: []string{notSelf}, Why: "runs moat's daemon from a moat binary other than the one that runs the hooks now (a copy or another build), which the agent could change"},
		{Command: "daemon start", When: []string{notSelf}, Why: "starts moat's daemon from a moat binary other than the one that runs the hooks now (a copy or another build), which the agent could change"},
		{Command: "daemon run", When: []string{"no-record"}, Why: "runs moat's daemon without recording the decisions it makes"},
		{Command: "daemon start", When: []string{"no-record"}, Why: "starts moat's daemon without recording the decisions it makes"},
		// An installed daemon runs at every login with the binary and the environment of
		// the install (its policy's variables are written into the service); uninstalling
		// it takes the daemon away from the processes that use it.
		{Command: "daemon install", When: []string{notSelf}, Unless: []string{"print"}, Why: "installs moat's daemon as a service that runs a moat binary other than the one that runs the hooks now (a copy or another build), which the agent could change, at every login"},
		{Command: "daemon install", When: []string{"$policy"}, Unless: []string{"print"}, Why: whyPolicyEnv + ", for every call the daemon decides, at every login"},
		{Command: "daemon uninstall", Why: "removes moat's daemon service, which decides and records calls"},
		// moat reads the private key for whoever runs it: an agent that could run sign
		// would sign what it likes with a key it may not read (self-protection denies
		// reading *.moat-key), and a policy signed by the pinned key is the managed
		// policy of every machine that pins it. Sign also writes the file it signs, or
		// --out, unjudged.
		{Command: "policy sign", Why: "signs a policy with a private key: a signature by a pinned key makes a policy the managed one, which only the key's owner may vouch for; it also rewrites the policy file, or writes the one --out names"},
		// A signed file is not yet a rollout: the administrator chooses which signed
		// policy every machine of the fleet puts in force, and when.
		{Command: "fleet publish", Why: "publishes a signed policy as the managed policy of every machine of the fleet, a rollout only the administrator may decide"},
		// The JSONL log keeps every record, but moat logs reads the database.
		{Command: "daemon run", When: []string{"audit-retention"}, Why: "runs moat's daemon removing older records from the audit database that moat logs reads"},
		{Command: "daemon start", When: []string{"audit-retention"}, Why: "starts moat's daemon removing older records from the audit database that moat logs reads"},
		{Command: "daemon install", When: []string{"audit-retention"}, Unless: []string{"print"}, Why: "installs moat's daemon as a service removing older records from the audit database that moat logs reads"},
	}
}

// Placeholders lists the commands to come that will loosen protection.
func Placeholders() []Placeholder {
	return nil
}

// Others lists, for every command of the CLI, its flags that no use depends on. A
// command listed here with no flags is classified too.
func Others() []Other {
	return []Other{
		{Command: ""},
		// approvals lists the queue; it answers nothing.
		{Command: "approvals", Flags: []string{"json"}},
		// Every run of approve loosens protection, whichever grant it gives; an agent has
		// no business proposing the rule --always would write either (--dry-run).
		{Command: "approve", Flags: []string{"always", "dry-run", "once", "session"}},
		{Command: "deny"},
		{Command: "ui", Flags: []string{"json", "no-open"}},
		{Command: "check", Flags: []string{"agent", "args", "cwd", "explain", "json", "no-daemon", "session", "tool", "verbose"}},
		{Command: "completion"},
		{Command: "daemon"},
		// --force replaces a service file with the one this moat writes, which is judged
		// by the uses above like any other install.
		{Command: "daemon install", Flags: []string{"force", "json", "metrics", "notify", "tcp"}},
		// Metrics are served on loopback only; notifications only tell.
		{Command: "daemon run", Flags: []string{"metrics", "notify", "tcp"}},
		{Command: "daemon start", Flags: []string{"metrics", "notify", "tcp"}},
		{Command: "daemon status", Flags: []string{"json"}},
		{Command: "daemon stop"},
		{Command: "daemon uninstall", Flags: []string{"json"}},
		{Command: "completion bash", Flags: []string{"no-descriptions"}},
		{Command: "completion fish", Flags: []string{"no-descriptions"}},
		{Command: "completion powershell", Flags: []string{"no-descriptions"}},
		{Command: "completion zsh", Flags: []string{"no-descriptions"}},
		{Command: "doctor", Flags: []string{"json"}},
		{Command: "findings", Flags: []string{"json"}},
		// migrate creates moat's tables in the fleet's database; it changes no decision
		// of any machine (a machine ships to whatever database its fleet.yaml names).
		// machines reads the fleet's database; it writes nothing.
		{Command: "fleet"},
		{Command: "fleet machines", Flags: []string{"json", "password-file", "postgres"}},
		{Command: "fleet migrate", Flags: []string{"json", "password-file", "postgres"}},
		// Every run of publish loosens protection (see Uses), whatever its flags.
		{Command: "fleet publish", Flags: []string{"json", "key", "password-file", "postgres"}},
		// Without --write, fix only prints the change it proposes.
		{Command: "fix", Flags: []string{"json", "last", "to"}},
		{Command: "help"},
		{Command: "hook"},
		{Command: "init", Flags: []string{"force", "template", "user"}},
		// Launching under moat is more protection than running the program directly;
		// the sandbox's shape is the user's and the policy's to set, the program is judged.
		{Command: "launch", Flags: []string{"allow-unsandboxed", "dry-run", "profile", "workspace"}},
		// --remote and its flags read the fleet's database; they write nothing.
		{Command: "logs", Flags: []string{"agent", "decision", "failures", "file", "follow", "json", "last", "machine", "password-file", "postgres", "remote", "seq", "session", "since", "summary", "tool", "verify"}},
		{Command: "mcp"},
		{Command: "mcp pin", Flags: []string{"json"}},
		{Command: "mcp proxy", Flags: []string{"allow-remote", "list-timeout", "listen", "max-requests", "name", "no-daemon", "stdio", "upstream", "upstream-env"}},
		// --pin pins tools seen for the first time only; a changed tool is never accepted.
		{Command: "mcp scan", Flags: []string{"agent", "json", "pin", "timeout"}},
		{Command: "mcp unwrap", Flags: []string{"agent", "all", "json"}},
		{Command: "mcp wrap", Flags: []string{"agent", "all", "dry-run", "json", "skip", "stdio-only"}},
		{Command: "packs"},
		{Command: "packs list", Flags: []string{"json"}},
		{Command: "packs show", Flags: []string{"json"}},
		// test compiles each pack over an allow default in memory and runs its tests: it
		// writes nothing and decides no real call.
		{Command: "packs test", Flags: []string{"json", "verbose"}},
		{Command: "policy"},
		// keygen writes a new pair under new names (*.moat-key, *.moat-pub) and never
		// replaces a file: a new key is trusted by nothing until the user pins it as
		// managed.pub in the managed directory, which keygen never writes.
		{Command: "policy keygen", Flags: []string{"name", "out"}},
		// Every run of sign loosens protection (see Uses), whatever its key and output.
		{Command: "policy sign", Flags: []string{"key", "out"}},
		// verify reads a policy and a public key and prints key ids, the serial and why
		// a file is refused, never the file's text; it writes nothing.
		{Command: "policy verify", Flags: []string{"json", "key"}},
		{Command: "profile"},
		{Command: "profile list"},
		{Command: "profile show"},
		{Command: "report", Flags: []string{"file", "format", "password-file", "postgres", "quiet-after", "remote", "since", "top"}},
		// --no-daemon decides in moat's own process: the same decisions, only slower.
		{Command: "run", Flags: []string{"no-daemon"}},
		{Command: "sandbox"},
		// sandbox profile prints a profile derived from a policy; it runs nothing.
		{Command: "sandbox profile", Flags: []string{"binary", "format", "policy", "profile"}},
		{Command: "sandbox status", Flags: []string{"json"}},
		// schema prints the policy's JSON Schema; it reads and changes nothing.
		{Command: "schema"},
		{Command: "setup", Flags: []string{"all", "scope"}},
		{Command: "shell", Flags: []string{"help"}},
		{Command: "status", Flags: []string{"json"}},
		{Command: "test", Flags: []string{"json", "verbose"}},
		{Command: "trust", Flags: []string{"json", "revoke"}},
		{Command: "validate", Flags: []string{"json"}},
		{Command: "version", Flags: []string{"json"}},
	}
}

// EnvVars lists the environment variables moat reads. A test in this package keeps it
// complete: every variable named in a Getenv call of moat's source is listed.
func EnvVars() []EnvVar {
	const projectDir = "names the project directory, whose policy a hook finds"
	return []EnvVar{
		{Name: "MOAT_POLICY", Group: "policy", Why: "names the policy file"},
		{Name: "HOME", Group: "policy", Why: "locates the user policy, the trust store and the audit log"},
		{Name: "USERPROFILE", Group: "policy", Why: "locates the home directory when HOME is not set"},
		{Name: "XDG_CONFIG_HOME", Group: "policy", Why: "locates the user policy"},
		{Name: "XDG_STATE_HOME", Group: "policy", Why: "locates the trust store and the audit log"},
		{Name: "XDG_RUNTIME_DIR", Group: "policy", Why: "locates the daemon's socket, which decides calls for the processes that ask it"},
		{Name: "TMPDIR", Group: "policy", Why: "adds a directory to $temp, where policies let agents write"},
		{Name: "CLAUDE_PROJECT_DIR", Group: "policy", Why: projectDir},
		{Name: "CURSOR_PROJECT_DIR", Group: "policy", Why: projectDir},
		{Name: "GEMINI_PROJECT_DIR", Group: "policy", Why: projectDir},
		{Name: "CODEX_PROJECT_DIR", Group: "policy", Why: projectDir},
		{Name: "MOAT_AGENT", Group: "agent", Why: "names the agent whose rules apply"},
		{Name: "MOAT_REAL_SHELL", Group: "shell", Why: "names the program that runs the command moat shell allowed"},
		{Name: "MOAT_SHELL_EXEC", Group: "shell", Why: "moat shell's marker for a real shell that is moat itself"},
		{Name: "MOAT_NONINTERACTIVE", Why: "says whether a person can answer an ask; a hook's answer goes to the agent that ran it"},
		{Name: "CI", Why: "says whether a person can answer an ask, as MOAT_NONINTERACTIVE"},
		{Name: "GITHUB_ACTIONS", Why: "says whether a person can answer an ask, as MOAT_NONINTERACTIVE"},
		{Name: "MOAT_HOOK_DEADLINE", Why: "bounds how long moat may take; past it, moat denies"},
		{Name: "MOAT_MCP_TOKEN", Why: "the token moat's HTTP proxy asks of its clients"},
		{Name: "MOAT_MCP_UPSTREAM", Why: "the server moat mcp proxy --upstream-env relays to"},
		{Name: "MOAT_MCP_ORIGINAL", Why: "the server entry moat mcp wrap replaced, for unwrap"},
		{Name: "MOAT_DAEMON", Why: "off decides in moat's own process instead of the daemon's: the same decisions, only slower"},
		{Name: "MOAT_SANDBOX", Why: "tells the processes moat launch starts which sandbox they are in"},
		{Name: "NO_COLOR", Why: "turns colour off"},
		{Name: "MOAT_TEST_POSTGRES_BIN", Why: "read only by moat's tests (internal/testpg, which no moat binary links): where PostgreSQL's server programs are"},
		// Programs are looked up in PATH whether or not moat runs them; a moat binary
		// found through a changed PATH is judged by what it is (see identity.go).
		{Name: "PATH", Why: "where moat doctor looks for moat's binaries, and where moat run finds its program"},
	}
}

// Runners lists the commands that run a program named in their operands.
func Runners() []Runner {
	return []Runner{
		{Command: "run"},
		{Command: "launch", Unless: []string{"dry-run"}},
		{Command: "mcp proxy"},
		{Command: "shell", Shell: true},
	}
}

// Validate checks the tables of this file against a command tree: every command and
// flag classified, every name they use defined, no placeholder that exists. The tree is
// the CLI's (in internal/cli's test) or the generated copy of it.
func Validate(tree []Command) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	byPath := make(map[string]*Command, len(tree))
	for i := range tree {
		c := &tree[i]
		byPath[c.Path] = c
		for _, f := range c.Flags {
			if !slices.Contains(flagKinds, f.Kind) {
				bad("moat %s --%s: the guard does not know flags of kind %s", c.Path, f.Name, f.Kind)
			}
		}
	}
	classified := make(map[string]map[string]bool) // command → flags no use needs
	for _, o := range Others() {
		if classified[o.Command] != nil {
			bad("Others: moat %s is listed twice", o.Command)
		}
		classified[o.Command] = map[string]bool{}
		for _, f := range o.Flags {
			classified[o.Command][f] = true
		}
	}
	named := func(where, cmd string, flags []string, mustBool bool) {
		c := byPath[cmd]
		if c == nil {
			bad("%s: moat %s is no command of the CLI", where, cmd)
			return
		}
		for _, name := range flags {
			if name == notSelf || name == approvalID {
				continue
			}
			if strings.HasPrefix(name, "$") {
				if !slices.ContainsFunc(EnvVars(), func(v EnvVar) bool { return v.Group == name[1:] }) {
					bad("%s: moat %s: no variable is of group %s", where, cmd, name)
				}
				continue
			}
			i := slices.IndexFunc(c.Flags, func(f Flag) bool { return f.Name == name })
			if i < 0 {
				bad("%s: moat %s has no flag --%s", where, cmd, name)
				continue
			}
			if mustBool && c.Flags[i].Kind != "bool" {
				bad("%s: moat %s --%s makes a run read only, so it must be a bool", where, cmd, name)
			}
			if classified[cmd] != nil {
				classified[cmd][name] = true
			}
		}
	}
	for _, u := range Uses() {
		named("Uses", u.Command, u.When, false)
		named("Uses", u.Command, u.Unless, true)
		if c := byPath[u.Command]; c != nil && c.RawArgs && slices.ContainsFunc(u.When, func(w string) bool { return !strings.HasPrefix(w, "$") }) {
			bad("Uses: moat %s reads its own arguments; only variables can be its conditions", u.Command)
		}
		if u.Why == "" {
			bad("Uses: moat %s: no why", u.Command)
		}
	}
	for _, r := range Runners() {
		named("Runners", r.Command, r.Unless, true)
	}
	for _, o := range Others() {
		named("Others", o.Command, o.Flags, false)
	}
	for _, c := range tree {
		if classified[c.Path] == nil {
			bad("moat %s is not classified: list it in Others, and its uses in Uses", c.Path)
			continue
		}
		for _, f := range c.Flags {
			if !classified[c.Path][f.Name] {
				bad("moat %s --%s is not classified: name it in a Use if it can loosen protection, else in Others", c.Path, f.Name)
			}
		}
	}
	for _, p := range Placeholders() {
		if byPath[p.Path] != nil {
			bad("moat %s exists now: classify it in Uses and Others, and remove its placeholder", p.Path)
		}
	}
	for _, p := range Programs() {
		if byPath[p.Entry] == nil {
			bad("Programs: %s's arguments go to moat %s, which is no command", p.Name, p.Entry)
		}
	}
	return errs
}

// flagKinds are the value types of the flags the guard parses as pflag does.
var flagKinds = []string{"bool", "string", "stringSlice", "stringArray", "int", "duration"}
