package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/sandbox"
	"github.com/moatdev/moat/internal/sandbox/linux"
)

// Exit codes of `moat launch`, as env(1) and container runtimes use them: any other
// status is the command's own.
const (
	exitLaunchFailed   = 125 // moat could not set up the sandbox; nothing ran
	exitLaunchNoExec   = 126 // the command was found but could not be run
	exitLaunchNotFound = 127 // the command was not found
)

// sandboxEnvVar tells the processes in a sandbox that they are in one, and which.
const sandboxEnvVar = "MOAT_SANDBOX"

type launchOptions struct {
	policy           string
	profiles         []string
	dryRun           bool
	allowUnsandboxed bool
	workspace        []string
}

func newLaunchCmd(a *app) *cobra.Command {
	var o launchOptions
	cmd := &cobra.Command{
		Use:   "launch [flags] -- COMMAND [ARG...]",
		Short: "Run an agent under kernel-enforced limits (Landlock) derived from the policy",
		Long: `Launch runs COMMAND, and everything it starts, in a sandbox the kernel enforces: the
policy's sandbox section (over moat's default sandbox) and the agent's profile say which
paths may be read, written and executed, which TCP ports may be connected to and bound,
and the resource limits; secret-looking environment variables are dropped.

On Linux the sandbox is Landlock, applied as far as the kernel's Landlock ABI allows:
--dry-run prints every rule and says what is and is not enforced on this kernel. Without
Landlock, launch refuses to run unless --allow-unsandboxed is given.

The profile is the one named by --profile, or the one made for the command (claude,
codex, gemini, …); --profile none uses none. 'moat profile list' lists them.

MOAT_POLICY is set to the policy file for the hooks inside (a project policy is left to
be found again, so that the trust store still guards it) and MOAT_SANDBOX to the
Landlock ABI in force.

Exit status: the command's own once it runs; 125 when moat could not set up the
sandbox (invalid policy or sandbox section, unknown profile, no Landlock), and nothing
ran; 126 when the command could not be executed; 127 when it was not found.`,
		Example: `  moat launch -- claude
  moat launch --dry-run -- codex
  moat launch --profile aider --policy ~/policies/strict.yaml -- aider --model sonnet
  moat launch --profile none -- sh -c 'make test'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.launch(o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.policy, "policy", "", "policy file to use instead of the one found from the working directory")
	f.StringSliceVar(&o.profiles, "profile", nil, "agent profile(s) to add (default: the one made for COMMAND; none for none)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the sandbox that would be applied, rule by rule, and run nothing")
	f.BoolVar(&o.allowUnsandboxed, "allow-unsandboxed", false, "run without Landlock when the kernel has none (limits and the environment filter still apply)")
	f.StringSliceVar(&o.workspace, "workspace", nil, "directories $workspace stands for (default: the policy's workspace, else the repository or working directory)")
	f.SetInterspersed(false)
	return cmd
}

func launchErr(err error) error { return &exitCode{code: exitLaunchFailed, err: err} }

func (a *app) launch(o launchOptions, args []string) error {
	if len(args) == 0 {
		return launchErr(errors.New("launch needs a command: moat launch [flags] -- COMMAND [ARG...]"))
	}
	cwd, err := a.cwd()
	if err != nil {
		return launchErr(err)
	}
	l, err := a.launchPolicy(o.policy, cwd)
	if err != nil {
		return launchErr(err)
	}
	profiles, err := a.launchProfiles(o.profiles, args[0])
	if err != nil {
		return launchErr(err)
	}
	sec, err := sandbox.Effective(l.policy.Sandbox, profiles...)
	if err != nil {
		return launchErr(err)
	}
	// A project policy is guarded by the trust store (read-only in the sandbox): the
	// hooks find it again and refuse it once changed. Any other file is named in
	// MOAT_POLICY, and so is protected from writes itself.
	policyFile := ""
	if l.source.Kind != source.FromProject && l.source.Kind != source.FromEmbedded {
		policyFile = l.source.Path
	}
	abi, abiErr := linux.KernelABI()
	if abiErr != nil && !o.allowUnsandboxed && !o.dryRun {
		return launchErr(fmt.Errorf("%w; nothing was run (--allow-unsandboxed runs the command with only the resource limits and the environment filter)", abiErr))
	}
	workspace, err := a.launchWorkspace(o.workspace, l.policy.Workspace, cwd)
	if err != nil {
		return launchErr(err)
	}
	opts := sandbox.Options{
		Section:     sec,
		Host:        a.host(l.dirs, policyFile),
		Workspace:   workspace,
		Environ:     os.Environ(),
		ABI:         abi,
		Errata:      linux.KernelErrata(),
		MPTCPFilter: linux.MPTCPFilterable(),
		CreateDirs:  !o.dryRun,
		LogFiles:    audit.WriterFiles(l.dirs.AuditLog()),
	}
	var plan *sandbox.Plan
	if o.dryRun || abi == 0 {
		plan, err = sandbox.Build(opts)
	} else {
		// A launch that will enforce the plan asks the daemon for its carving, which
		// the daemon keeps while the directories it looked at stay the same.
		var cv *sandbox.Carving
		if cv, err = a.launchCarving(opts); err == nil {
			plan, err = sandbox.Finish(opts, cv)
		}
	}
	if err != nil {
		return launchErr(err)
	}
	for _, w := range workspace {
		if policyFile != "" && strings.HasPrefix(policyFile, w+string(filepath.Separator)) {
			fmt.Fprintf(a.env.Stderr, "moat: warning: the policy %s is inside the workspace; to keep the agent from changing it, the directories above it in the workspace are closed to new, deleted and renamed entries. Trust it (moat trust) and launch without --policy, and the hooks will find it and refuse it once changed.\n", policyFile)
		}
	}
	plan.Env = setEnv(plan.Env, source.EnvVar, policyFile)
	state := "none"
	if abi > 0 {
		state = "landlock-abi-" + strconv.Itoa(abi)
	}
	plan.Env = setEnv(plan.Env, sandboxEnvVar, state)

	path, lookErr := exec.LookPath(args[0])
	if o.dryRun {
		out := a.env.Stdout
		fmt.Fprintf(out, "command: %s\n", strings.Join(args, " "))
		if lookErr != nil {
			fmt.Fprintf(out, "  (not found: %v)\n", lookErr)
		} else {
			fmt.Fprintf(out, "  runs %s\n", path)
		}
		fmt.Fprintf(out, "policy: %s\n", l.source.Name)
		fmt.Fprintf(out, "workspace: %s\n", strings.Join(workspace, ", "))
		plan.WriteReport(out)
		return nil
	}
	if lookErr != nil {
		code := exitLaunchNotFound
		if !errors.Is(lookErr, exec.ErrNotFound) {
			code = exitLaunchNoExec
		}
		return &exitCode{code: code, err: lookErr}
	}
	if abiErr != nil {
		fmt.Fprintf(a.env.Stderr, "moat: warning: %v: running %s WITHOUT a sandbox (--allow-unsandboxed); only the resource limits and the environment filter apply\n", abiErr, args[0])
	}
	err = linux.Exec(plan, path, args)
	var ee *linux.ExecError
	if errors.As(err, &ee) {
		return &exitCode{code: exitLaunchNoExec, err: err}
	}
	return launchErr(err)
}

// launchedPolicy is the policy a launch derives its sandbox from.
type launchedPolicy struct {
	source source.Source
	policy *policy.Policy
	dirs   dirs.Dirs
}

// launchPolicy finds and compiles the policy as load does, without building an engine:
// the launch only reads its sandbox section and workspace.
func (a *app) launchPolicy(flag, cwd string) (*launchedPolicy, error) {
	src, d, err := a.findPolicy(flag, cwd)
	if err != nil {
		return nil, err
	}
	p, err := policy.Load(src.Name, src.Data, a.host(d, src.Path))
	if err != nil {
		return nil, err
	}
	return &launchedPolicy{source: src, policy: p, dirs: d}, nil
}

// launchProfiles returns the named profiles, or the one made for program when none is
// named. "none" names no profile.
func (a *app) launchProfiles(names []string, program string) ([]*sandbox.Profile, error) {
	if len(names) == 0 {
		p := sandbox.ProfileFor(program)
		if p == nil {
			return nil, nil
		}
		fmt.Fprintf(a.env.Stderr, "moat: using profile %s for %s (--profile none to go without)\n", p.Name, filepath.Base(program))
		return []*sandbox.Profile{p}, nil
	}
	var out []*sandbox.Profile
	for _, n := range names {
		if n == "none" {
			if len(names) > 1 {
				return nil, errors.New("--profile none cannot be combined with other profiles")
			}
			return nil, nil
		}
		p, err := sandbox.LookupProfile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// launchWorkspace returns the roots $workspace stands for: the flag's, else the policy's,
// else the repository around cwd, else cwd.
func (a *app) launchWorkspace(flag, fromPolicy []string, cwd string) ([]string, error) {
	if len(flag) > 0 {
		out := make([]string, len(flag))
		for i, w := range flag {
			if !filepath.IsAbs(w) {
				w = filepath.Join(cwd, w)
			}
			if _, err := os.Stat(w); err != nil {
				return nil, fmt.Errorf("--workspace: %w", err)
			}
			out[i] = filepath.Clean(w)
		}
		return out, nil
	}
	if len(fromPolicy) > 0 {
		return fromPolicy, nil
	}
	if root := source.RepoRoot(cwd); root != "" {
		return []string{root}, nil
	}
	return []string{cwd}, nil
}

// setEnv sets name=value in environ, or removes name when value is empty.
func setEnv(environ []string, name, value string) []string {
	out := environ[:0:0]
	for _, kv := range environ {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	if value != "" {
		out = append(out, name+"="+value)
	}
	return out
}
