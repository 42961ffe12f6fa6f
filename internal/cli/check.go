package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/scan"
)

type checkOptions struct {
	verbose bool
	policy  string
	agent   string
	tool    string
	args    string
	cwd     string
	session string
	explain bool
	json    bool
	stdin   bool
	record  bool
	// noDaemon decides in this process even when the daemon runs (--stdin only).
	noDaemon bool
}

func newCheckCmd(a *app) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [flags] -- COMMAND [ARG...]",
		Short: "Decide one call, or a stream of calls, and print the decision",
		Long: `Check evaluates a call against the policy and prints the decision: allow, audit
(allow and flag), ask (needs the user's approval) or deny.

By default the call is a shell command. A single argument is taken as a whole command
line ('ls; rm -rf ~'); several arguments are taken as one command's words and quoted
for the shell. With --tool, the call is that tool instead (a class such as file.read, or
any agent's native name such as Read or read_file); give its arguments as a JSON object
with --args, or give its main argument (the path, URL or pattern) as the positional
argument.

With --stdin, check reads newline-delimited JSON requests and writes one JSON response
line per request, in order:

  request:  {"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash",
             "args":{"command":"ls"},"cwd":"/abs/dir","session":"optional"}
  response: {"decision":"allow","reason":null,"rule":"…","findings":[],"latency_ms":0.01}

A request that cannot be evaluated gets {"error":"…"} and the stream goes on.

Exit status (without --stdin): 0 allow or audit, 2 ask, 3 deny, 1 error, 64 usage.
With --stdin: 0 once the input ends, 1 on an I/O error.

Decisions are not written to the audit log unless --record is given.`,
		Example: `  moat check -- 'rm -rf ~'
  moat check --explain -- git push --force origin main
  moat check --tool Read -- ~/.ssh/id_rsa
  moat check --tool mcp:github/delete_repo --args '{"repo":"x"}'
  echo '{"version":1,"tool":"Bash","args":{"command":"ls"},"cwd":"/tmp"}' | moat check --stdin`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.stdin {
				if len(args) > 0 || o.tool != "" || o.args != "" || o.explain {
					return usageError(errors.New("--stdin reads calls from standard input; it takes no command, --tool, --args or --explain"))
				}
				return a.checkStream(cmd.Context(), o)
			}
			return a.checkOne(cmd.Context(), o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "", "policy file to use instead of the one found from the working directory")
	f.StringVar(&o.agent, "agent", "", "agent making the call (claude-code, cursor, windsurf, gemini-cli, codex, …)")
	f.StringVar(&o.tool, "tool", "", "tool to call instead of a shell command: a class or a native tool name")
	f.StringVar(&o.args, "args", "", "the tool's arguments as a JSON object")
	f.StringVar(&o.cwd, "cwd", "", "working directory of the call (default: the current one)")
	f.StringVar(&o.session, "session", "", "session id to record with the decision")
	f.BoolVar(&o.explain, "explain", false, "print how the decision was reached: each unit, its findings, the rule that decided and the nearest misses")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "with --explain, show every rule tried, condition by condition")
	f.BoolVar(&o.json, "json", false, "print the decision as JSON")
	f.BoolVar(&o.stdin, "stdin", false, "read newline-delimited JSON requests and answer each with a JSON line")
	f.BoolVar(&o.record, "record", false, "append each decision to the audit log")
	f.BoolVar(&o.noDaemon, "no-daemon", false, "with --stdin, decide in this process even when the daemon runs (MOAT_DAEMON=off does the same)")
	return cmd
}

func (a *app) checkOne(ctx context.Context, o checkOptions, args []string) error {
	cwd, err := a.callCwd(o.cwd)
	if err != nil {
		return err
	}
	c, err := buildCall(o, args, cwd)
	if err != nil {
		return usageError(err)
	}
	svc := a.local(nil)
	pol, err := svc.Lookup(ctx, decide.Scope{Flag: o.policy, Cwd: cwd})
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	if o.policy != "" {
		if note := a.hooksNote(pol.Path, cwd); note != "" {
			fmt.Fprintf(a.env.Stderr, "moat: note: %s\n", note)
		}
	}
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: hook.MoatPreToolUse, Calls: []call.Call{c}, Explain: o.explain, Record: o.record})
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	if len(res.NotRecorded) > 0 {
		return &exitCode{code: exitError, err: res.NotRecorded[0]}
	}
	d, tr := res.Decision, res.Trace
	if err := a.printDecision(o, d, tr); err != nil {
		return err
	}
	switch d.Verdict {
	case call.Allow, call.Audit:
		return nil
	case call.Ask:
		return &exitCode{code: exitAsk}
	}
	return &exitCode{code: exitDeny}
}

func (a *app) callCwd(flag string) (string, error) {
	wd, err := a.cwd()
	if err != nil {
		return "", err
	}
	if flag == "" {
		return wd, nil
	}
	if !filepath.IsAbs(flag) {
		flag = filepath.Join(wd, flag)
	}
	return filepath.Clean(flag), nil
}

// buildCall turns check's flags and arguments into a canonical call.
func buildCall(o checkOptions, args []string, cwd string) (call.Call, error) {
	var agent call.Agent
	if o.agent != "" {
		ag, err := parseAgent("--agent", o.agent)
		if err != nil {
			return call.Call{}, err
		}
		agent = ag
	}
	toolArgs := map[string]any{}
	if o.args != "" {
		dec := json.NewDecoder(strings.NewReader(o.args))
		dec.UseNumber()
		if err := dec.Decode(&toolArgs); err != nil {
			return call.Call{}, fmt.Errorf("--args must be a JSON object: %w", err)
		}
	}
	tool := o.tool
	if tool == "" {
		if len(args) == 0 {
			return call.Call{}, errors.New("nothing to check: give a command after --, or --tool")
		}
		tool = string(call.Shell)
	}
	if len(args) > 0 {
		// The class says which argument the command line gives; the call is made once
		// it is among the others, since a tool's arguments are read all together.
		class, err := call.ClassOf(agent, tool)
		if err != nil {
			return call.Call{}, err
		}
		key := primaryArg(class)
		if key == "" {
			return call.Call{}, fmt.Errorf("%s calls take their arguments from --args, not from the command line", class)
		}
		if _, set := toolArgs[key]; set {
			return call.Call{}, fmt.Errorf("the %s is given twice: in --args and on the command line", key)
		}
		v, err := joinArgs(class, args)
		if err != nil {
			return call.Call{}, err
		}
		// Under the canonical key, which every tool accepts beside its native names (a
		// native name given in --args too makes the argument given twice).
		toolArgs[key] = v
	}
	c, err := call.Canonicalize(agent, tool, toolArgs)
	if err != nil {
		return call.Call{}, err
	}
	if c.Cwd == "" {
		c.Cwd = cwd
	} else if !filepath.IsAbs(c.Cwd) {
		c.Cwd = filepath.Join(cwd, c.Cwd)
	}
	c.Project = decide.ProjectRoot(c.Cwd)
	c.Session = o.session
	return c, nil
}

func primaryArg(c call.Class) string {
	switch c {
	case call.Shell:
		return call.ArgCommand
	case call.FileRead, call.FileWrite, call.FileEdit, call.FileDelete:
		return call.ArgPath
	case call.FileSearch:
		return call.ArgPattern
	case call.WebFetch:
		return call.ArgURL
	}
	return ""
}

// joinArgs makes the positional arguments one value: for a shell call, one argument is a
// whole line and several are one command's words, quoted so the shell sees them as given.
func joinArgs(c call.Class, args []string) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	if c != call.Shell {
		return "", fmt.Errorf("%s calls take one positional argument, not %d", c, len(args))
	}
	words := make([]string, len(args))
	for i, w := range args {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			return "", fmt.Errorf("argument %d cannot be quoted for the shell: %w", i+1, err)
		}
		words[i] = q
	}
	return strings.Join(words, " "), nil
}

func (a *app) printDecision(o checkOptions, d call.Decision, tr *decide.Trace) error {
	w := a.env.Stdout
	if o.json {
		out := struct {
			hook.MoatResponse
			Trace *decide.Trace `json:"trace,omitempty"`
		}{hook.NewMoatResponse(d, scan.Redact), tr}
		data, err := json.Marshal(out)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", scan.Redact(string(data)))
		return err
	}
	if tr != nil {
		if o.verbose {
			return tr.WriteText(w, scan.Redact)
		}
		return tr.WriteConcise(w, scan.Redact)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  (rule %s)\n", d.Verdict, d.Rule)
	if d.Reason != "" {
		fmt.Fprintf(&b, "reason: %s\n", d.Reason)
	}
	for _, f := range d.Findings {
		fmt.Fprintf(&b, "finding: %s (%s) %s\n", f.ID, f.Severity, f.Evidence)
	}
	_, err := io.WriteString(w, scan.Redact(b.String()))
	return err
}

// checkStream answers newline-delimited requests on stdin, one response line each, in
// order. Nothing a request holds can stop the stream: malformed, unknown and oversized
// requests are answered with an error line.
func (a *app) checkStream(ctx context.Context, o checkOptions) error {
	cwd, err := a.callCwd(o.cwd)
	if err != nil {
		return err
	}
	// One scope for the whole stream: the working directory of moat itself, or --policy.
	// Its policy is watched: an edit applies from the next request, and an edit that
	// cannot be used keeps the policy in force (with a notice in the next reason).
	// The daemon decides when it runs (it watches the policies itself); else a live
	// service in this process.
	svc := a.decisionService(ctx, decisionServiceOptions{noDaemon: o.noDaemon, live: true})
	defer svc.Close()
	scope := decide.Scope{Flag: o.policy, Cwd: cwd}
	if _, err := svc.Lookup(ctx, scope); err != nil {
		return &exitCode{code: exitError, err: err}
	}
	in := bufio.NewReaderSize(a.env.Stdin, 64<<10)
	out := bufio.NewWriter(a.env.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, tooLong, err := hook.ReadLine(in, hook.MaxMoatRequest)
		if err != nil && !errors.Is(err, io.EOF) {
			return &exitCode{code: exitError, err: fmt.Errorf("reading requests: %w", err)}
		}
		if tooLong {
			if encErr := enc.Encode(hook.MoatError{Error: fmt.Sprintf("request longer than %d bytes", hook.MaxMoatRequest)}); encErr != nil {
				return encErr
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			if encErr := enc.Encode(a.answer(ctx, svc, scope, o, line)); encErr != nil {
				return encErr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		// Flush only when no more input is waiting, so that an interactive client gets its
		// answer at once and a bulk stream is not slowed by a write per line.
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return err
			}
		}
	}
}

func (a *app) answer(ctx context.Context, svc decide.Service, scope decide.Scope, o checkOptions, line []byte) any {
	req, err := hook.DecodeMoat(line)
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	c, err := req.Call()
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	pol, err := svc.Lookup(ctx, scope)
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: hook.MoatPreToolUse, Calls: []call.Call{c}, Record: o.record})
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	for _, e := range res.NotRecorded {
		fmt.Fprintf(a.env.Stderr, "moat: recording decision: %s\n", scan.Redact(e.Error()))
	}
	return hook.NewMoatResponse(res.Decision, scan.Redact)
}
