package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/proc"
	"github.com/moatdev/moat/internal/scan"
)

func newApproveCmd(a *app) *cobra.Command {
	var once, session, always, dryRun bool
	cmd := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a call waiting in moat's approval queue, so that its identical retry goes ahead",
		Long: `Approve a call the policy asked about that could not be put to you, by the ID its
refusal named (moat approvals lists them). The approval is bound to the exact call:
the same agent, session, directory, tool and arguments; a call that differs in
anything is not approved.

  --once      the next identical call goes ahead, once (the default)
  --session   every identical call of the agent's session goes ahead, until the
              approval expires (the policy's approvals.expire, 1h by default)
  --always    write a rule into your own policy (~/.config/moat/moat.yaml) that
              allows exactly this call from now on, with a test of it, and let the
              retry through once. The change is shown as a diff and checked first:
              the policy must load, the call must be allowed, and every other test
              must decide as before. --dry-run shows it and changes nothing.

Only you may approve: moat refuses an approval from a process started by an agent, or
from one without a terminal, and records every approval and refusal in the audit log.`,
		Example: `  moat approvals
  moat approve 3f2a
  moat approve 3f2a --session
  moat approve 3f2a --always --dry-run`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, set := range []bool{once, session, always} {
				if set {
					n++
				}
			}
			if n > 1 {
				return usageError(errors.New("choose one of --once, --session and --always"))
			}
			if dryRun && !always {
				return usageError(errors.New("--dry-run goes with --always"))
			}
			if always {
				return a.approveAlwaysCmd(cmd.Context(), args[0], dryRun, proc.Lineage)
			}
			state := approval.Once
			if session {
				state = approval.Session
			}
			return a.answerApprovalCmd(cmd.Context(), args[0], state, proc.Lineage)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&once, "once", false, "let the next identical call through, once (the default)")
	f.BoolVar(&session, "session", false, "let every identical call of the session through until the approval expires")
	f.BoolVar(&always, "always", false, "add a rule to your own policy that allows exactly this call from now on")
	f.BoolVar(&dryRun, "dry-run", false, "with --always: show the rule that would be written, and change nothing")
	return cmd
}

func newDenyCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "deny ID",
		Short: "Refuse a call waiting in moat's approval queue: its retries are refused without asking again",
		Long: `Refuse a call waiting for your approval, by the ID its refusal named (moat approvals
lists them). Identical retries are refused, saying you denied them, until the denial
expires (the policy's approvals.expire); a grant given before is revoked.`,
		Example: `  moat deny 3f2a`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.answerApprovalCmd(cmd.Context(), args[0], approval.Denied, proc.Lineage)
		},
	}
}

// answerApprovalCmd answers approval id with state and says what was done.
func (a *app) answerApprovalCmd(ctx context.Context, id string, state approval.State, lineage approval.Lineage) error {
	l, err := a.answerApproval(ctx, id, state, lineage)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	what := "approved once: the next identical call goes ahead"
	switch state {
	case approval.Session:
		what = "approved for the session: identical calls of the session go ahead"
	case approval.Denied:
		what = "denied: identical calls are refused"
	}
	fmt.Fprintf(a.env.Stdout, "%s %s, until %s\n", l.ID, what, l.Expires.Local().Format("15:04:05"))
	for _, c := range l.Calls {
		fmt.Fprintf(a.env.Stdout, "  %s\n", printable(scan.Redact(c)))
	}
	return nil
}

// answerApproval answers approval id: through the daemon when it runs (which checks who
// asks by the process at the other end of its socket), in this process otherwise,
// checking this process the same way.
func (a *app) answerApproval(ctx context.Context, id string, state approval.State, lineage approval.Lineage) (approval.Listed, error) {
	var out approval.Listed
	err := a.approvalThroughDaemon(ctx, methodApprove, approvalRequest{ID: id, State: state}, &out)
	if !errors.Is(err, errNoDaemon) {
		return out, err
	}
	d, err := a.dirs()
	if err != nil {
		return approval.Listed{}, err
	}
	who, refused := approval.CheckApprover(os.Getpid(), lineage, false)
	l, warn, err := answerAs(a.approvalQueue().Store(d), who, refused, id, state, a.appendAudit(d))
	if warn != nil {
		a.warn(warn.Error())
	}
	return l, err
}

// appendAudit returns a writer of single records to the audit log of the user whose
// directories are d, for the records of approvals answered in this process.
func (a *app) appendAudit(d dirs.Dirs) func(audit.Record) error {
	return func(r audit.Record) error {
		log, err := audit.Open(audit.Options{Path: d.AuditLog(), Redactor: scan.Redactor{}, Now: a.env.Now})
		if err != nil {
			return fmt.Errorf("opening audit log: %w", err)
		}
		if err := log.Append(r); err != nil {
			log.Close()
			return fmt.Errorf("writing audit log: %w", err)
		}
		return log.Close()
	}
}

// answerAs answers approval id in store with state for who, or records and returns
// refused when who may not answer. Every answer and refusal is recorded through write;
// a record that fails is returned as warn (the answer stands).
func answerAs(store *approval.Store, who approval.Approver, refused error, id string, state approval.State, write func(audit.Record) error) (l approval.Listed, warn, err error) {
	rec := audit.Record{Event: "approval " + string(state), Class: string(call.Other), Tool: "moat approve", Rule: "approval", Args: map[string]any{"approval": id}}
	if state == approval.Denied {
		rec.Tool = "moat deny"
	}
	if refused != nil {
		rec.Event, rec.Decision = "approval refused", call.Deny
		rec.Reason = refused.Error()
		if werr := write(rec); werr != nil {
			return approval.Listed{}, fmt.Errorf("recording the refusal: %w", werr), refused
		}
		return approval.Listed{}, nil, refused
	}
	l, err = store.Answer(id, state, who.String())
	if err != nil {
		return approval.Listed{}, nil, err
	}
	rec.Agent, rec.Session, rec.Cwd = l.Agent, l.Session, l.Cwd
	rec.Args = map[string]any{"approval": l.ID, "calls": l.Calls}
	rec.Decision = call.Allow
	verb := "granted once"
	if state == approval.Session {
		verb = "granted for the session"
	}
	if state == approval.Denied {
		rec.Decision, verb = call.Deny, "denied"
	}
	rec.Reason = fmt.Sprintf("approval %s %s by %s (rule %s: %s)", l.ID, verb, who, l.Rule, l.Reason)
	if werr := write(rec); werr != nil {
		warn = fmt.Errorf("recording the answer: %w", werr)
	}
	return l, warn, nil
}
