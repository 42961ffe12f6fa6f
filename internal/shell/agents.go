package shell

import (
	"path"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
)

// A second agent is an AI agent's program started by the agent moat guards. Started
// normally, its own hooks (moat's, after `moat setup`) decide its tool calls; started
// with options or environment that drop or replace its hooks or configuration, its calls
// pass through nothing. What each program reads is the agent registry's (internal/agent):
// this file finds the program in a command, and reads its options and environment.

// findUnguardedAgent is reported for an agent program started without its hooks.
const findUnguardedAgent = "evasion.unguarded-agent"

// packageRunner reports whether the program name, given the subcommand sub, runs a
// program of an npm package named by its next operand (npm exec, pnpm dlx…; npx, bunx and
// pnpx are wrappers, unwrapped before this).
func packageRunner(name, sub string) bool {
	switch name {
	case "npm":
		return sub == "exec" || sub == "x"
	case "pnpm", "yarn":
		return sub == "dlx" || sub == "exec"
	case "bun":
		return sub == "x"
	}
	return false
}

// scriptHost reports whether the program name runs a script named by its first operand
// (node …/@openai/codex/bin/codex.js).
func scriptHost(name string) bool { return name == "node" || name == "bun" || name == "deno" }

// agentLaunch reports an agent program started with its hooks or configuration switched
// off, moved or replaced (by an option, or by a variable assigned before it, by a wrapper
// such as env or sudo, or earlier in the line), and adds the files written by its
// subcommands that rewrite its own hook or MCP settings.
func (a *analyzer) agentLaunch(cmd *call.Command, prog arg, rest []arg, assigns []*syntax.Assign, wrappers []arg, cwd dir) {
	row, words, ok := agentProgram(cmd.Name, prog, rest)
	if !ok {
		return
	}
	cli := row.CLI
	home := ""
	if a.st.home.known {
		home = a.st.home.s
	}
	// The evidence names the program as the registry does (claude, not npx or
	// claude-code@latest), so that it reads the same however the program was reached.
	program := cli.Programs[0]
	for _, e := range a.launchEnv(cli, assigns, wrappers) {
		if v, ok := cli.Variable(e.name); ok && v.Moves(e.val.lit, !e.val.dynamic, home) {
			cmd.Findings = appendFinding(cmd.Findings, findUnguardedAgent, e.name+"="+e.val.lit+" "+program)
			break
		}
	}
	if evidence, ok := unguardingOption(cli, words); ok {
		cmd.Findings = appendFinding(cmd.Findings, findUnguardedAgent, program+" "+evidence)
	}
	lits := make([]string, 0, len(words))
	for _, w := range words {
		if !w.dynamic {
			lits = append(lits, w.lit)
		}
	}
	for _, w := range cli.Writers {
		if !w.Matches(lits) {
			continue
		}
		for _, f := range row.Files(w.Role, agent.Home, runtime.GOOS) {
			if home != "" {
				cmd.Accesses = appendWrite(cmd.Accesses, path.Join(home, f))
			}
		}
		for _, f := range row.Files(w.Role, agent.Project, runtime.GOOS) {
			if cwd.path != "" {
				cmd.Accesses = appendWrite(cmd.Accesses, path.Join(cwd.path, f))
			}
		}
	}
}

// appendWrite adds a write of p to accs, unless accs has it.
func appendWrite(accs []call.Access, p string) []call.Access {
	for _, acc := range accs {
		if acc.Kind == call.Write && acc.Path == p {
			return accs
		}
	}
	return append(accs, call.Access{Kind: call.Write, Path: p})
}

// agentProgram returns the agent whose program the command runs, and the words given to
// that program: the command itself (claude, /usr/local/bin/claude, npx @openai/codex),
// a package runner's operand (npm exec -- gemini, pnpm dlx @google/gemini-cli) or a
// script host's script (node …/@anthropic-ai/claude-code/cli.js).
func agentProgram(name string, prog arg, rest []arg) (agent.Agent, []arg, bool) {
	if row, ok := agent.ForProgram(name); ok {
		return row, rest, true
	}
	if row, ok := agent.ForPackage(prog.lit); ok {
		return row, rest, true
	}
	i := firstOperandAt(rest)
	if i < 0 {
		return agent.Agent{}, nil, false
	}
	if packageRunner(name, rest[i].lit) {
		j := firstOperandAt(rest[i+1:])
		if j < 0 {
			return agent.Agent{}, nil, false
		}
		at := i + 1 + j
		w := rest[at].lit
		if row, ok := agent.ForPackage(w); ok {
			return row, rest[at+1:], true
		}
		if row, ok := agent.ForProgram(baseName(w)); ok {
			return row, rest[at+1:], true
		}
		return agent.Agent{}, nil, false
	}
	if scriptHost(name) {
		script := rest[i].lit
		for _, row := range agent.All() {
			for _, pkg := range row.CLI.Packages {
				if strings.Contains(script, "/"+pkg+"/") {
					return row, rest[i+1:], true
				}
			}
		}
	}
	return agent.Agent{}, nil, false
}

// firstOperandAt returns the index of the first word that is not an option (after "--",
// the next word), or -1.
func firstOperandAt(words []arg) int {
	for i, w := range words {
		switch {
		case w.dynamic:
			return -1
		case w.lit == "--":
			if i+1 < len(words) {
				return i + 1
			}
			return -1
		case !strings.HasPrefix(w.lit, "-"):
			return i
		}
	}
	return -1
}

// unguardingOption returns, as written, the first option among words that starts the
// program without its hooks or with other configuration. Words after "--" are operands
// (a prompt), not options.
func unguardingOption(cli agent.CLI, words []arg) (string, bool) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.dynamic || w.glob {
			continue
		}
		s := w.lit
		if s == "--" {
			break
		}
		var name, value string
		hasValue := false
		switch {
		case strings.HasPrefix(s, "--") && len(s) > 2:
			name, value, hasValue = strings.Cut(s[2:], "=")
		case len(s) >= 2 && s[0] == '-' && s[1] != '-':
			// A short option, its value attached or not: -c k=v, -ck=v, -c=k=v.
			name = s[1:2]
			if len(s) > 2 {
				value, hasValue = strings.TrimPrefix(s[2:], "="), true
			}
		default:
			continue
		}
		o, ok := cli.Option(name)
		if !ok {
			continue
		}
		known := true
		if o.TakesValue() && !hasValue {
			if i+1 < len(words) {
				i++
				value, known = words[i].lit, !words[i].dynamic
			} else {
				known = false
			}
		}
		if o.Unguards(value, known) {
			evidence := s
			if o.TakesValue() && !hasValue {
				evidence += " " + value
			}
			return evidence, true
		}
	}
	return "", false
}

// launchEnv returns the variables that matter to cli that the command is started with:
// its own assignments (CODEX_HOME=/x codex), a wrapper's (env HOME=/x claude, sudo
// CLAUDE_CONFIG_DIR=/x claude), and those assigned earlier in the line (export HOME=/x;
// claude): a shell variable assigned without export reaches the program too when the
// environment already has it, as it has HOME.
func (a *analyzer) launchEnv(cli agent.CLI, assigns []*syntax.Assign, wrappers []arg) []envAssign {
	out := a.commandEnv(assigns, wrappers, len(wrappers), func(name string) bool {
		_, ok := cli.Variable(name)
		return ok
	})
	for _, list := range [][]agent.Env{cli.Env, agent.HomeEnv} {
		for _, e := range list {
			if _, bound := a.st.latest[e.Name]; !bound {
				continue
			}
			v, _ := a.st.get(e.Name)
			x := arg{lit: v.s, dynamic: !v.known}
			if !v.known {
				x.lit = "$" + e.Name // changed earlier in the line, to a value not known
			}
			out = append(out, envAssign{e.Name, x})
		}
	}
	return out
}
