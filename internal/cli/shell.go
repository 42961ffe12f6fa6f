package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// ShellName is the name under which the moat binary is the guarded shell: a link named
// moat-shell to moat behaves as `moat shell`.
const ShellName = "moat-shell"

// Environment of the guarded shell.
const (
	// envRealShell names the shell that runs the commands moat allows; default /bin/bash,
	// else /bin/sh.
	envRealShell = "MOAT_REAL_SHELL"
	// envShellExec marks the real shell moat-shell started, so that a moat binary
	// configured as the real shell is noticed and skipped instead of starting itself for
	// ever: PID:HASH:N, the process id (which exec keeps), a hash of the arguments and the
	// index of the shell chosen. A nested moat-shell is another process, or has other
	// arguments, so it decides its command like any other.
	envShellExec = "MOAT_SHELL_EXEC"
)

// ProgramArgs returns the arguments to give Main for the process's command line argv
// (program name first): run under the name moat-shell (or -moat-shell, as a login shell),
// moat is `moat shell`.
func ProgramArgs(argv []string) []string {
	if len(argv) == 0 {
		return nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(argv[0]), "-"), ".exe")
	if name == ShellName {
		return append([]string{"shell"}, argv[1:]...)
	}
	return argv[1:]
}

func newShellCmd(a *app) *cobra.Command { return newShellCmdWith(a, osGuardDeps()) }

func newShellCmdWith(a *app, deps guardDeps) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shell [OPTION...] -c COMMAND_STRING [NAME [ARG...]]",
		Short: "A guarded shell: decide each -c command string, then run it with the real shell",
		Long: `Shell is a stand-in for sh and bash that agents can be given as $SHELL. It takes the
options agents pass to their shell (-c, -lc, -ic, -ec, -e -c, -l, --login, -i, the set
options such as -e, -u, -x, -o pipefail, and --noprofile, --norc, --posix), decides the
command string as one shell call, as a hook would, records the decision, and then
replaces itself with the real shell, given exactly the same arguments: what runs, and
how, is what the real shell does.

Installed as a link named moat-shell to the moat binary, it is the same command, so

  moat shell --install-link ~/.local/bin   # or: ln -s "$(command -v moat)" ~/.local/bin/moat-shell
  SHELL="$(command -v moat-shell)" some-agent

guards every command the agent starts through $SHELL -c.

When the policy says deny, or ask and the user does not approve on the terminal
(/dev/tty; no terminal is a no), nothing runs: the reason goes to standard error and the
exit status is 126. Arguments after the command string become $0, $1… of the command, and
are decided as such.

Only command strings are run. Without -c (an interactive shell, commands on standard
input, -s, a script file) there is no command moat can decide before it runs, so moat
shell refuses with status 2; so it does for options it does not know, which might change
what the command string means. Files the real shell reads itself at start-up (profiles
for -l, ~/.bashrc for -i, $BASH_ENV) are not checked.

The real shell is $MOAT_REAL_SHELL, else /bin/bash, else /bin/sh; never $SHELL, which is
moat-shell. A real shell that is moat itself (a link to it, or a copy that starts again
with the same arguments) is skipped for the next one, so moat never starts itself in a
loop; commands that the real shell runs through $SHELL are guarded again.

The agent recorded, and seen by the policy's agent conditions, is $MOAT_AGENT (an agent
moat knows, such as aider or openclaw); without it the call has no agent. The policy is
$MOAT_POLICY or the one found from the working directory. Decisions are recorded with the
event "shell" and tool "shell".

Exit status: the real shell's once the command runs; 126 when it did not run (denied,
not approved, or moat could not decide); 2 when moat shell cannot take the invocation.`,
		Example: `  moat shell --install-link ~/.local/bin      # makes ~/.local/bin/moat-shell
  moat shell -c 'go test ./...'
  moat-shell -lc 'make build'
  SHELL="$(command -v moat-shell)" MOAT_AGENT=aider aider`,
		// The options are the shell's, not moat's: sh -c 'STRING' cannot go through cobra.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && args[0] == "--help":
				return cmd.Help()
			case len(args) == 2 && args[0] == "--install-link":
				return a.installShellLink(args[1])
			case len(args) == 1 && args[0] == "--version":
				// Tools ask $SHELL --version which shell it is; that runs no command.
				sh, marker, err := a.realShell(args)
				if err != nil {
					return &exitCode{code: exitGuardRefused, err: err}
				}
				return a.execArgv(deps, []string{sh, "--version"}, []string{envShellExec + "=" + marker})
			}
			sa, err := parseShellArgs(args)
			if err != nil {
				return &exitCode{code: exitUsage, err: err}
			}
			agent, err := guardAgent("", a.env.Getenv)
			if err != nil {
				return &exitCode{code: exitUsage, err: err}
			}
			line := sa.command
			if len(sa.params) > 0 {
				// Decide the string with its positional parameters bound, as the analyser
				// reads sh -c: `rm -rf "$1"` with $1 set to ~ is a delete of ~.
				if line, err = quoteArgv(append([]string{"sh", "-c", sa.command}, sa.params...)); err != nil {
					return &exitCode{code: exitGuardRefused, err: err}
				}
			}
			o := guardOptions{agent: agent, event: eventShell, deps: deps}
			if !a.guard(cmd.Context(), o, line) {
				return &exitCode{code: exitGuardRefused}
			}
			sh, marker, err := a.realShell(args)
			if err != nil {
				return &exitCode{code: exitGuardRefused, err: err}
			}
			return a.execArgv(deps, append([]string{sh}, args...), []string{envShellExec + "=" + marker})
		},
	}
	// Only --help: -h is the shell's hashall option.
	cmd.Flags().Bool("help", false, "show this help")
	return cmd
}

// shellArgs is a shell's command line, as far as moat needs it.
type shellArgs struct {
	command string   // the -c command string
	params  []string // $0 and the positional parameters after it
}

// Options of sh and bash that moat shell accepts. Each one changes how the command string
// runs (tracing, errexit, login profiles), never which commands it runs: -k (every NAME=value
// word becomes an environment assignment) and the expand_aliases shopt are left out, since
// under them the words moat decides would not mean what they say.
const (
	shellSetOptions    = "abefhmnptuvxBCEHPT" // set options: -x or +x
	shellInvokeOptions = "ilrc"               // only with -: interactive, login, restricted, command
)

// shellLongOption reports whether moat shell accepts the long option.
func shellLongOption(o string) bool {
	switch o {
	case "--login", "--noprofile", "--norc", "--posix", "--noediting", "--restricted", "--verbose":
		return true
	}
	return false
}

// shellNamedOption reports whether moat shell accepts the option name given to -o (set
// -o) or, with shopt, to -O.
func shellNamedOption(name string, shopt bool) bool {
	if shopt {
		switch name {
		case "extglob", "globstar", "nullglob", "dotglob", "failglob", "nocaseglob", "nocasematch",
			"lastpipe", "inherit_errexit", "globasciiranges", "xpg_echo", "checkwinsize":
			return true
		}
		return false
	}
	switch name {
	case "allexport", "braceexpand", "emacs", "errexit", "errtrace", "functrace", "hashall",
		"histexpand", "history", "ignoreeof", "interactive-comments", "monitor", "noclobber",
		"noexec", "noglob", "nolog", "notify", "nounset", "onecmd", "physical", "pipefail",
		"posix", "privileged", "verbose", "vi", "xtrace":
		return true
	}
	return false
}

// parseShellArgs reads the options and command string of a sh/bash command line. Anything
// it does not know is an error, never a guess: a misread option would make moat decide
// one string and the shell run another.
func parseShellArgs(args []string) (shellArgs, error) {
	cflag := false
	i := 0
options:
	for i < len(args) {
		arg := args[i]
		switch {
		case arg == "--" || arg == "-":
			i++
			break options
		case strings.HasPrefix(arg, "--"):
			if !shellLongOption(arg) {
				return shellArgs{}, fmt.Errorf("option %s is not one moat shell takes", arg)
			}
			i++
		case len(arg) > 1 && (arg[0] == '-' || arg[0] == '+'):
			i++
			for _, o := range arg[1:] {
				switch {
				case o == 'o' || o == 'O':
					if i >= len(args) {
						return shellArgs{}, fmt.Errorf("-%c needs an option name", o)
					}
					if !shellNamedOption(args[i], o == 'O') {
						return shellArgs{}, fmt.Errorf("option %c%c %s is not one moat shell takes", arg[0], o, args[i])
					}
					i++
				case o == 's':
					return shellArgs{}, errors.New("-s reads commands from standard input, which moat cannot decide before they run; pass them with -c")
				case strings.ContainsRune(shellInvokeOptions, o) && arg[0] == '-':
					cflag = cflag || o == 'c'
				case strings.ContainsRune(shellSetOptions, o):
				default:
					return shellArgs{}, fmt.Errorf("option %c%c in %q is not one moat shell takes", arg[0], o, arg)
				}
			}
		default:
			break options
		}
	}
	if !cflag {
		if i < len(args) {
			return shellArgs{}, fmt.Errorf("moat shell runs command strings (-c 'COMMAND'), not script files such as %q: a script cannot be decided before it runs; run `moat shell -c 'sh %s'` or check the script and run it yourself", args[i], args[i])
		}
		return shellArgs{}, errors.New("moat shell runs command strings (-c 'COMMAND') only: an interactive shell, or commands read from standard input, cannot be decided before they run; start your real shell for interactive use")
	}
	if i >= len(args) {
		return shellArgs{}, errors.New("-c needs a command string")
	}
	return shellArgs{command: args[i], params: args[i+1:]}, nil
}

// realShell picks the shell that runs an allowed command string: $MOAT_REAL_SHELL, else
// /bin/bash, else /bin/sh, skipping any that is this moat binary. args are moat shell's
// arguments; marker is the value of MOAT_SHELL_EXEC for the chosen shell.
func (a *app) realShell(args []string) (path, marker string, err error) {
	self, err := a.env.Executable()
	if err != nil {
		return "", "", fmt.Errorf("finding the moat binary, to keep from running it as the real shell: %w", err)
	}
	selfInfo, err := os.Stat(self)
	if err != nil {
		return "", "", fmt.Errorf("finding the moat binary, to keep from running it as the real shell: %w", err)
	}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	hash := hex.EncodeToString(sum[:8])
	pid := strconv.Itoa(os.Getpid())

	var candidates []string
	if v := a.env.Getenv(envRealShell); v != "" {
		candidates = append(candidates, v)
	}
	candidates = append(candidates, "/bin/bash", "/bin/sh")

	start := 0
	// A marker with this process's id and these arguments means this process is the
	// real shell the previous moat-shell started with exec: that shell is moat, so go on
	// to the next one.
	if m := strings.Split(a.env.Getenv(envShellExec), ":"); len(m) == 3 && m[0] == pid && m[1] == hash {
		if n, err := strconv.Atoi(m[2]); err == nil && n >= 0 {
			start = n + 1
		}
	}
	if start > 0 && start <= len(candidates) {
		fmt.Fprintf(a.env.Stderr, "moat: warning: the real shell %s started moat again with the same command; using the next shell\n", candidates[start-1])
	}
	for i := start; i < len(candidates); i++ {
		c := candidates[i]
		p, err := exec.LookPath(c)
		if err != nil {
			if i == 0 && c == a.env.Getenv(envRealShell) {
				fmt.Fprintf(a.env.Stderr, "moat: warning: %s=%s: %v; using the next shell\n", envRealShell, c, err)
			}
			continue
		}
		if !filepath.IsAbs(p) {
			if p, err = filepath.Abs(p); err != nil {
				continue
			}
		}
		info, err := os.Stat(p)
		if err != nil {
			continue
		}
		if os.SameFile(info, selfInfo) {
			fmt.Fprintf(a.env.Stderr, "moat: warning: the real shell %s is moat itself; using the next shell\n", c)
			continue
		}
		return p, pid + ":" + hash + ":" + strconv.Itoa(i), nil
	}
	return "", "", fmt.Errorf("no real shell to run the command with: set %s to a shell that is not moat", envRealShell)
}

// installShellLink makes DIR/moat-shell a link to this moat binary. An existing file of
// that name is left alone unless it already is such a link.
func (a *app) installShellLink(dir string) error {
	exe, err := a.env.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return &exitCode{code: exitError, err: fmt.Errorf("finding the moat binary: %w", err)}
	}
	link := filepath.Join(dir, ShellName)
	if info, err := os.Stat(link); err == nil {
		self, serr := os.Stat(exe)
		if serr == nil && os.SameFile(info, self) {
			fmt.Fprintf(a.env.Stdout, "%s is already moat\n", link)
			return nil
		}
		return &exitCode{code: exitError, err: fmt.Errorf("%s exists and is not moat; remove it first", link)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &exitCode{code: exitError, err: err}
	}
	if err := os.Symlink(exe, link); err != nil {
		return &exitCode{code: exitError, err: err}
	}
	fmt.Fprintf(a.env.Stdout, "%s -> %s\n", link, exe)
	return nil
}
