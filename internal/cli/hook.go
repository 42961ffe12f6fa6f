package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/didyoumean"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/proc"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/trust"
)

func newHookCmd(a *app) *cobra.Command {
	var policyFlag string
	names := hookAgentNames()
	cmd := &cobra.Command{
		Use:   "hook AGENT",
		Short: "Answer an agent's hook: read its event on stdin, decide, reply as it expects",
		Long: `Hook is what an agent runs before each tool call (and, where the agent has them,
after a tool ran and when the user submits a prompt). It reads the agent's JSON event on
standard input, decides the call with the policy of the session's project (the directory
the agent names: CLAUDE_PROJECT_DIR, Cursor's workspace root, GEMINI_PROJECT_DIR,
CODEX_PROJECT_DIR, Windsurf's workspace; else the event's working directory), records the
decision, and answers in the agent's own format.

Agents: ` + strings.Join(names, ", ") + `.

moat adds protection and never removes it. A call that the policy lets run is answered
with the agent's own form of silence, so that the agent's permission system (its prompts,
allow lists and modes) decides as it would without moat; with 'hooks: {allow: explicit}'
in the policy, a call an allow rule matched is answered allow (which skips the agent's
prompt). A deny is the agent's deny, with the reason. An ask is sent only where the agent
is known to put it to the user; everywhere else, and in a non-interactive run (CI=true,
GITHUB_ACTIONS=true, MOAT_NONINTERACTIVE=1, or 'hooks: {ask: deny}'), it is a deny that says how to allow
the call. MOAT_NONINTERACTIVE=0 says a person is there even when CI is set.

  claude-code  PreToolUse for every tool: deny, or ask in the default and plan modes
               (in acceptEdits, auto, dontAsk and bypassPermissions Claude Code lets an
               ask through, so it is a deny); PostToolUse reads the tool's output for
               prompt injection and credentials and warns the model; UserPromptSubmit
               blocks a prompt hiding text in Unicode tag characters.
  cursor       beforeShellExecution, beforeMCPExecution (permission deny or ask),
               beforeReadFile, preToolUse (ask is a deny: Cursor does not ask there) and
               beforeSubmitPrompt.
  windsurf     pre_run_command, pre_read_code, pre_write_code, pre_mcp_tool_use and
               pre_user_prompt: exit 2 with the reason blocks; ask is a block that says how
               to allow the call.
  gemini-cli   BeforeTool (decision deny or ask), AfterTool (output read as for Claude
               Code) and BeforeAgent (the prompt). Headless Gemini CLI leaves an ask
               pending, so there an ask is a deny; moat finds it headless as Gemini does
               (-p, no terminal, CI), reading Gemini's process on Linux.
  codex        PreToolUse for Bash, mcp__server__tool and apply_patch, split into one
               write, edit or delete per file; ask is a deny that says approval is needed
               (Codex cannot ask); UserPromptSubmit.

A project policy applies once you trust it ('moat trust'); one nobody trusted is passed
over, and one changed since you trusted it is enforced as you trusted it (moat keeps a
copy), never replaced by another policy. Either is said to the user once per change,
where the agent has a channel to the user (Claude Code and Gemini CLI's systemMessage,
Cursor's user_message, Windsurf's output panel). Anything at a policy location that is
not a regular file (a dangling link, a FIFO, a device) is a failure.

Every hook answers within its deadline (2s; MOAT_HOOK_DEADLINE, a Go duration, or the
policy's 'hooks: {deadline: 5s}', between 100ms and 30s; the variable wins): whatever
moat waits on (a lock another process holds, a FIFO, a slow disk), at the deadline it
answers with the agent's failure form, which blocks the call, and records the timeout if
it can.

Every answer is recorded in the audit log, with what the agent was told when that is not
the decision (answer: defer or deny). Every failure (a malformed or oversized event, an
unknown event, a policy that cannot be read, an internal error) blocks the call, with the
reason, unless the policy says 'fail: open', in which case the call goes ahead with a
visible warning; failures are recorded too ('moat logs --failures'). A hook invoked with
an unknown agent or bad flags exits with status 2, which every agent treats as a block.

'moat setup' writes these hooks into the agents' settings.`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"cwd":"/home/me/project"}' | moat hook claude-code`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitCode{code: exitHookUsage, err: fmt.Errorf("hook takes one agent name (%s)", strings.Join(names, ", "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runHookCommand(cmd.Context(), args[0], policyFlag)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &exitCode{code: exitHookUsage, err: err}
	})
	cmd.Flags().StringVar(&policyFlag, "policy", "", "policy file to use instead of the one found from the event's working directory")
	return cmd
}

// runHookCommand is `moat hook AGENT [--policy FILE]` once its arguments are read: it
// answers the event on stdin for agent and writes the answer. Its error carries the
// exit status (exitCode).
func (a *app) runHookCommand(ctx context.Context, agent, policyFlag string) error {
	ad, ok := hook.ForAgent(agent)
	if !ok {
		return &exitCode{code: exitHookUsage, err: fmt.Errorf("no hook for agent %q%s (moat has hooks for %s); blocking", agent, didyoumean.Hint(agent, hookAgentNames()), strings.Join(hookAgentNames(), ", "))}
	}
	out, finish := a.answerHook(ctx, ad, policyFlag)
	if _, err := a.env.Stdout.Write(out.Stdout); err != nil {
		return &exitCode{code: exitHookUsage, err: err}
	}
	io.WriteString(a.env.Stderr, scan.Redact(out.Stderr))
	a.hook.finish(finish)
	if out.Code != 0 {
		return &exitCode{code: out.Code}
	}
	return nil
}

// hookAgentNames are the agents moat has hooks for.
func hookAgentNames() []string {
	names := make([]string, len(hook.Adapters))
	for i, ad := range hook.Adapters {
		names[i] = string(ad.Agent())
	}
	return names
}

// plainHookArgs reports whether args, the arguments after `hook`, are one agent name and
// nothing else, which is how the agents' settings run the hook: such a run needs none of
// cobra's parsing, help or flags, and runHookCommand answers it as the command would.
// Anything else (a flag, help, no agent, several) goes through the command.
func plainHookArgs(args []string) bool {
	return len(args) == 1 && args[0] != "" && !strings.HasPrefix(args[0], "-")
}

// answerHook answers one hook event within the hook's deadline: the work runs in its own
// goroutine, and when it has not answered by the deadline, whatever it waits on (a lock
// held by another process, a FIFO, a slow disk), the answer is the agent's fail-closed
// one. finish, called once the answer is written, gives recording that timeout a moment
// (recordGrace): what hung may be the recording itself.
func (a *app) answerHook(ctx context.Context, ad hook.Adapter, policyFlag string) (out hook.Output, finish func()) {
	return a.answerHookWith(ctx, ad, policyFlag, a.hook.service)
}

// answerHookWith is answerHook with the decision service svc (nil: the local one), for
// tests of what the work may wait on.
func (a *app) answerHookWith(ctx context.Context, ad hook.Adapter, policyFlag string, svc decide.Service) (out hook.Output, finish func()) {
	limit, fixed, deadlineErr := hookDeadline(a.env.Getenv)
	w := newWatchdog(limit, fixed)
	w.spawn = a.hook.spawn
	prog := &hookProgress{stage: "reading the event"}
	worker, stderr := a.detached()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, limit, ok := within(w, func() hook.Output {
		return worker.runHook(ctx, ad, policyFlag, hookRun{watch: w, progress: prog, deadlineErr: deadlineErr, service: svc, ancestors: a.hook.readAncestors})
	})
	stderr.flush(a.env.Stderr)
	if ok {
		return out, func() {}
	}
	ev, policyName, stage := prog.snapshot()
	reason := fmt.Sprintf("no answer within the hook's deadline of %s: moat was still %s (%s or the policy's hooks.deadline sets the deadline)", limit, stage, envHookDeadline)
	// The failure is recorded by a service of its own: what hung may be the one asked.
	finish = a.recordWithin(func(bg *app) {
		bg.recordFailure(context.WithoutCancel(ctx), bg.local(nil), ad.Agent(), ev, policyName, reason, false)
	})
	return ad.Fail(ev, reason, false), finish
}

// hookRun is what runHook shares with answerHook, which waits for it.
type hookRun struct {
	watch    *watchdog
	progress *hookProgress
	// deadlineErr is an invalid MOAT_HOOK_DEADLINE, a failure of the event.
	deadlineErr error
	// service, when set, replaces the local decision service.
	service decide.Service
	// ancestors reads the processes above the hook, nearest first (the agent's, for
	// Gemini CLI's headless check).
	ancestors func(n int) []proc.Info
}

// hookHost is where a hook's work is done. The zero value is a moat process of its own,
// started by the agent. The daemon, answering for a thin hook client, brings the
// decision service of the client's environment, the client's process tree (the client's
// parent is the agent, not the daemon's), and answers before a timeout is recorded.
type hookHost struct {
	// service replaces the local decision service when set.
	service decide.Service
	// ancestors reads the processes above the hook, nearest first; nil is this
	// process's (proc.Ancestors).
	ancestors func(n int) []proc.Info
	// deferFinish, when set, is given the finish of an answer (recording a timeout)
	// instead of the command waiting for it: the daemon sends the answer first.
	deferFinish func(finish func())
	// spawn, when set, starts the hook's work (the daemon's workers); nil is a goroutine
	// of its own.
	spawn func(func())
}

// readAncestors reads the processes above the hook, nearest first, at most n of them.
func (h hookHost) readAncestors(n int) []proc.Info {
	if h.ancestors == nil {
		return proc.Ancestors(n)
	}
	return h.ancestors(n)
}

// finish runs an answer's finish, or hands it to deferFinish.
func (h hookHost) finish(finish func()) {
	if h.deferFinish == nil {
		finish()
		return
	}
	h.deferFinish(finish)
}

// hookProgress is what the hook's work has got to, for the answer on its deadline: the
// event as far as it was read, the policy, and what it was doing.
type hookProgress struct {
	mu         sync.Mutex
	ev         hook.Event
	policyName string
	stage      string
}

func (p *hookProgress) set(update func(*hookProgress)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	update(p)
}

func (p *hookProgress) snapshot() (hook.Event, string, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ev, p.policyName, p.stage
}

// runHook answers one hook event. Whatever happens, including a panic, it returns the
// agent's answer: a decision, or a failure that blocks unless the policy says fail: open.
// Every answer is recorded, failures included, so that a user can look up what they saw.
func (a *app) runHook(ctx context.Context, ad hook.Adapter, policyFlag string, run hookRun) (out hook.Output) {
	svc := run.service
	if svc == nil {
		svc = a.local(nil)
	}
	var (
		ev         hook.Event
		failOpen   bool
		policyName string
	)
	stage := func(s string) { run.progress.set(func(p *hookProgress) { p.stage = s }) }
	ctx = decide.WithProgress(ctx, stage)
	fail := func(reason string, open bool) hook.Output {
		stage("recording a failure (" + reason + ")")
		a.recordFailure(ctx, svc, ad.Agent(), ev, policyName, reason, open)
		return ad.Fail(ev, reason, open)
	}
	defer func() {
		if r := recover(); r != nil {
			out = ad.Fail(ev, fmt.Sprintf("internal error: %v", r), failOpen)
			defer func() { recover() }() // recording the failure must not undo its answer
			a.recordFailure(ctx, svc, ad.Agent(), ev, policyName, fmt.Sprintf("internal error: %v", r), failOpen)
		}
	}()
	payload, err := io.ReadAll(io.LimitReader(a.env.Stdin, hook.MaxPayload+1))
	if err != nil {
		return fail("reading the hook event: "+err.Error(), false)
	}
	ev, parseErr := ad.Parse(payload, a.env.Getenv)
	run.progress.set(func(p *hookProgress) { p.ev, p.stage = ev, "loading the policy" })
	if run.deadlineErr != nil {
		return fail(run.deadlineErr.Error(), false)
	}

	cwd := ev.Cwd
	if cwd == "" {
		if cwd, err = a.cwd(); err != nil {
			return fail(err.Error(), false)
		}
	}
	// The policy that applies is the session's project's, wherever the call runs.
	project := ev.Call.Project
	if project == "" && slices.Contains(hooksRunInWorkspace, ad.Agent()) {
		if wd, err := a.cwd(); err == nil {
			project = decide.ProjectRoot(wd)
		}
	}
	pol, err := svc.Lookup(ctx, decide.Scope{Flag: policyFlag, Cwd: cwd, Project: project})
	if err != nil {
		return fail("cannot load the policy: "+scan.Redact(err.Error()), false)
	}
	failOpen, policyName = pol.FailOpen(), pol.Name
	run.watch.usePolicy(pol.Hooks.Deadline)
	run.progress.set(func(pr *hookProgress) { pr.policyName, pr.stage = policyName, decide.StageDeciding })
	if parseErr != nil {
		return fail(scan.Redact(parseErr.Error()), failOpen)
	}
	ev.Unattended = hook.NonInteractive(a.env.Getenv)
	if ev.Unattended == "" && pol.Hooks.Ask == policy.HookAskDeny {
		ev.Unattended = "the policy's hooks.ask is deny"
	}
	notice := a.skippedPolicyNotice(pol.Skipped, pol.Name)

	switch ev.Kind {
	case hook.PreTool:
		calls := slices.Clone(ev.ToolCalls())
		for i := range calls {
			if calls[i].Cwd == "" {
				// The event named no directory (Windsurf's file events): the hook runs in
				// the workspace.
				calls[i].Cwd = cwd
			}
		}
		if ev.Unattended == "" {
			// Whether anyone can answer an ask is read from the process tree, for the
			// agents that say so only there (Gemini CLI).
			if h, ok := ad.(headlessAgent); ok {
				ev.Unattended = h.Headless(run.ancestors(4))
			}
		}
		holds, noAsk := ad.AskHolds(ev)
		// One tool call may stand for several (an apply_patch over several files): the
		// strictest decision answers for all of them. Each is recorded, with what the
		// agent is told when that differs from the decision, before the answer, so that
		// a record the log did not take is told to the user.
		res, err := svc.Decide(ctx, decide.CallRequest{
			Policy: pol.Key, Event: ev.Name, Calls: calls, Project: project, Record: true,
			Hook: &decide.HookDelivery{Unattended: ev.Unattended, AskHolds: holds, NoAsk: noAsk},
		})
		if err != nil {
			return fail("deciding: "+scan.Redact(err.Error()), failOpen)
		}
		if res.Answer == nil {
			return fail("deciding: the decision service gave no answer", failOpen)
		}
		ans := hook.Answer{Verdict: res.Answer.Verdict, Defer: res.Answer.Defer, Reason: res.Answer.Reason}
		ans.Notice = joinNotices(notice, a.recordNotice(res.NotRecorded))
		return ad.Render(ev, ans)
	case hook.PostTool:
		res, err := svc.DecideOutput(ctx, decide.OutputRequest{Policy: pol.Key, Event: ev.Name, Call: ev.Call, Text: ev.Text, Form: decide.ToolOutput, Record: true})
		if err != nil {
			return fail("reading the tool's output: "+scan.Redact(err.Error()), failOpen)
		}
		ans := outcomeAnswer(res.Outcome)
		var notRecorded []*decide.RecordError
		if res.NotRecorded != nil {
			notRecorded = append(notRecorded, res.NotRecorded)
		}
		ans.Notice = joinNotices(notice, a.recordNotice(notRecorded))
		return ad.Render(ev, ans)
	case hook.Prompt:
		res, err := svc.DecidePrompt(ctx, decide.PromptRequest{Text: ev.Text})
		if err != nil {
			return fail("reading the prompt: "+scan.Redact(err.Error()), failOpen)
		}
		ans := outcomeAnswer(res)
		ans.Notice = notice
		return ad.Render(ev, ans)
	}
	return fail("moat does not handle this event", failOpen)
}

// outcomeAnswer is the hook's answer to what reading a tool's output or a prompt found:
// a block when the policy blocks it, the finding as context for the agent otherwise.
func outcomeAnswer(o decide.Outcome) hook.Answer {
	switch {
	case o.Block():
		return hook.Answer{Block: true, Reason: o.Decision.Reason}
	case o.Found:
		return hook.Answer{Context: o.Decision.Reason}
	}
	return hook.Answer{}
}

// hooksRunInWorkspace are the agents whose hook events name no project directory but
// which run their hooks in the workspace (Windsurf): the repository around the hook's
// working directory is the session's project.
var hooksRunInWorkspace = []call.Agent{call.Windsurf}

// headlessAgent is an agent whose hook events do not say whether anyone is there to
// answer an ask, but whose process does (Gemini CLI).
type headlessAgent interface {
	Headless(ancestors []proc.Info) string
}

// recordNotice reports on stderr each record that did not reach the audit log, and
// returns what the user is told of the first through the agent (see recordNotice).
func (a *app) recordNotice(notRecorded []*decide.RecordError) string {
	for _, e := range notRecorded {
		fmt.Fprintf(a.env.Stderr, "moat: recording decision: %s\n", scan.Redact(e.Error()))
	}
	if len(notRecorded) == 0 {
		return ""
	}
	return recordNotice(notRecorded[0])
}

// recordNotice is what the user is told, through the agent, when the decision just made
// did not reach the audit log: a warning on a hook's stderr reaches nobody, and a trail
// that silently stops is what an agent holding the log's lock would want.
func recordNotice(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, audit.ErrSpooled):
		return scan.Redact("moat: this decision is not in the audit log yet (" + err.Error() + "); it is kept in a spool file and merged by the next write. Run `moat doctor` if this repeats.")
	}
	return scan.Redact("moat: this decision could not be recorded (" + err.Error() + "). Run `moat doctor`.")
}

// joinNotices joins the notices for the user that are not empty, one per line.
func joinNotices(notices ...string) string {
	var kept []string
	for _, n := range notices {
		if n != "" {
			kept = append(kept, n)
		}
	}
	return strings.Join(kept, "\n")
}

// recordFailure records, through svc, a decision moat could not make for agent's event
// ev: what the fail mode answered (a deny, or an allow under fail: open) and why. The
// event may be only partly read; whatever it said of the call is kept. A failure to
// record is reported on stderr.
func (a *app) recordFailure(ctx context.Context, svc decide.Service, agent call.Agent, ev hook.Event, policyName, reason string, open bool) {
	err := svc.RecordFailure(ctx, decide.Failure{Agent: agent, Event: ev.Name, Call: ev.Call, Cwd: ev.Cwd, Policy: policyName, Reason: reason, Open: open})
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "moat: %s\n", scan.Redact(err.Error()))
	}
}

// skippedPolicyNotice is what the user is told, once per content, about project policies
// whose current content the hooks are not using: an edit to a trusted moat.yaml would
// otherwise go unnoticed, since warnings on a hook's stderr reach no one. It is "" when
// there is nothing to say or it was said already.
func (a *app) skippedPolicyNotice(skipped []source.Skipped, inForce string) string {
	if len(skipped) == 0 {
		return ""
	}
	d, err := a.dirs()
	if err != nil {
		return ""
	}
	var notes []string
	for _, sk := range skipped {
		if !firstNotice(d.Notices(), sk.Path+"\x00"+sk.SHA256) {
			continue
		}
		if sk.Status == trust.Changed {
			// The version the user trusted is the one in force: Why says so.
			notes = append(notes, fmt.Sprintf("moat: %s.", sk.Why))
			continue
		}
		notes = append(notes, fmt.Sprintf("moat: %s. Until then the hooks use %s.", sk.Why, inForce))
	}
	return scan.Redact(strings.Join(notes, " "))
}

// firstNotice reports whether the notice keyed by key is due: true the first time it is
// asked about, as seen from the marker files in dir. When no marker can be kept the
// notice is due every time: repeating it beats never saying it.
func firstNotice(dir, key string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true
	}
	sum := sha256.Sum256([]byte(key))
	f, err := os.OpenFile(filepath.Join(dir, hex.EncodeToString(sum[:16])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false
	}
	if err == nil {
		f.Close()
	}
	return true
}
