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
	// Which variables look like secrets is worked out meanwhile: it starts the secret
	// scanner, the costliest part of finishing the plan, and needs nothing the setup
	// finds.
	environ := os.Environ()
	secretLooking := make(chan sandbox.SecretLooking, 1)
	go func() { secretLooking <- sandbox.FindSecretLooking(environ) }()
	abi, abiErr := linux.KernelABI()
	var s *launchSetup
	if abi > 0 && !o.dryRun {
		// A launch that will enforce its plan asks the daemon, which keeps the compiled
		// policies and the carvings; nil means it is set up here, as without a daemon.
		s = a.launchSetupByDaemon(o, args[0], cwd, abi)
	}
	if s == nil {
		if s, err = a.launchSetupHere(o, args[0], cwd, abi, abiErr); err != nil {
			return launchErr(err)
		}
	}
	opts := s.opts
	opts.Environ, opts.SecretLooking = environ, <-secretLooking
	opts.Errata = linux.KernelErrata()
	opts.MPTCPFilter = linux.MPTCPFilterable()
	plan, err := sandbox.Finish(opts, s.carving)
	if err != nil {
		return launchErr(err)
	}
	workspace := opts.Workspace
	policyFile := launchPolicyFile(s.source)
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
		fmt.Fprintf(out, "policy: %s\n", s.source.Name)
		fmt.Fprintf(out, "workspace: %s\n", strings.Join(workspace, ", "))
		plan.WriteReport(out)
		return nil
	}
	if lookErr != nil {
		code := exitGuardNotFound
		if !errors.Is(lookErr, exec.ErrNotFound) {
			code = exitGuardRefused
		}
		return &exitCode{code: code, err: lookErr}
	}
	if abiErr != nil {
		fmt.Fprintf(a.env.Stderr, "moat: warning: %v: running %s WITHOUT a sandbox (--allow-unsandboxed); only the resource limits and the environment filter apply\n", abiErr, args[0])
	}
	err = linux.Exec(plan, path, args)
	var ee *linux.ExecError
	if errors.As(err, &ee) {
		return &exitCode{code: exitGuardRefused, err: err}
	}
	return launchErr(err)
}

// launchSetup is what a launch works out before it runs anything, in its own process or
// in the daemon: the policy it follows, the sandbox's options and their carving.
// sandbox.Finish completes it into the plan with what only the launch's process knows
// (its environment, the kernel's errata).
type launchSetup struct {
	// source is the policy followed (its Kind, Path and Name: not its data).
	source source.Source
	// opts are the options of the carving: Section, Host, Workspace, ABI, CreateDirs
	// and LogFiles.
	opts    sandbox.Options
	carving *sandbox.Carving
}

// launchPolicyFile is the policy file a launch names in MOAT_POLICY. A project policy is
// guarded by the trust store (read-only in the sandbox): the hooks find it again and
// refuse it once changed. Any other file is named, and so is protected from writes
// itself.
func launchPolicyFile(src source.Source) string {
	if src.Kind == source.FromProject || src.Kind == source.FromEmbedded {
		return ""
	}
	return src.Path
}

// launchLookup is how a launch's setup compiles the policy it found and tells the user
// what it chose: in the launch's own process, or in the daemon on its behalf.
type launchLookup struct {
	compile func(source.Source, dirs.Dirs) (*policy.Policy, error)
	// warn is told of each policy source passed over (an untrusted project policy).
	warn func(string)
	// profileFor is told of the profile made for program, used as none was named.
	profileFor func(profile, program string)
}

// launchSetupHere sets a launch up in its own process.
func (a *app) launchSetupHere(o launchOptions, program, cwd string, abi int, abiErr error) (*launchSetup, error) {
	lk := launchLookup{
		compile:    a.compileSandbox,
		warn:       a.warn,
		profileFor: a.usingProfile,
	}
	s, err := a.launchOptions(o, program, cwd, abi, abiErr, lk)
	if err != nil {
		return nil, err
	}
	if s.carving, err = sandbox.Carve(s.opts); err != nil {
		return nil, err
	}
	return s, nil
}

// usingProfile tells the user which profile a launch uses for program, as none was named.
func (a *app) usingProfile(profile, program string) {
	fmt.Fprintf(a.env.Stderr, "moat: using profile %s for %s (--profile none to go without)\n", profile, filepath.Base(program))
}

// launchOptions finds the policy and the profiles of a launch and works out the options
// of its carving, as the launch's process or the daemon does it.
func (a *app) launchOptions(o launchOptions, program, cwd string, abi int, abiErr error, lk launchLookup) (*launchSetup, error) {
	src, d, err := a.findPolicyWarn(o.policy, cwd, "", lk.warn)
	if err != nil {
		return nil, err
	}
	p, err := lk.compile(src, d)
	if err != nil {
		return nil, err
	}
	profiles, made, err := launchProfiles(o.profiles, program)
	if err != nil {
		return nil, err
	}
	if made != nil {
		lk.profileFor(made.Name, program)
	}
	sec, err := sandbox.Effective(p.Sandbox, profiles...)
	if err != nil {
		return nil, err
	}
	policyFile := launchPolicyFile(src)
	if abiErr != nil && !o.allowUnsandboxed && !o.dryRun {
		return nil, fmt.Errorf("%w; nothing was run (--allow-unsandboxed runs the command with only the resource limits and the environment filter)", abiErr)
	}
	workspace, err := a.launchWorkspace(o.workspace, p.Workspace, cwd)
	if err != nil {
		return nil, err
	}
	return &launchSetup{
		source: source.Source{Kind: src.Kind, Path: src.Path, Name: src.Name},
		opts: sandbox.Options{
			Section:    sec,
			Host:       a.host(d, policyFile),
			Workspace:  workspace,
			ABI:        abi,
			CreateDirs: !o.dryRun,
			LogFiles:   audit.WriterFiles(d.AuditLog()),
		},
	}, nil
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
	p, err := a.compileSandbox(src, d)
	if err != nil {
		return nil, err
	}
	return &launchedPolicy{source: src, policy: p, dirs: d}, nil
}

// compileSandbox compiles a policy for what a launch reads of it: its sandbox section
// and workspace.
func (a *app) compileSandbox(src source.Source, d dirs.Dirs) (*policy.Policy, error) {
	return policy.LoadWith(src.Name, src.Data, a.host(d, src.Path), policy.LoadOptions{Path: src.Path, PackDirs: d.PackDirs()})
}

// launchProfiles returns the named profiles, or the one made for program when none is
// named, which it also returns as made. "none" names no profile.
func launchProfiles(names []string, program string) (profiles []*sandbox.Profile, made *sandbox.Profile, err error) {
	if len(names) == 0 {
		p := sandbox.ProfileFor(program)
		if p == nil {
			return nil, nil, nil
		}
		return []*sandbox.Profile{p}, p, nil
	}
	var out []*sandbox.Profile
	for _, n := range names {
		if n == "none" {
			if len(names) > 1 {
				return nil, nil, errors.New("--profile none cannot be combined with other profiles")
			}
			return nil, nil, nil
		}
		p, err := sandbox.LookupProfile(n)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, p)
	}
	return out, nil, nil
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
