package doctor

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCheckDaemon(t *testing.T) {
	const unit = "/home/u/.config/systemd/user/moat.service"
	running := DaemonInfo{Running: true, PID: 42, Socket: "/run/user/1/moat/daemon.sock", Uptime: 90 * time.Second, Policies: 2, Decisions: 1, Manager: "systemd", Service: unit}
	tests := []struct {
		name    string
		info    DaemonInfo
		want    []Status // daemon, daemon.policy when it has problems, daemon.service when there is one
		message []string // in the findings' messages or fixes, in order
	}{
		{"not running, not installed", DaemonInfo{Service: unit, Manager: "systemd"}, []Status{OK, OK}, []string{"not running (optional", "not installed as a service"}},
		{"running", running, []Status{OK, OK}, []string{"pid 42", "up 1m30s, 2 policies compiled, 1 call decided", "not installed"}},
		{"stale socket", DaemonInfo{StaleSocket: "/run/user/1/moat/daemon.sock"}, []Status{OK}, []string{"left by a daemon that ended"}},
		{"unresponsive", DaemonInfo{Unresponsive: "/run/user/1/moat/daemon.sock"}, []Status{Warn}, []string{"listens on /run/user/1/moat/daemon.sock but does not answer", "fuser -v /run/user/1/moat/daemon.sock"}},
		{"unsafe runtime directory", DaemonInfo{Err: errors.New("runtime directory /run/user/1/moat belongs to uid 0")}, []Status{Warn}, []string{"belongs to uid 0", "XDG_RUNTIME_DIR"}},
		{"installed, running", func() DaemonInfo { i := running; i.Installed, i.RunsThis = true, true; return i }(), []Status{OK, OK}, []string{"pid 42", "installed as a systemd service"}},
		{"installed, not running", DaemonInfo{Service: unit, Manager: "systemd", Installed: true, RunsThis: true}, []Status{OK, Warn}, []string{"not running", "no daemon answers", "systemctl --user restart moat.service"}},
		{"installed by launchd, not running", DaemonInfo{Service: "/Users/u/Library/LaunchAgents/dev.moat.daemon.plist", Manager: "launchd", Installed: true, RunsThis: true}, []Status{OK, Warn}, []string{"no daemon answers", "launchctl kickstart gui/$(id -u)/dev.moat.daemon"}},
		{"running, a broken policy edit", func() DaemonInfo {
			i := running
			i.PolicyProblems = []string{"/p/moat.yaml:3:1: unknown key (still deciding for /p: /p/moat.yaml)"}
			return i
		}(), []Status{OK, Warn, OK}, []string{"pid 42", "could not use 1 policy edit", "/p/moat.yaml:3:1: unknown key", "moat validate FILE", "not installed"}},
		{"installed for another moat", func() DaemonInfo { i := running; i.Installed = true; return i }(), []Status{OK, Warn}, []string{"pid 42", "runs another moat than this one (/usr/bin/moat)", "moat daemon install --force"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkDaemon(Inputs{Executable: "/usr/bin/moat", Daemon: func() DaemonInfo { return tt.info }})
			if len(got) != len(tt.want) {
				t.Fatalf("%d findings, want %d: %+v", len(got), len(tt.want), got)
			}
			var text strings.Builder
			ids := []string{"daemon", "daemon.service"}
			if len(tt.info.PolicyProblems) > 0 {
				ids = []string{"daemon", "daemon.policy", "daemon.service"}
			}
			for i, f := range got {
				if id := ids[i]; f.ID != id || f.Status != tt.want[i] {
					t.Errorf("finding %d: %s %s, want %s %s: %s", i, f.ID, f.Status, id, tt.want[i], f.Message)
				}
				if f.Status != OK && f.Fix == "" {
					t.Errorf("%s is %s without a fix", f.ID, f.Status)
				}
				text.WriteString(f.Message + "\n" + f.Fix + "\n")
			}
			rest := text.String()
			for _, m := range tt.message {
				i := strings.Index(rest, m)
				if i < 0 {
					t.Errorf("no %q in order in:\n%s", m, text.String())
					continue
				}
				rest = rest[i+len(m):]
			}
		})
	}
	if got := checkDaemon(Inputs{}); got != nil {
		t.Errorf("without a Daemon input: %+v", got)
	}
}
