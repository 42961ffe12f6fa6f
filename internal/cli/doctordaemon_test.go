//go:build unix

package cli

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/userservice"
)

// doctor's daemon section, against a temporary home and runtime directory: nothing,
// a stale socket, a running daemon, and the service installed for this moat or
// another.
func TestDoctorDaemon(t *testing.T) {
	st := newServiceTest(t)
	st.manager("systemctl", "exit 0")
	ctx := context.Background()
	unit := filepath.Join(st.home, ".config", "systemd", "user", "moat.service")

	info := st.app.doctorDaemon(ctx, "linux")
	if info.Running || info.Err != nil || info.StaleSocket != "" || info.Installed || info.Service != unit || info.Manager != "systemd" {
		t.Errorf("nothing: %+v", info)
	}
	if info := st.app.doctorDaemon(ctx, "windows"); info.Service != "" {
		t.Errorf("a service on windows: %+v", info)
	}

	paths, err := st.app.daemonPaths(true)
	if err != nil {
		t.Fatal(err)
	}
	// A process that listens and never answers, then a socket that nothing listens on
	// any more.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: paths.Socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if info := st.app.doctorDaemon(ctx, "linux"); info.Running || info.Unresponsive != paths.Socket || info.StaleSocket != "" {
		t.Errorf("unresponsive: %+v", info)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if info := st.app.doctorDaemon(ctx, "linux"); info.Running || info.StaleSocket != paths.Socket || info.Err != nil {
		t.Errorf("stale socket: %+v", info)
	}

	st.serveDaemon(paths)
	info = st.app.doctorDaemon(ctx, "linux")
	if !info.Running || info.PID != os.Getpid() || info.Socket != paths.Socket || info.StaleSocket != "" {
		t.Errorf("running: %+v", info)
	}

	// Installed for this moat, then for another.
	if code := st.run(true, serviceOptions{}); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, st.stderr)
	}
	if info := st.app.doctorDaemon(ctx, "linux"); !info.Installed || !info.RunsThis {
		t.Errorf("installed: %+v", info)
	}
	d, err := st.app.dirs()
	if err != nil {
		t.Fatal(err)
	}
	other, err := userservice.For("linux", d, userservice.Spec{Executable: "/usr/local/bin/moat", Args: []string{"daemon", "run"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(unit, other.Content, 0o644); err != nil {
		t.Fatal(err)
	}
	if info := st.app.doctorDaemon(ctx, "linux"); !info.Installed || info.RunsThis {
		t.Errorf("installed for another moat: %+v", info)
	}

	// The whole doctor reports both, in its JSON.
	if err := st.app.doctor(ctx, true); err != nil && !strings.Contains(err.Error(), "exit status") {
		t.Fatal(err)
	}
	for _, want := range []string{`"id": "daemon"`, `running: pid`, `"id": "daemon.service"`, "runs another moat than this one"} {
		if !strings.Contains(st.stdout.String(), want) {
			t.Errorf("doctor --json lacks %q", want)
		}
	}
}

// shortRuntimeDir gives the user a runtime directory of its own, with a short path: a
// unix socket's is limited to about 100 bytes.
func (st *serviceTest) shortRuntimeDir() {
	st.t.Helper()
	dir, err := os.MkdirTemp("", "rt")
	if err != nil {
		st.t.Fatal(err)
	}
	st.t.Cleanup(func() { os.RemoveAll(dir) })
	st.env["XDG_RUNTIME_DIR"] = dir
}

// serveDaemon runs a daemon in this process on paths until the test ends.
func (st *serviceTest) serveDaemon(paths daemon.Paths) {
	st.t.Helper()
	sock, err := daemon.ListenUnix(paths)
	if err != nil {
		st.t.Fatal(err)
	}
	srv, err := daemon.New(daemon.Options{Service: st.app.local(nil)})
	if err != nil {
		st.t.Fatal(err)
	}
	go srv.Serve(sock)
	st.t.Cleanup(func() { srv.Shutdown(context.Background()) })
}

// A daemon started by hand runs: the new service is enabled for the next login, not
// started to fail on the daemon's lock.
func TestDaemonInstallBesideARunningDaemon(t *testing.T) {
	st := newServiceTest(t)
	st.manager("systemctl", "exit 0")
	paths, err := st.app.daemonPaths(true)
	if err != nil {
		t.Fatal(err)
	}
	st.serveDaemon(paths)
	if code := st.run(true, serviceOptions{}); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, st.stderr)
	}
	equalLines(t, "install ran", st.ran(), []string{"systemctl --user daemon-reload", "systemctl --user enable moat.service"})
	if !strings.Contains(st.stderr.String(), "moat daemon stop && systemctl --user start moat.service") {
		t.Errorf("stderr: %s", st.stderr)
	}
}
