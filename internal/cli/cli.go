// Package cli implements the moat command line: one file per command, each thin over the
// packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/scan"
)

// Env is everything a command takes from the process, injected so that commands can be
// tested without one.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Getwd          func() (string, error)
	Now            func() time.Time
	// Executable returns the path of the running moat binary.
	Executable func() (string, error)
	// ManagedDir, when set, replaces the system's managed directory (dirs.ManagedDir):
	// for tests only; no flag or environment variable sets it.
	ManagedDir string
}

// OSEnv is the environment of the running process.
func OSEnv() Env {
	return Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now, Executable: os.Executable,
	}
}

// exitCode carries a command's exit status; err, when set, is printed first.
type exitCode struct {
	code int
	err  error
}

func (e *exitCode) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// Main runs moat with args (without the program name) and returns the exit status. It is
// the one place where errors become exit codes.
func Main(args []string, env Env) int {
	a := &app{env: env}
	if len(args) > 0 && args[0] == "hook" && plainHookArgs(args[1:]) {
		// `moat hook AGENT`, as the agents run it once per tool call: answered without
		// building the command, which it does not need.
		return a.exitStatus(a.runHookCommand(context.Background(), args[1], ""))
	}
	return a.execute(context.Background(), newRoot(a, args), args)
}

// execute runs root with args and returns the exit status, having written the error
// that ends the run, if any, on a's stderr.
func (a *app) execute(ctx context.Context, root *cobra.Command, args []string) int {
	root.SetArgs(args)
	markErrors(root)
	if len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd) {
		a.addCompletions(root)
	}
	return a.exitStatus(root.ExecuteContext(ctx))
}

// exitStatus is the exit status of a command that ended with err, having written err,
// if any, on a's stderr.
func (a *app) exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var ec *exitCode
	if errors.As(err, &ec) {
		if ec.err != nil {
			fmt.Fprintf(a.env.Stderr, "moat: %s\n", scan.Redact(ec.err.Error()))
		}
		return ec.code
	}
	// Every command's own errors carry their status (markErrors): what is left is
	// cobra's, a command line it could not read.
	fmt.Fprintf(a.env.Stderr, "moat: %s (see moat --help)\n", scan.Redact(err.Error()))
	return exitUsage
}

// app is what the commands share: the injected environment and what is derived from it.
type app struct {
	env Env
	// hook is where `moat hook` does its work: the zero value in its own process, the
	// daemon's for a thin hook client (see hookHost).
	hook hookHost
}

// commands builds each of moat's commands, by name.
var commands = []struct {
	name string
	make func(*app) *cobra.Command
}{
	{"version", newVersionCmd},
	{"init", newInitCmd},
	{"validate", newValidateCmd},
	{"schema", newSchemaCmd},
	{"test", newTestCmd},
	{"check", newCheckCmd},
	{"hook", newHookCmd},
	{"setup", newSetupCmd},
	{"status", newStatusCmd},
	{"trust", newTrustCmd},
	{"fix", newFixCmd},
	{"findings", newFindingsCmd},
	{"approvals", newApprovalsCmd},
	{"approve", newApproveCmd},
	{"deny", newDenyCmd},
	{"mcp", newMCPCmd},
	{"launch", newLaunchCmd},
	{"sandbox", newSandboxCmd},
	{"profile", newProfileCmd},
	{"logs", newLogsCmd},
	{"report", newReportCmd},
	{"packs", newPacksCmd},
	{"policy", newPolicyCmd},
	{"doctor", newDoctorCmd},
	{"run", newRunCmd},
	{"shell", newShellCmd},
	{"daemon", newDaemonCmd},
	{"ui", newUICmd},
	{"fleet", newFleetCmd},
}

// newRoot builds the command tree for a run with args. A run that names a command gets
// only that one: `moat hook` runs once per tool call, and has no use for the others' flags
// and help. Any other run (help, completion, a mistyped command) gets them all.
func newRoot(a *app, args []string) *cobra.Command {
	root := bareRoot(a)
	for _, c := range commands {
		if len(args) > 0 && args[0] == c.name {
			root.AddCommand(c.make(a))
			return root
		}
	}
	for _, c := range commands {
		root.AddCommand(c.make(a))
	}
	return root
}

// bareRoot is the root command without its subcommands, writing to a's streams.
func bareRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:   "moat",
		Short: "A guardrail for AI coding agents",
		Long: `moat decides, before each action of an AI coding agent runs, whether it may:
shell commands, file reads and writes, web fetches and MCP tool calls are checked
against one policy file, and every decision can be explained.

Start with 'moat init' to write a policy for the current project, 'moat check -- CMD'
to see how a command would be decided, and 'moat check --explain -- CMD' to see why.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildInfo().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(a.env.Stdin)
	root.SetOut(a.env.Stdout)
	root.SetErr(a.env.Stderr)
	return root
}

func (a *app) dirs() (dirs.Dirs, error) {
	d, err := dirs.FromEnv(a.env.Getenv)
	if err == nil && a.env.ManagedDir != "" {
		d.Managed = a.env.ManagedDir
	}
	return d, err
}

func (a *app) cwd() (string, error) {
	wd, err := a.env.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory: %w", err)
	}
	return wd, nil
}

// local is the decision service in this process, for this user, with the warnings about
// skipped policy sources sent to warn (nil: stderr).
func (a *app) local(warn func(string)) *decide.Local {
	if warn == nil {
		warn = a.warn
	}
	return decide.NewLocal(a.withSessionState(decide.Options{Getenv: a.env.Getenv, Now: a.env.Now, Executable: a.env.Executable, Warn: warn}))
}

// policyOnly is a decision service of its own, holding no session state (rate-limit
// counters, histories, approvals): for commands about what the policy decides (moat fix,
// moat approve --always), which must change no state by asking.
func (a *app) policyOnly() *decide.Local {
	return decide.NewLocal(decide.Options{Getenv: a.env.Getenv, Now: a.env.Now, Executable: a.env.Executable, Warn: a.warn, ManagedDir: a.env.ManagedDir, VerifyManaged: a.verifyManaged()})
}

// withSessionState gives opts the state every decision service of this user keeps
// between calls, where opts has none of its own: rate-limit counters, session
// histories and the approval queue, all in files of the user's state directory that the
// daemon and every process share.
func (a *app) withSessionState(opts decide.Options) decide.Options {
	if opts.ManagedDir == "" {
		opts.ManagedDir = a.env.ManagedDir
	}
	if opts.VerifyManaged == nil {
		opts.VerifyManaged = a.verifyManaged()
	}
	if opts.Limits == nil {
		opts.Limits = a.limits()
	}
	if opts.History == nil {
		opts.History = a.sessionHistory()
	}
	if opts.Approvals == nil {
		opts.Approvals = a.approvalQueue()
	}
	return opts
}

// host describes this user and installation to the policy (see decide.Local.Host).
func (a *app) host(d dirs.Dirs, policyPath string) pathset.Host {
	return a.local(nil).Host(d, policyPath)
}

// loaded is a policy compiled for this user, for the commands about policies (validate,
// test, trust, launch, doctor); deciding calls goes through the decision service.
type loaded struct {
	source   source.Source
	policy   *policy.Policy
	dirs     dirs.Dirs
	compiled *decide.Compiled
}

func newLoaded(c *decide.Compiled) *loaded {
	return &loaded{source: c.Source, policy: c.Policy, dirs: c.Dirs, compiled: c}
}

// load finds the policy for cwd (or the one named by flag) and compiles it. Warnings
// about skipped sources go to stderr.
func (a *app) load(flag, cwd string) (*loaded, error) {
	c, err := a.local(nil).Load(decide.Scope{Flag: flag, Cwd: cwd})
	if err != nil {
		return nil, err
	}
	return newLoaded(c), nil
}

// warn writes a warning on stderr.
func (a *app) warn(msg string) { fmt.Fprintf(a.env.Stderr, "moat: warning: %s\n", msg) }

// findPolicy finds the policy source for cwd (or the one named by flag), as the hooks
// do. Warnings about skipped sources go to stderr.
func (a *app) findPolicy(flag, cwd string) (source.Source, dirs.Dirs, error) {
	return a.findPolicyWarn(flag, cwd, "", a.warn)
}

// findPolicyWarn finds the policy source for a call in cwd of the session project
// project (or the one named by flag), with the warnings about skipped sources sent to
// warn.
func (a *app) findPolicyWarn(flag, cwd, project string, warn func(string)) (source.Source, dirs.Dirs, error) {
	return a.local(warn).Find(decide.Scope{Flag: flag, Cwd: cwd, Project: project})
}

func (a *app) compile(src source.Source, d dirs.Dirs) (*loaded, error) {
	c, err := a.local(nil).Compile(src, d)
	if err != nil {
		return nil, err
	}
	return newLoaded(c), nil
}

// compileFile reads and compiles one named policy file for this user.
func (a *app) compileFile(file string) (*loaded, error) {
	c, err := a.local(nil).CompileFile(file)
	if err != nil {
		return nil, err
	}
	return newLoaded(c), nil
}

// fileArg is the policy file named by a command's optional FILE argument (see policyFile).
func (a *app) fileArg(args []string) (string, error) {
	cwd, err := a.cwd()
	if err != nil {
		return "", err
	}
	return a.policyFile(firstArg(args), cwd)
}

// policyFile picks the policy file a command about files works on (validate, test, trust):
// the argument, else the project's moat.yaml (trusted or not), else the user's policy.
func (a *app) policyFile(arg, cwd string) (string, error) {
	if arg != "" {
		if !filepath.IsAbs(arg) {
			arg = filepath.Join(cwd, arg)
		}
		return filepath.Clean(arg), nil
	}
	p, ok, err := source.ProjectPolicy(cwd)
	if err != nil {
		return "", err
	}
	if ok {
		return p, nil
	}
	d, err := a.dirs()
	if err != nil {
		return "", err
	}
	// Whatever is there (a dangling link, a FIFO) is the file, whose reading says what is
	// wrong with it.
	if _, err := os.Lstat(d.UserPolicy()); err == nil {
		return d.UserPolicy(), nil
	}
	return "", fmt.Errorf("no policy file here: no %s from %s up to the repository root, and no %s; name one, or run `moat init`", source.ProjectFile, cwd, d.UserPolicy())
}

// CommandTree is moat's whole command tree, for generating its documentation (man
// pages); running it is Main's job.
func CommandTree() *cobra.Command { return newRoot(&app{env: OSEnv()}, nil) }
