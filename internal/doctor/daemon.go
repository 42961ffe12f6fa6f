package doctor

import (
	"fmt"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/userservice"
)

// DaemonInfo is what doctor learns of the user's daemon and of its service.
type DaemonInfo struct {
	// Err says why the daemon's runtime directory cannot be used (it is another
	// user's, a link, or has another mode); nil when it is fine or absent.
	Err error
	// Running: a daemon answered on the socket, with these figures.
	Running   bool
	PID       int
	Socket    string
	Uptime    time.Duration
	Policies  int
	Decisions uint64
	// PolicyProblems are the policy edits the running daemon could not use, each with
	// the policy it kept in force, one line each.
	PolicyProblems []string
	// StaleSocket is a socket where nothing listens, left by a daemon that ended.
	StaleSocket string
	// Unresponsive is a socket where a process accepts connections but does not
	// answer the status request: a daemon that is stuck, or something else.
	Unresponsive string
	// Service is the service file `moat daemon install` writes on this system, ""
	// where it installs none; Installed says it exists, and RunsThis that it runs
	// this moat (another binary is a moat left from an upgrade, or another build).
	Service   string
	Installed bool
	RunsThis  bool
	// Manager names the service manager: "systemd" or "launchd".
	Manager string
}

// checkDaemon reports the daemon, which is optional: not running is fine, since every
// entry point decides in its own process without it.
func checkDaemon(in Inputs) []Finding {
	if in.Daemon == nil {
		return nil
	}
	info := in.Daemon()
	f := Finding{ID: "daemon", Status: OK}
	switch {
	case info.Err != nil:
		f.Status = Warn
		f.Message = fmt.Sprintf("the daemon cannot use its runtime directory, so nothing uses a daemon (every entry point decides in its own process): %v", oneLine(info.Err.Error()))
		f.Fix = "remove the directory named above if it is not yours, or set XDG_RUNTIME_DIR to a private directory of yours"
	case info.Unresponsive != "":
		f.Status = Warn
		f.Message = fmt.Sprintf("a process listens on %s but does not answer: the thin hook client and the other entry points wait for it before deciding in their own process", info.Unresponsive)
		f.Fix = fmt.Sprintf("stop the process that holds the socket (fuser -v %s shows it), then `moat daemon start`", shellQuote(info.Unresponsive))
	case info.Running:
		f.Message = fmt.Sprintf("running: pid %d on %s, up %s, %d %s compiled, %d %s decided",
			info.PID, info.Socket, info.Uptime.Round(time.Second), info.Policies, plural(info.Policies, "policy", "policies"),
			info.Decisions, map[bool]string{true: "call", false: "calls"}[info.Decisions == 1])
	case info.StaleSocket != "":
		f.Message = fmt.Sprintf("not running (optional: every entry point decides in its own process without it); %s was left by a daemon that ended, and the next one replaces it", info.StaleSocket)
	default:
		f.Message = "not running (optional: every entry point decides in its own process without it; `moat daemon start` runs it, `moat daemon install` at every login)"
	}
	out := []Finding{f}
	if info.Running && len(info.PolicyProblems) > 0 {
		out = append(out, Finding{
			ID: "daemon.policy", Status: Warn,
			Message: fmt.Sprintf("the daemon could not use %d policy %s and keeps deciding with the last good one: %s",
				len(info.PolicyProblems), plural(len(info.PolicyProblems), "edit", "edits"), strings.Join(info.PolicyProblems, "; ")),
			Fix: "fix the file named (moat validate FILE shows the error with its line); the daemon picks up the next good edit by itself",
		})
	}
	if info.Service == "" {
		return out
	}
	s := Finding{ID: "daemon.service", Status: OK}
	switch {
	case !info.Installed:
		s.Message = fmt.Sprintf("not installed as a service (%s); `moat daemon install` starts the daemon at every login", info.Service)
	case !info.RunsThis:
		s.Status = Warn
		s.Message = fmt.Sprintf("the service %s runs another moat than this one (%s): a copy, another build, or one left by an upgrade", info.Service, in.Executable)
		s.Fix = "moat daemon install --force"
	case !info.Running && info.Err == nil:
		s.Status = Warn
		s.Message = fmt.Sprintf("installed as a service (%s), but no daemon answers", info.Service)
		s.Fix = serviceFix(info.Manager)
	default:
		s.Message = fmt.Sprintf("installed as a %s service (%s), running this moat", info.Manager, info.Service)
	}
	return append(out, s)
}

// serviceFix is the command that shows why a service does not run, and starts it.
func serviceFix(manager string) string {
	if manager == string(userservice.Launchd) {
		return "launchctl kickstart gui/$(id -u)/" + userservice.LaunchdLabel + "; its output is in daemon.log in moat's state directory"
	}
	return "systemctl --user restart " + userservice.SystemdUnit + "; journalctl --user -u " + userservice.SystemdUnit
}
