package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/doctor"
	"github.com/moatdev/moat/internal/userservice"
)

// managerWait bounds one command of the service manager (systemctl, launchctl), and
// doctorDaemonWait how long doctor waits for the daemon's status.
const (
	managerWait      = 30 * time.Second
	doctorDaemonWait = 2 * time.Second
)

// serviceOptions are the flags of daemon install and uninstall, and what the tests set
// instead of the running system.
type serviceOptions struct {
	tcp                  string
	sinks                daemonSinkOptions
	force, print, asJSON bool
	// goos picks the service manager (runtime.GOOS); uid names the launchd domain.
	goos string
	uid  int
}

// serviceReport is what install and uninstall did, as --json prints it.
type serviceReport struct {
	Manager userservice.Manager `json:"manager"`
	// Name is the systemd unit or the launchd label.
	Name string `json:"name"`
	Path string `json:"path"`
	// File is what became of the file: written, replaced, unchanged, differs (install
	// without --force), removed, or absent (uninstall with nothing installed).
	File string `json:"file"`
	// Ran lists the service manager's commands that were run, in order.
	Ran []string `json:"ran"`
	// Active: the service manager runs the service and starts it at login (install), or
	// no longer does (uninstall).
	Active bool `json:"active"`
	// Next is what is left for the user to do, when something is.
	Next string `json:"next,omitempty"`
	// Diff is how the installed file differs from the one install would write.
	Diff string `json:"diff,omitempty"`
}

func newDaemonInstallCmd(a *app) *cobra.Command {
	o := serviceOptions{goos: runtime.GOOS, uid: os.Getuid()}
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Install the daemon as a service of yours, started at login and again after a failure",
		Long: `Install writes a service that runs this moat's 'daemon run' and has the service
manager start it: on Linux a systemd user unit ($XDG_CONFIG_HOME/systemd/user/moat.service,
then 'systemctl --user enable --now'), on macOS a launchd agent
(~/Library/LaunchAgents/dev.moat.daemon.plist, loaded with 'launchctl bootstrap'; its
output goes to daemon.log in moat's state directory). The service runs with this shell's
HOME, MOAT_POLICY, XDG_CONFIG_HOME, XDG_STATE_HOME, TMPDIR (empty when unset) and
XDG_RUNTIME_DIR, so that it finds the policy and socket this moat finds, whatever the
service manager's own environment says.

Installing the same service again changes nothing; a service file with other content
(another moat, other flags) is replaced only with --force. Where the service manager
cannot be reached (no user bus in a container), the file is written and moat says how to
start it.

Exit status: 0 when the service is installed and running (or with --print), 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.daemonInstall(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.tcp, "tcp", "", "have the daemon also listen on this loopback address (127.0.0.1:PORT)")
	f.BoolVar(&o.force, "force", false, "replace a service file that has other content")
	f.BoolVar(&o.print, "print", false, "print the service file and change nothing")
	f.BoolVar(&o.asJSON, "json", false, "print what was done as JSON")
	o.sinks.flags(cmd)
	return cmd
}

func newDaemonUninstallCmd(a *app) *cobra.Command {
	o := serviceOptions{goos: runtime.GOOS, uid: os.Getuid()}
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and remove the daemon's service",
		Long: `Uninstall has the service manager stop the daemon's service and no longer start it,
then removes the file 'moat daemon install' wrote. Nothing installed is not an error.

Exit status: 0 when no service file is left, 1 otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.daemonUninstall(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print what was done as JSON")
	return cmd
}

// serviceUnit renders the daemon's service for this user and this moat.
func (a *app) serviceUnit(o serviceOptions) (userservice.Unit, error) {
	d, err := a.dirs()
	if err != nil {
		return userservice.Unit{}, err
	}
	exe, err := a.serviceExecutable()
	if err != nil {
		return userservice.Unit{}, err
	}
	args := []string{"daemon", "run"}
	if o.tcp != "" {
		// Checked now, so that a service is never installed that fails at every start.
		if err := checkLoopback(o.tcp); err != nil {
			return userservice.Unit{}, err
		}
		args = append(args, "--tcp", o.tcp)
	}
	if err := o.sinks.check(); err != nil {
		return userservice.Unit{}, err
	}
	args = append(args, o.sinks.args()...)
	env, err := a.serviceEnv()
	if err != nil {
		return userservice.Unit{}, err
	}
	u, err := userservice.For(o.goos, d, userservice.Spec{
		Executable: exe, Args: args, Env: env, Log: filepath.Join(d.State, "daemon.log"),
	})
	if errors.Is(err, userservice.ErrUnsupported) {
		return u, fmt.Errorf("%w: run `moat daemon start` when you log in instead", err)
	}
	return u, err
}

// serviceExecutable is the moat binary a service runs: this one, the file itself, since
// a link may later point elsewhere.
func (a *app) serviceExecutable() (string, error) {
	exe, err := a.env.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		return "", fmt.Errorf("finding moat's binary: %w", err)
	}
	return exe, nil
}

// doctorDaemon finds the user's daemon and its service, for doctor.
func (a *app) doctorDaemon(ctx context.Context, goos string) doctor.DaemonInfo {
	var info doctor.DaemonInfo
	ctx, cancel := context.WithTimeout(ctx, doctorDaemonWait)
	defer cancel()
	st, paths, err := a.daemonStatus(ctx)
	switch {
	case err == nil:
		info.Running, info.PID, info.Socket = true, st.PID, st.Socket
		info.Uptime = time.Duration(st.Uptime * float64(time.Second))
		info.Policies, info.Decisions = st.Policies, st.Decisions
		for _, p := range st.Problems {
			info.PolicyProblems = append(info.PolicyProblems, fmt.Sprintf("%s (still deciding for %s: %s)", p.Error, p.Scope.Cwd, p.InForce))
		}
	case paths.Socket == "":
		// No directory yet is no daemon yet; one that exists and is refused is news.
		if !errors.Is(err, fs.ErrNotExist) {
			info.Err = err
		}
	default:
		// A socket that refuses connections was left by a daemon that ended; one that
		// accepts them but does not answer belongs to a daemon that is busy or stuck.
		if fi, lerr := os.Lstat(paths.Socket); lerr == nil && fi.Mode().Type() == fs.ModeSocket {
			if conn, derr := net.DialTimeout("unix", paths.Socket, doctorDaemonWait); derr == nil {
				conn.Close()
				info.Unresponsive = paths.Socket
			} else {
				info.StaleSocket = paths.Socket
			}
		}
	}
	u, err := a.serviceUnit(serviceOptions{goos: goos})
	if err != nil {
		return info // no service on this system, or no binary to compare with
	}
	info.Service, info.Manager = u.Path, string(u.Manager)
	if installed, err := os.ReadFile(u.Path); err == nil {
		info.Installed = true
		exe, _ := a.serviceExecutable()
		info.RunsThis = userservice.RunsProgram(u.Manager, installed, exe)
	}
	return info
}

// serviceEnv is the service's environment. The service manager's own is not the user's
// shell's, and whoever writes ~/.config/environment.d or runs `systemctl --user
// set-environment` or `launchctl setenv` changes it: so HOME and every variable that
// chooses moat's policy, its directories or $temp are pinned to their values here, empty
// when unset (moat reads an empty variable as unset), paths made absolute as the daemon
// does not run in this directory. XDG_RUNTIME_DIR only locates the socket, and the
// manager's is the login sessions' own: it is passed only when set here.
func (a *app) serviceEnv() ([]string, error) {
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	env := []string{"HOME=" + d.Home}
	for _, k := range []string{"MOAT_POLICY", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "TMPDIR"} {
		v := a.env.Getenv(k)
		switch {
		case v == "" || filepath.IsAbs(v):
		case k == "MOAT_POLICY":
			cwd, err := a.cwd()
			if err != nil {
				return nil, err
			}
			v = filepath.Join(cwd, v)
		default:
			v = "" // moat ignores a relative XDG directory or TMPDIR, as the specification says
		}
		if v == "" && k == "XDG_RUNTIME_DIR" {
			continue
		}
		env = append(env, k+"="+v)
	}
	return env, nil
}

// checkLoopback checks that addr, the value of --tcp, is HOST:PORT with a loopback host:
// the daemon's TCP listener is for this machine only.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--tcp %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--tcp %q: only a loopback address (127.0.0.1, ::1) is allowed", addr)
	}
	return nil
}

func (a *app) daemonInstall(ctx context.Context, o serviceOptions) error {
	u, err := a.serviceUnit(o)
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	if o.print {
		_, err := a.env.Stdout.Write(u.Content)
		return err
	}
	r := serviceReport{Manager: u.Manager, Name: u.Name, Path: u.Path}
	old, err := os.ReadFile(u.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.File = "written"
	case err != nil:
		return &exitCode{code: exitError, err: fmt.Errorf("reading the installed service: %w", err)}
	case bytes.Equal(old, u.Content):
		r.File = "unchanged"
	case !o.force:
		r.File = "differs"
		r.Diff = fileDiff(u.Path+" (installed)", string(old), u.Path+" (this moat's)", string(u.Content))
		r.Next = "moat daemon install --force"
		return a.serviceDone(o, r, fmt.Errorf("%s exists with other content; replace it with `moat daemon install --force`:\n%s", u.Path, r.Diff))
	default:
		r.File = "replaced"
	}
	if r.File != "unchanged" {
		if err := a.writeService(u); err != nil {
			return &exitCode{code: exitError, err: err}
		}
	}
	var startErr error
	switch u.Manager {
	case userservice.Systemd:
		startErr = a.systemdInstall(ctx, u, &r)
	case userservice.Launchd:
		startErr = a.launchdInstall(ctx, o, u, &r)
	}
	return a.serviceDone(o, r, startErr)
}

// writeService writes the unit, with the directories the service manager and the
// service need.
func (a *app) writeService(u userservice.Unit) error {
	// Unit directories are the service manager's to read: 0755, as systemd makes them.
	if err := os.MkdirAll(filepath.Dir(u.Path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(u.Path), err)
	}
	if u.Manager == userservice.Launchd {
		// launchd opens the log, in moat's state directory, before the daemon runs.
		d, err := a.dirs()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(d.State, 0o700); err != nil {
			return fmt.Errorf("creating moat's state directory: %w", err)
		}
	}
	// systemd reads user units as the user, but refuses nothing readable: 0644 as it
	// writes its own.
	if err := atomicfile.WriteFile(u.Path, u.Content, 0o644); err != nil {
		return fmt.Errorf("writing the service: %w", err)
	}
	return nil
}

// errNoManager says that the user's service manager could not be reached.
var errNoManager = errors.New("the service manager could not be reached")

func (a *app) systemdInstall(ctx context.Context, u userservice.Unit, r *serviceReport) error {
	next := "systemctl --user daemon-reload && systemctl --user enable --now " + u.Name + "   # or, for this session only: moat daemon start"
	if _, err := a.manager(ctx, r, "systemctl", "--user", "daemon-reload"); err != nil {
		r.Next = next
		return fmt.Errorf("%s is installed, but %w (%v); start it with:\n  %s", u.Path, errNoManager, err, next)
	}
	if _, _, err := a.daemonStatus(ctx); err == nil && r.File == "written" {
		// A daemon started by hand holds the runtime directory: the service would fail
		// to take it, and systemd give up on it after a few restarts.
		if _, err := a.manager(ctx, r, "systemctl", "--user", "enable", u.Name); err != nil {
			r.Next = "systemctl --user status " + u.Name
			return fmt.Errorf("%s is installed, but enabling it failed: %w", u.Path, err)
		}
		r.Next = "moat daemon stop && systemctl --user start " + u.Name
		a.warn("a daemon started outside the service runs now: the service starts at the next login, or now with `" + r.Next + "`")
		return nil
	}
	if _, err := a.manager(ctx, r, "systemctl", "--user", "enable", "--now", u.Name); err != nil {
		r.Next = "systemctl --user status " + u.Name
		return fmt.Errorf("%s is installed, but enabling it failed: %w", u.Path, err)
	}
	if r.File == "replaced" {
		// enable --now leaves a running service as it is, with the old command line.
		if _, err := a.manager(ctx, r, "systemctl", "--user", "restart", u.Name); err != nil {
			r.Next = "systemctl --user status " + u.Name
			return fmt.Errorf("%s is replaced, but restarting it failed: %w", u.Path, err)
		}
	}
	r.Active = true
	return nil
}

func (a *app) launchdInstall(ctx context.Context, o serviceOptions, u userservice.Unit, r *serviceReport) error {
	domain := "gui/" + strconv.Itoa(o.uid)
	next := "launchctl bootstrap " + domain + " " + shellWord(u.Path) + "   # or, for this session only: moat daemon start"
	if _, err := a.lookPath("launchctl"); err != nil {
		r.Next = next
		return fmt.Errorf("%s is installed, but %w (%v); start it with:\n  %s", u.Path, errNoManager, err, next)
	}
	target := domain + "/" + u.Name
	if r.File == "unchanged" {
		if _, err := a.manager(ctx, r, "launchctl", "print", target); err == nil {
			r.Active = true
			return nil
		}
	} else {
		// A loaded agent keeps its old definition until it is booted out; none loaded
		// is not an error.
		a.manager(ctx, r, "launchctl", "bootout", target)
	}
	_, err := a.manager(ctx, r, "launchctl", "bootstrap", domain, u.Path)
	if err != nil {
		// launchctl before macOS 10.10 knows only load.
		if _, lerr := a.manager(ctx, r, "launchctl", "load", "-w", u.Path); lerr != nil {
			r.Next = next
			return fmt.Errorf("%s is installed, but %w (%v; %v); start it with:\n  %s", u.Path, errNoManager, err, lerr, next)
		}
	}
	r.Active = true
	return nil
}

func (a *app) daemonUninstall(ctx context.Context, o serviceOptions) error {
	d, err := a.dirs()
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	var r serviceReport
	switch o.goos {
	case "linux":
		r = serviceReport{Manager: userservice.Systemd, Name: userservice.SystemdUnit, Path: userservice.SystemdPath(d)}
	case "darwin":
		r = serviceReport{Manager: userservice.Launchd, Name: userservice.LaunchdLabel, Path: userservice.LaunchdPath(d)}
	default:
		return &exitCode{code: exitError, err: fmt.Errorf("%s: %w", o.goos, userservice.ErrUnsupported)}
	}
	if _, err := os.Lstat(r.Path); errors.Is(err, fs.ErrNotExist) {
		r.File = "absent"
		return a.serviceDone(o, r, nil)
	}
	var stopErr error
	switch r.Manager {
	case userservice.Systemd:
		_, stopErr = a.manager(ctx, &r, "systemctl", "--user", "disable", "--now", r.Name)
	case userservice.Launchd:
		target := "gui/" + strconv.Itoa(o.uid) + "/" + r.Name
		if _, stopErr = a.manager(ctx, &r, "launchctl", "bootout", target); stopErr != nil {
			if _, lerr := a.manager(ctx, &r, "launchctl", "unload", "-w", r.Path); lerr == nil {
				stopErr = nil
			}
		}
	}
	if err := os.Remove(r.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return a.serviceDone(o, r, fmt.Errorf("removing the service: %w", err))
	}
	r.File = "removed"
	if r.Manager == userservice.Systemd && stopErr == nil {
		a.manager(ctx, &r, "systemctl", "--user", "daemon-reload")
	}
	if stopErr != nil {
		// The file is gone, so the service does not start at the next login; a daemon
		// it started may still run.
		r.Next = "moat daemon stop"
		a.warn(fmt.Sprintf("the service manager could not stop the service (%v): a daemon it started may still run until `moat daemon stop`", stopErr))
		return a.serviceDone(o, r, nil)
	}
	r.Active = true
	return a.serviceDone(o, r, nil)
}

// manager runs one command of the user's service manager, found on moat's PATH, and
// notes it in r. The error carries what the command printed.
func (a *app) manager(ctx context.Context, r *serviceReport, name string, args ...string) (string, error) {
	path, err := a.lookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH", name)
	}
	r.Ran = append(r.Ran, strings.Join(append([]string{name}, args...), " "))
	ctx, cancel := context.WithTimeout(ctx, managerWait)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return out.String(), fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), oneLineText(msg))
		}
		return out.String(), fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return out.String(), nil
}

// serviceDone prints what install or uninstall did and turns err into the exit status.
func (a *app) serviceDone(o serviceOptions, r serviceReport, err error) error {
	if r.Ran == nil {
		r.Ran = []string{}
	}
	if o.asJSON {
		if werr := writeJSON(a.env.Stdout, r); werr != nil {
			return werr
		}
		if err != nil {
			return &exitCode{code: exitError, err: err}
		}
		return nil
	}
	w := a.env.Stdout
	switch r.File {
	case "written", "replaced":
		fmt.Fprintf(w, "moat daemon: %s %s\n", r.File, r.Path)
	case "unchanged":
		fmt.Fprintf(w, "moat daemon: %s is installed already\n", r.Path)
	case "absent":
		fmt.Fprintf(w, "moat daemon: no service installed (%s does not exist); nothing to do\n", r.Path)
	}
	for _, c := range r.Ran {
		fmt.Fprintf(w, "moat daemon: ran %s\n", c)
	}
	if r.File == "removed" {
		fmt.Fprintf(w, "moat daemon: removed %s\n", r.Path)
	}
	if err != nil {
		return &exitCode{code: exitError, err: err}
	}
	switch {
	case r.File == "removed":
		fmt.Fprintln(w, "moat daemon: uninstalled")
	case r.Active && r.Manager == userservice.Systemd:
		fmt.Fprintf(w, "moat daemon: installed; it runs now and at every login (systemctl --user status %s)\n", r.Name)
	case r.Active:
		fmt.Fprintf(w, "moat daemon: installed; it runs now and at every login (launchctl print gui/%d/%s)\n", o.uid, r.Name)
	}
	return nil
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// shellWord quotes s for a POSIX shell when it needs it, so that a printed command can
// be pasted.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
