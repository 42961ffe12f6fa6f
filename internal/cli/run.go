package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/didyoumean"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/scan"
)

// envAgent names the agent on whose behalf `moat run` and `moat shell` decide when
// --agent is not given: the guarded shell takes no flags of moat's, so this is how a
// policy's agent conditions reach it.
const envAgent = "MOAT_AGENT"

// Events recorded with the decisions of `moat run` and `moat shell`.
const (
	eventRun   = "run"
	eventShell = "shell"
)

// guardDeps are what running a guarded command takes from the process beyond Env, so that
// tests can decide and prompt without replacing the test process.
type guardDeps struct {
	// openTTY opens the terminal to ask on. An error means there is none: ask is a deny.
	openTTY func() (io.ReadWriteCloser, error)
	// exec replaces the process with the program at path (syscall.Exec); it returns only
	// on failure.
	exec func(path string, argv, env []string) error
	// environ is the environment the program gets.
	environ func() []string
	// service, when set, replaces the local decision service (tests of failures while
	// deciding).
	service decide.Service
}

func osGuardDeps() guardDeps {
	return guardDeps{openTTY: openTTY, exec: execProgram, environ: os.Environ}
}

// openTTY opens the controlling terminal, which is the user's even when the command's
// standard input is a pipe: a prompt there cannot be answered by the agent that feeds the
// command.
func openTTY() (io.ReadWriteCloser, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR, 0)
}

// guardOptions say how one guarded command is decided.
type guardOptions struct {
	policy string
	agent  call.Agent
	event  string // eventRun or eventShell
	deps   guardDeps
	// noDaemon decides in this process even when the daemon runs.
	noDaemon bool
}

func newRunCmd(a *app) *cobra.Command { return newRunCmdWith(a, osGuardDeps()) }

func newRunCmdWith(a *app, deps guardDeps) *cobra.Command {
	var policyFlag, agentFlag string
	var noDaemon bool
	cmd := &cobra.Command{
		Use:   "run [--policy FILE] [--agent NAME] -- COMMAND [ARG...]",
		Short: "Decide a command as a hook would, then run it in moat's place",
		Long: `Run decides COMMAND with its arguments as one shell call, the same way a hook
decides an agent's shell command, records the decision, and then runs it: moat replaces
itself with the program (no shell in between, so the arguments are exactly those given),
which keeps moat's standard input, output, error and process id and exits with its own
status. Use it to guard agents and scripts that have no hooks but let you say which
command to start.

What is decided is the arguments quoted for the shell ('rm' '-rf' '/tmp/x' is decided as
rm -rf /tmp/x), so the policy's rules and findings apply as they do to hooks.

  allow, audit  the command runs.
  deny          nothing runs; the reason and rule are printed on standard error.
  ask           moat asks on the terminal (/dev/tty, never the command's standard input),
                showing the command, the reason and the rule; only y or yes runs it.
                Without a terminal the answer is no.

A policy that cannot be loaded denies (whatever its fail setting, since it could not be
read); an internal error while deciding denies unless the policy says 'fail: open'. moat's
own work (loading the policy, deciding, recording) must end within the hook deadline
(MOAT_HOOK_DEADLINE, else the policy's hooks.deadline, else 2s), or the command does not
run; the time you take to answer a question is not counted.

The agent named by --agent (or the MOAT_AGENT environment variable) is the one the
policy's agent conditions see and the one recorded; without it the call has no agent.
Decisions are recorded in the audit log with the event "run" and tool "shell".

Exit status: the command's own once it runs; 126 when it did not run (denied, not
approved, or moat could not decide); 127 when an allowed command was not found; 2 for a
usage error of moat run itself.`,
		Example: `  moat run -- go test ./...
  moat run --agent aider -- rm -rf build
  moat run -- sh -c 'make && make install'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &exitCode{code: exitUsage, err: errors.New("run needs a command: moat run [flags] -- COMMAND [ARG...]")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			agent, err := guardAgent(agentFlag, a.env.Getenv)
			if err != nil {
				return &exitCode{code: exitUsage, err: err}
			}
			line, err := quoteArgv(args)
			if err != nil {
				return &exitCode{code: exitUsage, err: err}
			}
			o := guardOptions{policy: policyFlag, agent: agent, event: eventRun, deps: deps, noDaemon: noDaemon}
			if !a.guard(cmd.Context(), o, line) {
				return &exitCode{code: exitGuardRefused}
			}
			return a.execArgv(deps, args, nil)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitCode{code: exitUsage, err: err}
	})
	// Flags end at the command: `moat run ls -la` runs ls -la.
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&policyFlag, "policy", "", "policy file to use instead of the one found from the working directory")
	cmd.Flags().StringVar(&agentFlag, "agent", "", "agent the command is run for (claude-code, aider, openclaw, …); default $"+envAgent)
	cmd.Flags().BoolVar(&noDaemon, "no-daemon", false, "decide in this process even when the daemon runs (MOAT_DAEMON=off does the same)")
	return cmd
}

// guardAgent is the agent named by flag, else by $MOAT_AGENT; none is no agent.
func guardAgent(flag string, getenv func(string) string) (call.Agent, error) {
	name, from := flag, "--agent"
	if name == "" {
		name, from = getenv(envAgent), envAgent
	}
	if name == "" {
		return "", nil
	}
	return parseAgent(from, name)
}

// parseAgent reads the agent name given by from (a flag, a variable), saying which names
// moat knows when it is none of them.
func parseAgent(from, name string) (call.Agent, error) {
	ag, ok := call.ParseAgent(name)
	if !ok {
		names := make([]string, len(call.Agents()))
		for i, a := range call.Agents() {
			names[i] = string(a)
		}
		return "", fmt.Errorf("%s: unknown agent %q%s (moat knows %s)", from, name, didyoumean.Hint(name, names), strings.Join(names, ", "))
	}
	return ag, nil
}

// quoteArgv is argv as one shell command line that runs exactly argv, so that what is
// decided is what runs.
func quoteArgv(argv []string) (string, error) {
	words := make([]string, len(argv))
	for i, w := range argv {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argument %d cannot be written as a shell word, so moat cannot decide it: %w", i+1, err)
		}
		words[i] = q
	}
	return strings.Join(words, " "), nil
}

// execArgv replaces moat with argv[0], found in PATH as a shell would, with extra added
// to the environment. It returns only when the program cannot be run.
func (a *app) execArgv(deps guardDeps, argv []string, extra []string) error {
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		// PATH names the current directory and the program is there: a shell would run it,
		// and it is the program the decision was about.
		err = nil
	}
	if err != nil {
		code := exitGuardRefused
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			// By name or by path (./x), as a shell says: command not found.
			code = exitGuardNotFound
		}
		return &exitCode{code: code, err: fmt.Errorf("%s: %w", argv[0], err)}
	}
	env := deps.environ()
	if len(extra) > 0 {
		env = withEnv(env, extra)
	}
	if err := deps.exec(path, argv, env); err != nil {
		return &exitCode{code: exitGuardRefused, err: fmt.Errorf("running %s: %w", path, err)}
	}
	return nil
}

// withEnv is env with each NAME=value of extra set, replacing earlier values of NAME.
func withEnv(env, extra []string) []string {
	out := make([]string, 0, len(env)+len(extra))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		replaced := false
		for _, e := range extra {
			if n, _, _ := strings.Cut(e, "="); n == name {
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

// guard decides the shell command line as the agent's call in the working directory,
// asks the user when the policy says ask, records the decision and reports whether the
// command may run. When it may not, the reason is on stderr. Every failure is a no,
// except an internal error under a policy that says fail: open.
//
// moat's own work is bounded by the hook deadline (MOAT_HOOK_DEADLINE, the policy's
// hooks.deadline): whatever it waits on, the command is refused when the deadline
// passes. The time a person takes to answer an ask is not counted.
func (a *app) guard(ctx context.Context, o guardOptions, line string) bool {
	limit, fixed, deadlineErr := hookDeadline(a.env.Getenv)
	w := newWatchdog(limit, fixed)
	prog := &hookProgress{stage: "loading the policy", ev: hook.Event{Kind: hook.PreTool, Name: o.event}}
	worker, stderr := a.detached()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	run, limit, ok := within(w, func() bool { return worker.guardWork(ctx, o, line, w, prog, deadlineErr) })
	stderr.flush(a.env.Stderr)
	if ok {
		return run
	}
	ev, policyName, stage := prog.snapshot()
	reason := fmt.Sprintf("no decision within the deadline of %s: moat was still %s (%s or the policy's hooks.deadline sets the deadline)", limit, stage, envHookDeadline)
	fmt.Fprintf(a.env.Stderr, "moat: %s; not running the command\n", reason)
	// The failure is recorded by a service of its own: what hung may be the one asked.
	a.recordWithin(func(bg *app) {
		bg.recordFailure(context.WithoutCancel(ctx), bg.local(nil), o.agent, ev, policyName, reason, false)
	})()
	return false
}

// guardWork is guard's work, run under its watchdog.
func (a *app) guardWork(ctx context.Context, o guardOptions, line string, w *watchdog, prog *hookProgress, deadlineErr error) (run bool) {
	svc := o.deps.service
	if svc == nil {
		// The daemon decides when it runs: one process per command, so each saves the
		// compilation of its policy (measured: see decisionService).
		ds := a.decisionService(ctx, decisionServiceOptions{noDaemon: o.noDaemon})
		defer ds.Close()
		svc = ds
	}
	refuse := func(msg string) bool {
		fmt.Fprintf(a.env.Stderr, "moat: %s\n", printable(scan.Redact(msg)))
		return false
	}
	stage := func(s string) { prog.set(func(p *hookProgress) { p.stage = s }) }
	ctx = decide.WithProgress(ctx, stage)
	// A command moat could not decide is refused, and recorded as a failure.
	ev := hook.Event{Kind: hook.PreTool, Name: o.event}
	policyName := ""
	failed := func(msg string, open bool) {
		stage("recording a failure (" + msg + ")")
		a.recordFailure(ctx, svc, o.agent, ev, policyName, msg, open)
	}
	if deadlineErr != nil {
		failed(deadlineErr.Error(), false)
		return refuse(deadlineErr.Error() + "; not running the command")
	}
	cwd, err := a.cwd()
	if err != nil {
		failed(err.Error(), false)
		return refuse(err.Error() + "; not running the command")
	}
	ev.Cwd = cwd
	c, err := call.Canonicalize(o.agent, string(call.Shell), map[string]any{call.ArgCommand: line})
	if err != nil {
		failed("cannot make a call of the command: "+err.Error(), false)
		return refuse("cannot make a call of the command: " + err.Error())
	}
	c.Cwd, c.Project = cwd, decide.ProjectRoot(cwd)
	ev.Call = c
	prog.set(func(p *hookProgress) { p.ev = ev })

	pol, err := svc.Lookup(ctx, decide.Scope{Flag: o.policy, Cwd: cwd})
	if err != nil {
		failed("cannot load the policy: "+err.Error(), false)
		return refuse("cannot load the policy, so the command does not run: " + err.Error())
	}
	policyName = pol.Name
	w.usePolicy(pol.Hooks.Deadline)
	prog.set(func(p *hookProgress) { p.policyName, p.stage = policyName, decide.StageDeciding })
	var d call.Decision
	// undecided follows the fail mode: only a call that could not be decided at all
	// does; a failure after a decision (asking, recording) never turns it into an allow.
	undecided := func(why string) bool {
		if pol.FailOpen() {
			failed(why, true)
			fmt.Fprintf(a.env.Stderr, "moat: warning: %s; running the command because the policy says fail: open\n", printable(scan.Redact(why)))
			return true
		}
		failed(why, false)
		return refuse(why + "; not running the command")
	}
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if !d.Verdict.Valid() && pol.FailOpen() {
			failed(fmt.Sprintf("internal error: %v", r), true)
			fmt.Fprintf(a.env.Stderr, "moat: warning: internal error (%v); running the command because the policy says fail: open\n", r)
			run = true
			return
		}
		if !d.Verdict.Valid() {
			failed(fmt.Sprintf("internal error: %v", r), false)
		}
		run = refuse(fmt.Sprintf("internal error (%v); not running the command", r))
	}()

	// Decided first and recorded after: an ask is recorded with the user's answer.
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: o.event, Calls: []call.Call{c}})
	if err != nil {
		return undecided("cannot decide the command: " + err.Error())
	}
	d = res.Decision
	record := func(d call.Decision) {
		stage(decide.StageRecording)
		// A failure to record is on stderr, which the user sees.
		if err := svc.Record(ctx, decide.RecordRequest{Policy: pol.Key, Event: o.event, Call: c, Decision: d}); err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: recording decision: %s\n", scan.Redact(err.Error()))
		}
	}
	switch d.Verdict {
	case call.Allow, call.Audit:
		record(d)
		return true
	case call.Ask:
		if run, held := a.askByApproval(ctx, svc, o, pol, c, refuse); held {
			return run
		}
		w.holding(true)
		ok, note := a.askUser(o.deps, line, d)
		w.holding(false)
		rec := d
		rec.Reason = strings.TrimSpace(d.Reason + " (" + note + ")")
		record(rec)
		if !ok {
			return refuse(fmt.Sprintf("not run: %s (rule %s); %s", reasonOf(d), d.Rule, note))
		}
		return true
	}
	// Deny, and anything that is not a verdict: the zero Decision never runs a command.
	record(d)
	return refuse(fmt.Sprintf("denied: %s (rule %s)", reasonOf(d), d.Rule))
}

// reasonOf is the decision's reason, or what its verdict means when it has none.
func reasonOf(d call.Decision) string {
	return strings.TrimSuffix(strings.TrimPrefix(decide.Reason(d), "moat: "), fmt.Sprintf(" (rule %s)", d.Rule))
}

// askUser asks on the terminal whether the command may run. It reports the answer and a
// note for the record: approved, refused, or no terminal.
func (a *app) askUser(deps guardDeps, line string, d call.Decision) (bool, string) {
	if deps.openTTY == nil {
		return false, "no terminal to ask on, so it is denied"
	}
	tty, err := deps.openTTY()
	if err != nil {
		return false, "no terminal to ask on, so it is denied"
	}
	defer tty.Close()
	prompt := fmt.Sprintf("moat: the policy asks before running this command:\n    %s\n  reason: %s\n  rule:   %s\nRun it? [y/N] ",
		indent(printable(scan.Redact(line))), printable(scan.Redact(reasonOf(d))), printable(d.Rule))
	if _, err := io.WriteString(tty, prompt); err != nil {
		return false, "the terminal could not be written to, so it is denied"
	}
	answer, err := readAnswer(tty)
	if err != nil && answer == "" {
		return false, "no answer from the terminal, so it is denied"
	}
	switch strings.ToLower(answer) {
	case "y", "yes":
		return true, "approved at the terminal"
	}
	return false, "refused at the terminal"
}

// readAnswer reads one line from the terminal, ended by a newline or, for a terminal in
// raw mode, a carriage return; at most a few bytes are kept. It reads a byte at a time so
// that nothing typed after the answer is taken from whoever reads the terminal next.
func readAnswer(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' || c[0] == '\r' {
				return strings.TrimSpace(b.String()), nil
			}
			if b.Len() < 64 {
				b.WriteByte(c[0])
			}
		}
		if err != nil {
			return strings.TrimSpace(b.String()), err
		}
	}
}

// printable escapes what a terminal would act on rather than show (control characters,
// escape sequences, bidirectional overrides, invisible characters), so that a command
// cannot disguise itself in the prompt that asks about it. Newlines stay.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ':
			if r <= 0xff {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// indent indents the lines after the first of a multi-line command under the first.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }
