//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/userservice"
)

// serviceTest is a user with a temporary home, a moat binary in it, and a PATH that
// holds only the fake service managers a test writes.
type serviceTest struct {
	t              *testing.T
	home, bin, exe string
	// calls is where the fake managers append their argv, one line per run.
	calls  string
	env    map[string]string
	stdout *syncBuffer
	stderr *syncBuffer
	app    *app
}

func newServiceTest(t *testing.T) *serviceTest {
	t.Helper()
	home := t.TempDir()
	st := &serviceTest{t: t, home: home, bin: filepath.Join(home, "fakebin"), exe: filepath.Join(home, "opt", "moat"), calls: filepath.Join(home, "calls")}
	for _, dir := range []string{st.bin, filepath.Dir(st.exe)} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(st.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// moat is run through a link, as from ~/.local/bin: the service names the file.
	link := filepath.Join(home, "moat-link")
	if err := os.Symlink(st.exe, link); err != nil {
		t.Fatal(err)
	}
	st.env = map[string]string{"HOME": home, "PATH": st.bin}
	// Never the user's daemon: a runtime directory of the test's own.
	st.shortRuntimeDir()
	st.stdout, st.stderr = new(syncBuffer), new(syncBuffer)
	st.app = &app{env: Env{
		Stdin: strings.NewReader(""), Stdout: st.stdout, Stderr: st.stderr,
		Getenv:     func(k string) string { return st.env[k] },
		Getwd:      func() (string, error) { return home, nil },
		Now:        func() time.Time { return logsNow },
		Executable: func() (string, error) { return link, nil },
	}}
	return st
}

// manager writes a fake service manager that records its argv and then runs body
// (shell), which may fail.
func (st *serviceTest) manager(name, body string) {
	st.t.Helper()
	script := fmt.Sprintf("#!/bin/sh\necho \"%s $*\" >> '%s'\n%s\n", name, st.calls, body)
	if err := os.WriteFile(filepath.Join(st.bin, name), []byte(script), 0o755); err != nil {
		st.t.Fatal(err)
	}
}

// ran returns the argv the fake managers recorded since the last call, and forgets them.
func (st *serviceTest) ran() []string {
	st.t.Helper()
	b, err := os.ReadFile(st.calls)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		st.t.Fatal(err)
	}
	os.Remove(st.calls)
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// run runs install or uninstall and returns its exit status as Main would, the error
// on stderr.
func (st *serviceTest) run(install bool, o serviceOptions) int {
	st.t.Helper()
	if o.goos == "" {
		o.goos = "linux"
	}
	o.uid = 501
	st.stdout.buf.Reset()
	st.stderr.buf.Reset()
	var err error
	if install {
		err = st.app.daemonInstall(context.Background(), o)
	} else {
		err = st.app.daemonUninstall(context.Background(), o)
	}
	if err == nil {
		return exitOK
	}
	var ec *exitCode
	if !errors.As(err, &ec) {
		st.t.Fatalf("error without an exit code: %v", err)
	}
	if ec.err != nil {
		fmt.Fprintf(st.stderr, "moat: %s\n", ec.err)
	}
	return ec.code
}

// want renders the unit install should write for this user.
func (st *serviceTest) want(goos string, spec userservice.Spec) userservice.Unit {
	st.t.Helper()
	d, err := st.app.dirs()
	if err != nil {
		st.t.Fatal(err)
	}
	if spec.Executable == "" {
		spec.Executable = st.exe
	}
	if spec.Args == nil {
		spec.Args = []string{"daemon", "run"}
	}
	if spec.Env == nil {
		if spec.Env, err = st.app.serviceEnv(); err != nil {
			st.t.Fatal(err)
		}
	}
	spec.Log = filepath.Join(d.State, "daemon.log")
	u, err := userservice.For(goos, d, spec)
	if err != nil {
		st.t.Fatal(err)
	}
	return u
}

func (st *serviceTest) content(path string) string {
	st.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		st.t.Fatal(err)
	}
	return string(b)
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestDaemonInstallSystemd(t *testing.T) {
	st := newServiceTest(t)
	st.manager("systemctl", "exit 0")
	u := st.want("linux", userservice.Spec{})
	if u.Path != filepath.Join(st.home, ".config", "systemd", "user", "moat.service") {
		t.Fatalf("unit path %s", u.Path)
	}

	if code := st.run(true, serviceOptions{}); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, st.stderr)
	}
	if got := st.content(u.Path); got != string(u.Content) {
		t.Errorf("unit:\n%s\nwant:\n%s", got, u.Content)
	}
	if !strings.Contains(string(u.Content), "ExecStart="+st.exe+" daemon run\n") {
		t.Errorf("the unit does not run the resolved binary:\n%s", u.Content)
	}
	if fi, err := os.Stat(u.Path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("unit mode: %v %v", fi.Mode(), err)
	}
	equalLines(t, "install ran", st.ran(), []string{"systemctl --user daemon-reload", "systemctl --user enable --now moat.service"})
	if !strings.Contains(st.stdout.String(), "installed; it runs now and at every login") {
		t.Errorf("stdout: %s", st.stdout)
	}

	// Again: the same unit is left as it is, and enabling it again is harmless.
	if code := st.run(true, serviceOptions{}); code != exitOK {
		t.Fatalf("second install: exit %d\n%s", code, st.stderr)
	}
	if !strings.Contains(st.stdout.String(), "is installed already") {
		t.Errorf("second install said: %s", st.stdout)
	}
	equalLines(t, "second install ran", st.ran(), []string{"systemctl --user daemon-reload", "systemctl --user enable --now moat.service"})

	// Another unit (another moat, another flag) is replaced only with --force.
	if code := st.run(true, serviceOptions{tcp: "127.0.0.1:7070"}); code != exitError {
		t.Fatalf("changed install without --force: exit %d", code)
	}
	if got := st.content(u.Path); got != string(u.Content) {
		t.Errorf("the unit was changed without --force:\n%s", got)
	}
	if !strings.Contains(st.stderr.String(), "--force") || !strings.Contains(st.stderr.String(), "+ExecStart="+st.exe+" daemon run --tcp 127.0.0.1:7070") {
		t.Errorf("no diff or no hint of --force:\n%s", st.stderr)
	}
	if r := st.ran(); r != nil {
		t.Errorf("the service manager was run for a refused install: %q", r)
	}
	if code := st.run(true, serviceOptions{tcp: "127.0.0.1:7070", force: true}); code != exitOK {
		t.Fatalf("install --force: exit %d\n%s", code, st.stderr)
	}
	tcp := st.want("linux", userservice.Spec{Args: []string{"daemon", "run", "--tcp", "127.0.0.1:7070"}})
	if got := st.content(u.Path); got != string(tcp.Content) {
		t.Errorf("unit after --force:\n%s", got)
	}
	equalLines(t, "install --force ran", st.ran(), []string{"systemctl --user daemon-reload", "systemctl --user enable --now moat.service", "systemctl --user restart moat.service"})

	// Uninstall stops and disables the service, removes the unit, and then has nothing
	// to do.
	if code := st.run(false, serviceOptions{}); code != exitOK {
		t.Fatalf("uninstall: exit %d\n%s", code, st.stderr)
	}
	if _, err := os.Lstat(u.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
	equalLines(t, "uninstall ran", st.ran(), []string{"systemctl --user disable --now moat.service", "systemctl --user daemon-reload"})
	if code := st.run(false, serviceOptions{}); code != exitOK {
		t.Fatalf("second uninstall: exit %d\n%s", code, st.stderr)
	}
	if !strings.Contains(st.stdout.String(), "no service installed") {
		t.Errorf("second uninstall said: %s", st.stdout)
	}
	if r := st.ran(); r != nil {
		t.Errorf("nothing installed, yet the service manager was run: %q", r)
	}
}

// Without a user bus (containers, CI) the unit is written, and the message says how to
// start it.
func TestDaemonInstallNoServiceManager(t *testing.T) {
	tests := []struct {
		name      string
		systemctl string // "": none on PATH
	}{
		{"no user bus", `echo "Failed to connect to bus: No medium found" >&2; exit 1`},
		{"no systemctl", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newServiceTest(t)
			if tt.systemctl != "" {
				st.manager("systemctl", tt.systemctl)
			}
			u := st.want("linux", userservice.Spec{})
			if code := st.run(true, serviceOptions{}); code != exitError {
				t.Fatalf("exit %d, want %d", code, exitError)
			}
			if got := st.content(u.Path); got != string(u.Content) {
				t.Errorf("unit not written:\n%s", got)
			}
			for _, want := range []string{"systemctl --user enable --now moat.service", "moat daemon start", "could not be reached"} {
				if !strings.Contains(st.stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, st.stderr)
				}
			}
			// Uninstall still removes the unit, and warns that a daemon may run on.
			if code := st.run(false, serviceOptions{}); code != exitOK {
				t.Fatalf("uninstall: exit %d\n%s", code, st.stderr)
			}
			if _, err := os.Lstat(u.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the unit is still there: %v", err)
			}
			if !strings.Contains(st.stderr.String(), "moat daemon stop") {
				t.Errorf("uninstall stderr: %s", st.stderr)
			}
		})
	}
}

func TestDaemonInstallLaunchd(t *testing.T) {
	st := newServiceTest(t)
	// print answers only for a loaded agent: the fake has none until bootstrap.
	loaded := filepath.Join(st.home, "loaded")
	st.manager("launchctl", fmt.Sprintf(`case "$1" in
print) test -e '%[1]s';;
bootstrap) touch '%[1]s';;
bootout) test -e '%[1]s' && rm '%[1]s';;
*) exit 1;;
esac`, loaded))
	u := st.want("darwin", userservice.Spec{})
	if u.Path != filepath.Join(st.home, "Library", "LaunchAgents", "dev.moat.daemon.plist") {
		t.Fatalf("plist path %s", u.Path)
	}
	if code := st.run(true, serviceOptions{goos: "darwin"}); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, st.stderr)
	}
	if got := st.content(u.Path); got != string(u.Content) {
		t.Errorf("plist:\n%s\nwant:\n%s", got, u.Content)
	}
	if fi, err := os.Stat(filepath.Join(st.home, ".local", "state", "moat")); err != nil || !fi.IsDir() {
		t.Errorf("the log's directory was not made: %v", err)
	}
	equalLines(t, "install ran", st.ran(), []string{"launchctl bootout gui/501/dev.moat.daemon", "launchctl bootstrap gui/501 " + u.Path})

	if code := st.run(true, serviceOptions{goos: "darwin"}); code != exitOK {
		t.Fatalf("second install: exit %d\n%s", code, st.stderr)
	}
	equalLines(t, "second install ran", st.ran(), []string{"launchctl print gui/501/dev.moat.daemon"})

	if code := st.run(false, serviceOptions{goos: "darwin"}); code != exitOK {
		t.Fatalf("uninstall: exit %d\n%s", code, st.stderr)
	}
	equalLines(t, "uninstall ran", st.ran(), []string{"launchctl bootout gui/501/dev.moat.daemon"})
	if _, err := os.Lstat(u.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the plist is still there: %v", err)
	}
}

// An old launchctl without bootstrap: the agent is loaded with load -w.
func TestDaemonInstallLaunchdLoadFallback(t *testing.T) {
	st := newServiceTest(t)
	st.manager("launchctl", `case "$1" in load) exit 0;; *) echo "Unrecognized subcommand: $1" >&2; exit 1;; esac`)
	u := st.want("darwin", userservice.Spec{})
	if code := st.run(true, serviceOptions{goos: "darwin"}); code != exitOK {
		t.Fatalf("install: exit %d\n%s", code, st.stderr)
	}
	equalLines(t, "install ran", st.ran(), []string{"launchctl bootout gui/501/dev.moat.daemon", "launchctl bootstrap gui/501 " + u.Path, "launchctl load -w " + u.Path})
}

// The daemon's sink flags are passed on to the service's command line.
func TestDaemonInstallSinkFlags(t *testing.T) {
	st := newServiceTest(t)
	st.manager("systemctl", "exit 0")
	sinks := daemonSinkOptions{metrics: "127.0.0.1:9464", notify: true, retention: "90d"}
	if code := st.run(true, serviceOptions{sinks: sinks}); code != exitOK {
		t.Fatalf("exit %d: %s", code, st.stderr)
	}
	u := st.want("linux", userservice.Spec{Args: []string{"daemon", "run", "--metrics", "127.0.0.1:9464", "--notify", "--audit-retention", "90d"}})
	if got := st.content(u.Path); got != string(u.Content) {
		t.Errorf("unit:\n%s\nwant:\n%s", got, u.Content)
	}
}

func TestDaemonInstallPrintAndJSON(t *testing.T) {
	st := newServiceTest(t)
	st.manager("systemctl", "exit 0")
	st.env["XDG_CONFIG_HOME"] = filepath.Join(st.home, "cfg")
	st.env["MOAT_POLICY"] = "policies/p.yaml"
	u := st.want("linux", userservice.Spec{})
	if u.Path != filepath.Join(st.home, "cfg", "systemd", "user", "moat.service") {
		t.Fatalf("unit path %s", u.Path)
	}
	for _, want := range []string{
		"Environment=MOAT_POLICY=" + filepath.Join(st.home, "policies", "p.yaml") + "\n",
		"Environment=XDG_CONFIG_HOME=" + filepath.Join(st.home, "cfg") + "\n",
		"Environment=XDG_RUNTIME_DIR=" + st.env["XDG_RUNTIME_DIR"] + "\n",
		// Pinned, so that the service manager's environment cannot choose them.
		"Environment=HOME=" + st.home + "\n",
		"Environment=XDG_STATE_HOME=\n",
		"Environment=TMPDIR=\n",
	} {
		if !strings.Contains(string(u.Content), want) {
			t.Errorf("the unit lacks %q:\n%s", want, u.Content)
		}
	}

	if code := st.run(true, serviceOptions{print: true}); code != exitOK {
		t.Fatalf("--print: exit %d\n%s", code, st.stderr)
	}
	if st.stdout.String() != string(u.Content) {
		t.Errorf("--print:\n%s\nwant:\n%s", st.stdout, u.Content)
	}
	if _, err := os.Lstat(u.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--print wrote the unit: %v", err)
	}
	if r := st.ran(); r != nil {
		t.Errorf("--print ran %q", r)
	}

	if code := st.run(true, serviceOptions{asJSON: true}); code != exitOK {
		t.Fatalf("--json: exit %d\n%s", code, st.stderr)
	}
	var r serviceReport
	if err := json.Unmarshal([]byte(st.stdout.String()), &r); err != nil {
		t.Fatalf("--json printed %s: %v", st.stdout, err)
	}
	want := serviceReport{Manager: userservice.Systemd, Name: "moat.service", Path: u.Path, File: "written", Active: true,
		Ran: []string{"systemctl --user daemon-reload", "systemctl --user enable --now moat.service"}}
	if fmt.Sprint(r) != fmt.Sprint(want) {
		t.Errorf("--json:\n got %+v\nwant %+v", r, want)
	}
}

func TestDaemonInstallRefuses(t *testing.T) {
	tests := []struct {
		name string
		o    serviceOptions
		want string
	}{
		{"another system", serviceOptions{goos: "windows"}, "moat daemon start"},
		{"tcp not loopback", serviceOptions{tcp: "0.0.0.0:7070"}, "only a loopback address"},
		{"tcp without a port", serviceOptions{tcp: "127.0.0.1"}, "--tcp"},
		{"metrics not loopback", serviceOptions{sinks: daemonSinkOptions{metrics: "0.0.0.0:9464"}}, `listen address "0.0.0.0:9464" is not a loopback address`},
		{"bad retention", serviceOptions{sinks: daemonSinkOptions{retention: "soon"}}, "--audit-retention"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newServiceTest(t)
			st.manager("systemctl", "exit 0")
			if code := st.run(true, tt.o); code != exitError {
				t.Fatalf("exit %d", code)
			}
			if !strings.Contains(st.stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q: %s", tt.want, st.stderr)
			}
			if r := st.ran(); r != nil {
				t.Errorf("ran %q", r)
			}
			if _, err := os.Lstat(filepath.Join(st.home, ".config", "systemd")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("something was written: %v", err)
			}
		})
	}
}
