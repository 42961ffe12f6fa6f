package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policyfix"
	"github.com/moatdev/moat/internal/scan"
)

func (a *app) approveAlwaysCmd(ctx context.Context, id string, dryRun bool, lineage approval.Lineage) error {
	if err := a.approveAlways(ctx, id, dryRun, lineage); err != nil {
		return &exitCode{code: exitError, err: err}
	}
	return nil
}

// approveAlways answers approval id for good: a rule allowing exactly its calls goes into
// the user's own policy (never a project's, which the user does not own alone), checked
// by policyfix before it is written, and the retry waiting for the answer goes ahead once,
// whichever policy is in force where it runs.
//
// The rule is written by this process, so this process must be the user's: it is checked
// as the daemon checks whoever answers (not an agent's descendant, a terminal), and a
// refusal is recorded like any other.
func (a *app) approveAlways(ctx context.Context, id string, dryRun bool, lineage approval.Lineage) error {
	d, err := a.dirs()
	if err != nil {
		return err
	}
	store := a.approvalQueue().Store(d)
	var who approval.Approver
	if !dryRun {
		var refused error
		who, refused = approval.CheckApprover(os.Getpid(), lineage, false)
		if refused != nil {
			_, warn, err := answerAs(store, who, refused, id, approval.Once, a.appendAudit(d))
			if warn != nil {
				a.warn(warn.Error())
			}
			return err
		}
	}
	l, err := store.Get(id)
	if err != nil {
		return err
	}
	file := d.UserPolicy()
	rules, err := a.alwaysRules(ctx, d, l, dryRun, func(s alwaysStep) {
		fmt.Fprint(a.env.Stdout, alwaysShown(s))
	})
	if err != nil {
		return err
	}
	if dryRun {
		fmt.Fprintln(a.env.Stdout, "dry run: nothing was written, and the approval still waits")
		return nil
	}
	if len(rules) > 0 {
		fmt.Fprintf(a.env.Stdout, "wrote %s: %s\n", file, strings.Join(rules, ", "))
		if err := a.appendAudit(d)(alwaysRecord(l, rules, file, who)); err != nil {
			a.warn(fmt.Sprintf("recording the rules written: %v", err))
		}
	}
	// The call waiting for this answer goes ahead once in any case: where the user's
	// policy is not the one in force, the rule alone would not let it through.
	if err := a.answerApprovalCmd(ctx, id, approval.Once, lineage); err != nil {
		return fmt.Errorf("the rule is written, but approving the waiting call failed: %w", err)
	}
	if note := a.alwaysNote(l, file); note != "" {
		fmt.Fprintln(a.env.Stdout, note)
	}
	return nil
}

// alwaysStep is one call of an approval made a rule by --always: the change proposed to
// the user's policy, or Already when the policy allows the call as it is.
type alwaysStep struct {
	Call     call.Call
	Proposal policyfix.Proposal
	Already  bool
}

// alwaysRules makes a rule of the user's own policy (never a project's, which the user
// does not own alone) for each call of approval l that allows exactly it, checked by
// policyfix before it is written; each step is shown through show before it is written,
// and nothing is written with dryRun. It returns the rules written. moat approve --always
// and the dashboard both answer for good through it; each checks its approver first.
func (a *app) alwaysRules(ctx context.Context, d dirs.Dirs, l approval.Listed, dryRun bool, show func(alwaysStep)) ([]string, error) {
	if len(l.Detail) == 0 {
		return nil, fmt.Errorf("approval %s: the call was too large for moat to keep, so no rule can be written from it; approve it with --once or --session, and write a rule with moat fix RECORD (moat logs --json shows its record)", l.ID)
	}
	fixer := policyfix.Fixer{Decider: a.policyOnly()}
	file := d.UserPolicy()
	var rules []string
	for _, cl := range l.Detail {
		req := policyfix.Request{File: file, Dirs: d, Call: cl, Want: call.Allow, Origin: "approval " + l.ID}
		var err error
		req.Text, err = os.ReadFile(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			req.Create = true
			if req.Text, err = policy.Template(policy.DefaultTemplate); err != nil {
				return nil, err
			}
		case err != nil:
			return nil, fmt.Errorf("reading your policy: %w", err)
		}
		p, err := fixer.Propose(ctx, req)
		if errors.Is(err, policyfix.ErrAlreadyDecided) {
			show(alwaysStep{Call: cl, Already: true})
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("approval %s (%s): %w", l.ID, cl.Describe(), err)
		}
		show(alwaysStep{Call: cl, Proposal: p})
		if dryRun {
			continue
		}
		if err := fixer.Apply(ctx, p); err != nil {
			return nil, fmt.Errorf("approval %s: %w", l.ID, err)
		}
		rules = append(rules, p.Rule)
	}
	return rules, nil
}

// alwaysRecord is the audit record of the rules an approval for good wrote into file.
func alwaysRecord(l approval.Listed, rules []string, file string, who approval.Approver) audit.Record {
	return audit.Record{
		Event: "approval always", Class: string(call.Other), Tool: "moat approve", Rule: "approval", Decision: call.Allow,
		Agent: l.Agent, Session: l.Session, Cwd: l.Cwd, Args: map[string]any{"approval": l.ID, "calls": l.Calls, "rules": rules, "file": file},
		Reason: fmt.Sprintf("approval %s made a rule of your policy by %s: %s in %s", l.ID, who, strings.Join(rules, ", "), file),
	}
}

// alwaysNote says when the rules written into file do not decide in l's directory, whose
// policy in force is another; "" when they do.
func (a *app) alwaysNote(l approval.Listed, file string) string {
	if src, _, err := a.policyOnly().Find(decide.Scope{Cwd: l.Cwd}); err == nil && src.Path != file {
		return fmt.Sprintf("note: in %s the policy in force is %s, not yours, so the rule applies only where your policy does", l.Cwd, src.Name)
	}
	return ""
}

// alwaysShown is what --always shows of step s, redacted and printable.
func alwaysShown(s alwaysStep) string {
	if s.Already {
		return printable(scan.Redact(s.Call.Describe())) + ": your policy already allows it\n"
	}
	return alwaysText(s.Proposal, s.Call)
}

// alwaysText is what --always shows of the rule it writes for cl, and how it was
// checked, redacted and printable.
func alwaysText(p policyfix.Proposal, cl call.Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", cl.Describe())
	fmt.Fprintf(&b, "now:   %s (rule %s)\n", p.Before.Verdict, p.Before.Rule)
	file := p.File
	if p.Create {
		file += " (a new user policy, from the recommended template)"
	}
	fmt.Fprintf(&b, "rule:  %s, placed %s in %s\n\n", p.Rule, p.Placed, file)
	b.WriteString(strings.TrimSuffix(p.Diff, "\n"))
	b.WriteString("\n\n")
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "checked: the call is allowed, its new test passes, and the policy's %d other %s as before\n", p.Tests-1, plural(p.Tests-1, "test decides", "tests decide"))
	return printable(scan.Redact(b.String()))
}
