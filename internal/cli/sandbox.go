package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/sandbox"
	"github.com/moatdev/moat/internal/sandbox/generate"
	"github.com/moatdev/moat/internal/sandbox/linux"
)

func newSandboxCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Report what the kernel sandbox can enforce here, and generate macOS and Tetragon profiles",
	}
	cmd.AddCommand(newSandboxStatusCmd(a), newSandboxProfileCmd(a))
	return cmd
}

func newSandboxStatusCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print this kernel's Landlock ABI and what moat launch enforces with it",
		Long: `Status prints the Landlock ABI of the running kernel and, feature by feature, whether
moat launch enforces it here.

Exit status: 0 when Landlock is available, 1 when it is not.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st := linux.KernelStatus()
			if asJSON {
				if err := json.NewEncoder(a.env.Stdout).Encode(st); err != nil {
					return err
				}
			} else {
				if st.ABI > 0 {
					fmt.Fprintf(a.env.Stdout, "landlock: ABI %d\n", st.ABI)
				} else {
					fmt.Fprintf(a.env.Stdout, "landlock: not available (%s)\n", st.Error)
				}
				for _, f := range st.Features {
					state := "not enforced"
					if f.Enforced {
						state = "enforced"
					}
					abi := ""
					if f.MinABI > 0 {
						abi = fmt.Sprintf(" (ABI %d)", f.MinABI)
					}
					fmt.Fprintf(a.env.Stdout, "  %-13s %s%s\n", state, f.Name, abi)
					if f.Note != "" {
						fmt.Fprintf(a.env.Stdout, "                %s\n", f.Note)
					}
				}
			}
			if st.ABI == 0 {
				return &exitCode{code: exitError}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func newSandboxProfileCmd(a *app) *cobra.Command {
	var (
		format, policyFlag string
		profiles, binaries []string
	)
	cmd := &cobra.Command{
		Use:   "profile --format sbpl|tetragon",
		Short: "Print the sandbox as a macOS sandbox-exec profile or a Tetragon TracingPolicy",
		Long: `Profile prints the sandbox that moat launch would apply (the policy's sandbox section
over moat's default, plus the profiles named) in another system's language:

  sbpl      a macOS sandbox-exec profile: sandbox-exec -f FILE COMMAND
  tetragon  a Tetragon TracingPolicy, which enforces the deny and protect lists and the
            TCP connect ports by killing the process that tries

Paths are expanded for this user and workspace. Neither format is run by moat's tests,
which check the files' structure only.

Exit status: 0, or 1 on an error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			gen := map[string]func(*sandbox.Section, generate.Options) ([]byte, error){"sbpl": generate.SBPL, "tetragon": generate.Tetragon}[format]
			if gen == nil {
				return errors.New("--format must be sbpl or tetragon")
			}
			cwd, err := a.cwd()
			if err != nil {
				return err
			}
			l, err := a.launchPolicy(policyFlag, cwd)
			if err != nil {
				return err
			}
			var ps []*sandbox.Profile
			for _, n := range profiles {
				p, err := sandbox.LookupProfile(n)
				if err != nil {
					return err
				}
				ps = append(ps, p)
				if len(binaries) == 0 {
					for _, c := range p.Sandbox.Commands {
						if path, err := exec.LookPath(c); err == nil {
							binaries = append(binaries, path)
						}
					}
				}
			}
			sec, err := sandbox.Effective(l.policy.Sandbox, ps...)
			if err != nil {
				return err
			}
			ws, err := a.launchWorkspace(nil, l.policy.Workspace, cwd)
			if err != nil {
				return err
			}
			out, err := gen(sec, generate.Options{Host: a.host(l.dirs, ""), Workspace: ws, Binaries: binaries})
			if err != nil {
				return err
			}
			_, err = a.env.Stdout.Write(out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "", "sbpl (macOS sandbox-exec) or tetragon (Tetragon TracingPolicy)")
	f.StringVar(&policyFlag, "policy", "", "policy file to use instead of the one found from the working directory")
	f.StringSliceVar(&profiles, "profile", nil, "agent profile(s) to add")
	f.StringSliceVar(&binaries, "binary", nil, "tetragon: programs the policy applies to, with their children (default: the profiles' commands found on PATH; none: every process)")
	_ = cmd.MarkFlagRequired("format")
	return cmd
}
