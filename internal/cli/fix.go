package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/policyfix"
	"github.com/moatdev/moat/internal/scan"
)

type fixOptions struct {
	last  bool
	to    string
	write bool
	json  bool
}

func newFixCmd(a *app) *cobra.Command {
	var o fixOptions
	cmd := &cobra.Command{
		Use:   "fix [RECORD | --last] [--to allow|audit|ask|deny] [--write] [--json]",
		Short: "Propose the smallest policy change that decides a recorded call differently",
		Long: `Fix takes a decision you disagree with from the audit log (by its record number, the
"seq" of 'moat logs --json', or the newest with --last) and proposes the smallest change
to your policy that decides that call as you want: one rule that matches exactly that
call, placed above the rule that decided it (directly above it when it is one of your
own rules, as an exception to it), with an inline test of the call. It prints the change
as a diff; --write applies it.

The change is checked before it is shown and again before it is written: the policy
still loads, the call is decided as wanted, and every other test of the policy decides
exactly as before. Comments and layout of the file are kept.

The rule goes into the policy that decided the call: the project's moat.yaml when that
is in force (it then needs 'moat trust' again before the hooks use it), else your user
policy. When no policy file is in force (moat used its built-in recommended policy),
your user policy is created from the recommended template.

--to defaults to allow for a call that was denied or asked about, and to ask for one that
was allowed or audited. moat fix refuses what no policy can change: a self-protection
denial, a decision moat could not make (a failure), and a call whose arguments the log
holds redacted (a secret) or cut short, which no rule can match exactly.

Exit status: 0 when a change was proposed (or written), 1 when none can be.`,
		Example: `  moat fix --last                 # show the change that would allow the last call decided
  moat fix 42 --to deny           # deny exactly the call of record 42 from now on
  moat fix --last --write         # write the change into the policy file
  moat fix 42 --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.last == (len(args) == 1) {
				return &exitCode{code: exitError, err: errors.New("name one record: its number (moat logs --json shows it as seq) or --last")}
			}
			var seq uint64
			if len(args) == 1 {
				n, err := strconv.ParseUint(strings.TrimPrefix(args[0], "#"), 10, 64)
				if err != nil || n == 0 {
					return &exitCode{code: exitError, err: fmt.Errorf("record %q: give the record's number, e.g. moat fix 42", args[0])}
				}
				seq = n
			}
			return a.fix(cmd.Context(), o, seq)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.last, "last", false, "fix the newest decided call in the audit log")
	f.StringVar(&o.to, "to", "", "the decision wanted: allow, audit, ask or deny (default: allow for a denied or asked call, ask for an allowed one)")
	f.BoolVar(&o.write, "write", false, "write the change into the policy file")
	f.BoolVar(&o.json, "json", false, "print the proposal as JSON")
	return cmd
}

// fixDecision is a decision as moat fix reports it.
type fixDecision struct {
	Verdict call.Verdict `json:"decision"`
	Rule    string       `json:"rule"`
	Reason  string       `json:"reason,omitempty"`
}

func newFixDecision(d call.Decision) fixDecision {
	return fixDecision{Verdict: d.Verdict, Rule: d.Rule, Reason: d.Reason}
}

// fixReport is what moat fix prints with --json.
type fixReport struct {
	Record uint64 `json:"record"`
	Call   string `json:"call"`
	// Recorded is the decision the record holds; Before is the policy's now.
	Recorded call.Verdict `json:"recorded"`
	File     string       `json:"file"`
	Create   bool         `json:"create,omitempty"`
	Rule     string       `json:"rule"`
	Placed   string       `json:"placed"`
	Before   fixDecision  `json:"before"`
	After    fixDecision  `json:"after"`
	Tests    int          `json:"tests"`
	Diff     string       `json:"diff"`
	Notes    []string     `json:"notes,omitempty"`
	Written  bool         `json:"written"`
	// DecidedUnder names the policy the record was decided under, when that is not the
	// one in force for the call's directory now (the policy moved, or the hook knew the
	// session's project and found another).
	DecidedUnder string `json:"decided_under,omitempty"`
	// Trust says what to do before the hooks use a changed project policy.
	Trust string `json:"trust,omitempty"`
}

func (a *app) fix(ctx context.Context, o fixOptions, seq uint64) error {
	d, err := a.dirs()
	if err != nil {
		return err
	}
	rec, err := findRecord(d.AuditLog(), seq)
	if err != nil {
		return err
	}
	cl, err := recordCall(rec)
	if err != nil {
		return fmt.Errorf("record %d: %w", rec.Seq, err)
	}
	want, err := fixTarget(o.to, rec.Decision)
	if err != nil {
		return err
	}
	svc := a.policyOnly()
	src, d, err := svc.Find(decide.Scope{Cwd: cl.Cwd})
	if err != nil {
		return fmt.Errorf("finding the policy for %s: %w", cl.Cwd, err)
	}
	req := policyfix.Request{Dirs: d, Call: cl, Want: want, Origin: fmt.Sprintf("record %d", rec.Seq)}
	switch src.Kind {
	case source.FromEmbedded:
		req.File, req.Create = d.UserPolicy(), true
		if req.Text, err = policy.Template(policy.DefaultTemplate); err != nil {
			return err
		}
	default:
		req.File = src.Path
		req.Text, err = os.ReadFile(src.Path)
		if err != nil {
			return fmt.Errorf("reading %s: %w", src.Path, err)
		}
		if !bytes.Equal(req.Text, src.Data) {
			return fmt.Errorf("%s changed since you trusted it, so the hooks use the version you trusted; review it and run `moat trust %s`, then run moat fix again", src.Path, src.Path)
		}
	}
	fixer := policyfix.Fixer{Decider: svc}
	p, err := fixer.Propose(ctx, req)
	if err != nil {
		return fmt.Errorf("record %d (%s): %w", rec.Seq, cl.Describe(), err)
	}
	rep := fixReport{
		Record: rec.Seq, Call: cl.Describe(), Recorded: rec.Decision, File: p.File, Create: p.Create, Rule: p.Rule, Placed: p.Placed,
		DecidedUnder: decidedUnder(rec.Policy, src.Name),
		Before:       newFixDecision(p.Before), After: newFixDecision(p.After), Tests: p.Tests, Diff: p.Diff, Notes: p.Notes,
	}
	if o.write {
		if err := fixer.Apply(ctx, p); err != nil {
			return err
		}
		rep.Written = true
		if src.Kind == source.FromProject {
			rep.Trust = fmt.Sprintf("%s changed, so the hooks keep using the version you trusted until you run `moat trust %s`", p.File, p.File)
		}
	}
	return a.printFix(o, rep)
}

func (a *app) printFix(o fixOptions, r fixReport) error {
	if o.json {
		data, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(a.env.Stdout, scan.Redact(string(data)))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "record %d: %s\n", r.Record, r.Call)
	if r.DecidedUnder != "" {
		fmt.Fprintf(&b, "note:  the call was decided under %s, not the policy in force for its directory now\n", r.DecidedUnder)
	}
	if r.Recorded != r.Before.Verdict {
		fmt.Fprintf(&b, "was:   %s, when recorded (the policy has changed since)\n", r.Recorded)
	}
	fmt.Fprintf(&b, "now:   %s (rule %s)\n", r.Before.Verdict, r.Before.Rule)
	file := r.File
	if r.Create {
		file += " (a new user policy, from the recommended template)"
	}
	fmt.Fprintf(&b, "fix:   %s, by rule %s placed %s in %s\n\n", r.After.Verdict, r.Rule, r.Placed, file)
	b.WriteString(r.Diff)
	if !strings.HasSuffix(r.Diff, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "checked: the call is decided %s, its new test passes, and the policy's %d other %s as before\n", r.After.Verdict, r.Tests-1, plural(r.Tests-1, "test decides", "tests decide"))
	switch {
	case r.Written:
		fmt.Fprintf(&b, "wrote %s\n", r.File)
		if r.Trust != "" {
			fmt.Fprintf(&b, "next: %s\n", r.Trust)
		}
	default:
		b.WriteString("run again with --write to apply it\n")
	}
	_, err := fmt.Fprint(a.env.Stdout, scan.Redact(b.String()))
	return err
}

// decidedUnder is the policy a record names, when it is not the one in force now: names
// of a trusted project policy carry the hash of the version trusted, which a re-trust
// changes, so only the files are compared.
func decidedUnder(recorded, now string) string {
	file := func(name string) string { return strings.SplitN(name, " (", 2)[0] }
	if recorded == "" || file(recorded) == file(now) {
		return ""
	}
	return recorded
}

// findRecord returns the record numbered seq of the audit log at path, or with seq 0 the
// newest record of a decided call.
func findRecord(path string, seq uint64) (audit.Record, error) {
	var found audit.Record
	ok := false
	err := audit.Read(path, func(r audit.Record) error {
		switch {
		case seq != 0 && r.Seq == seq:
			found, ok = r, true
		case seq == 0 && decidedCall(r):
			found, ok = r, true
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return audit.Record{}, fmt.Errorf("no audit log at %s: moat has recorded no decision yet", path)
	}
	if err != nil && !ok {
		return audit.Record{}, fmt.Errorf("reading the audit log: %w", err)
	}
	if !ok {
		if seq != 0 {
			return audit.Record{}, fmt.Errorf("no record %d in the audit log %s (moat logs --json shows each record's seq)", seq, path)
		}
		return audit.Record{}, fmt.Errorf("the audit log %s holds no decided call", path)
	}
	return found, nil
}

// decidedCall reports whether r is the decision on a call by the policy: not a failure,
// nor what the output or prompt scanners found.
func decidedCall(r audit.Record) bool {
	return !r.Failure && r.Class != "" && r.Cwd != "" && r.Rule != decide.RuleOutputScan && r.Rule != decide.RulePromptScan
}

// recordCall rebuilds the call a record was made of.
func recordCall(r audit.Record) (call.Call, error) {
	switch {
	case r.Failure:
		return call.Call{}, fmt.Errorf("%w: moat could not decide this call (%s), and a rule cannot change that; fix what failed", policyfix.ErrRefused, r.Reason)
	case !decidedCall(r):
		return call.Call{}, errors.New("this record is not the decision on a call")
	case r.Clipped != "":
		return call.Call{}, fmt.Errorf("%w: the record was cut short in the log (%s), so its call cannot be matched exactly", policyfix.ErrRefused, r.Clipped)
	}
	class, ok := call.ParseClass(r.Class)
	if !ok {
		return call.Call{}, fmt.Errorf("unknown class %q", r.Class)
	}
	c := call.Call{Class: class, Tool: r.Tool, Args: r.Args, Cwd: r.Cwd, Session: r.Session}
	if r.Agent != "" {
		ag, ok := call.ParseAgent(r.Agent)
		if !ok {
			return call.Call{}, fmt.Errorf("unknown agent %q", r.Agent)
		}
		c.Agent = ag
	}
	if c.Args == nil {
		c.Args = map[string]any{}
	}
	if class == call.MCP {
		server, tool, ok := strings.Cut(strings.TrimPrefix(r.MCP, "mcp:"), "/")
		if !ok || !strings.HasPrefix(r.MCP, "mcp:") {
			return call.Call{}, fmt.Errorf("the MCP call names no server and tool (%q)", r.MCP)
		}
		c.MCP = &call.MCPTarget{Server: server, Tool: tool}
	}
	if !filepath.IsAbs(c.Cwd) {
		return call.Call{}, fmt.Errorf("the record's directory %q is not absolute", c.Cwd)
	}
	return c, nil
}

// fixTarget is the decision wanted: --to, or the natural flip of the recorded one.
func fixTarget(to string, was call.Verdict) (call.Verdict, error) {
	if to != "" {
		v, ok := call.ParseVerdict(to)
		if !ok {
			return 0, usageError(fmt.Errorf("--to must be allow, audit, ask or deny, not %q", to))
		}
		return v, nil
	}
	if was.Permissive() {
		return call.Ask, nil
	}
	return call.Allow, nil
}
