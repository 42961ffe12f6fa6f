package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/moatdev/moat/internal/sandbox"
	"github.com/moatdev/moat/internal/sandbox/linux"
)

// These tests run `moat launch` for real: the kernel enforces what they check. Each uses
// a fake HOME with a fake key and temporary directories, never the user's files.

// runSandboxProbe is the sandbox-probe command: it tries one operation and prints "ok"
// or the errno it failed with, so that a test reads exactly what the kernel answered.
// With "-" it reads one operation per line from standard input and answers each on its
// own line: one process for many probes, which a test binary built with -race starts
// slowly.
//
//	sandbox-probe read PATH | write PATH | append PATH | create PATH | truncate PATH |
//	              unlink PATH | mkdir PATH | rmdir PATH | rename FROM TO | link FROM TO |
//	              connect PORT | connect-mptcp PORT | bind PORT | env NAME | -
func runSandboxProbe() {
	if len(os.Args) == 2 && os.Args[1] == "-" {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				fmt.Println(probeOnce(f))
			}
		}
		return
	}
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Println("usage: sandbox-probe OP ARG [ARG]")
		os.Exit(2)
	}
	answer := probeOnce(os.Args[1:])
	fmt.Println(answer)
	if strings.HasPrefix(answer, "usage:") || strings.HasPrefix(answer, "unknown op") {
		os.Exit(2)
	}
}

// probeOnce tries the operation args names and says what the kernel answered.
func probeOnce(args []string) string {
	if len(args) != 2 && len(args) != 3 {
		return "usage: sandbox-probe OP ARG [ARG]"
	}
	op, arg := args[0], args[1]
	var err error
	switch op {
	case "read":
		_, err = os.ReadFile(arg)
	case "write":
		err = os.WriteFile(arg, []byte("probe\n"), 0o644)
	case "append":
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			_, err = f.WriteString("probe\n")
			f.Close()
		}
	case "create":
		// A new file with content: creating it (MAKE_REG) is not enough, writing it must
		// work too.
		var f *os.File
		if f, err = os.OpenFile(arg, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			_, err = f.WriteString("probe\n")
			f.Close()
		}
	case "truncate":
		err = unix.Truncate(arg, 0)
	case "unlink":
		err = unix.Unlink(arg)
	case "mkdir":
		err = unix.Mkdir(arg, 0o755)
	case "rmdir":
		err = unix.Rmdir(arg)
	case "rename", "link":
		if len(args) != 3 {
			return "usage: sandbox-probe " + op + " FROM TO"
		}
		if op == "rename" {
			err = unix.Rename(arg, args[2])
		} else {
			err = unix.Link(arg, args[2])
		}
	case "connect":
		var c net.Conn
		c, err = net.DialTimeout("tcp4", "127.0.0.1:"+arg, 5*time.Second)
		if err == nil {
			c.Close()
		}
	case "connect-mptcp":
		// Multipath TCP, which Landlock's TCP rules do not see: moat refuses the socket.
		err = connectMPTCP(arg)
	case "listen":
		// net.Listen as programs call it: multipath TCP first (Go 1.24 and later), which
		// moat refuses, then plain TCP.
		var l net.Listener
		l, err = net.Listen("tcp4", "127.0.0.1:"+arg)
		if err == nil {
			l.Close()
		}
	case "bind":
		// Classic TCP: Landlock does not see multipath TCP sockets, which net.Listen
		// opens by default.
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		var l net.Listener
		l, err = lc.Listen(nil, "tcp4", "127.0.0.1:"+arg)
		if err == nil {
			l.Close()
		}
	case "env":
		v, ok := os.LookupEnv(arg)
		if !ok {
			return "unset"
		}
		return "set=" + v
	default:
		return "unknown op " + op
	}
	var errno syscall.Errno
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &errno):
		return unix.ErrnoName(errno)
	}
	return "error: " + err.Error()
}

func connectMPTCP(port string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	p, err := strconv.Atoi(port)
	if err != nil {
		return err
	}
	return unix.Connect(fd, &unix.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}})
}

// requireLandlock skips a test, saying why, where the kernel has no Landlock.
func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := linux.KernelABI()
	if err != nil {
		t.Skipf("skipped: this kernel has no Landlock (%v)", err)
	}
	return abi
}

// launchEnv is a fake user: a home with a private key, a workspace, and a policy file.
type launchEnv struct {
	home, ws, policy string
	env              []string
}

// newLaunchEnv makes a fake user whose policy has a sandbox section of the given keys
// (indented lines), over a write list of the workspace alone: every temporary directory
// of a test is under /tmp, which the default sandbox makes writable.
func newLaunchEnv(t *testing.T, sandboxKeys string) *launchEnv {
	t.Helper()
	e := &launchEnv{home: t.TempDir(), ws: t.TempDir()}
	mustWrite(t, filepath.Join(e.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n")
	mustWrite(t, filepath.Join(e.home, ".ssh", "known_hosts"), "example.com ssh-ed25519 AAAA\n")
	mustWrite(t, filepath.Join(e.home, ".gitconfig"), "[user]\n\tname = t\n")
	e.policy = filepath.Join(t.TempDir(), "policy.yaml")
	mustWrite(t, e.policy, "version: 1\nsandbox:\n  write: [$workspace]\n"+sandboxKeys)
	e.env = []string{
		"HOME=" + e.home,
		"PATH=" + os.Getenv("PATH"),
		"GITHUB_TOKEN=ghp_fakefakefakefakefakefakefakefakefake1",
		"HARMLESS=1",
	}
	return e
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// launch runs `moat launch --policy P ARGS...` in the workspace and returns its stdout,
// stderr and exit status.
func (e *launchEnv) launch(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(moatBinary(t), append([]string{"launch", "--policy", e.policy}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// probe runs sandbox-probe under moat launch and returns what it printed.
func (e *launchEnv) probe(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := e.launch(t, append([]string{"--profile", "none", "--", "sandbox-probe"}, args...)...)
	if code != 0 {
		t.Fatalf("moat launch sandbox-probe %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, stderr)
	}
	return strings.TrimSpace(out)
}

func TestLaunchFiles(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"the private key is unreadable", []string{"read", filepath.Join(e.home, ".ssh", "id_rsa")}, "EACCES"},
		{"known_hosts is not a secret", []string{"read", filepath.Join(e.home, ".ssh", "known_hosts")}, "ok"},
		{"the rest of home is readable", []string{"read", filepath.Join(e.home, ".gitconfig")}, "ok"},
		{"home is not writable", []string{"write", filepath.Join(e.home, ".gitconfig")}, "EACCES"},
		{"writing outside the workspace fails", []string{"write", outside}, "EACCES"},
		{"writing inside the workspace works", []string{"write", filepath.Join(e.ws, "inside.txt")}, "ok"},
		{"the policy file in use is read-only", []string{"write", e.policy}, "EACCES"},
		{"the policy file in use is readable", []string{"read", e.policy}, "ok"},
		{"system files are readable", []string{"read", "/etc/hosts"}, "ok"},
		{"system files are not writable", []string{"write", "/etc/moat-probe"}, "EACCES"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := e.probe(t, c.args...); got != c.want {
				t.Errorf("sandbox-probe %v = %q, want %q", c.args, got, c.want)
			}
		})
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("the write outside the workspace happened")
	}
	if data, err := os.ReadFile(filepath.Join(e.ws, "inside.txt")); err != nil || string(data) != "probe\n" {
		t.Errorf("the write inside the workspace: %q, %v", data, err)
	}
}

func TestLaunchGrandchildInheritsEverything(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "  limits: {open-files: 77}\n")
	outside := filepath.Join(t.TempDir(), "outside.txt")
	script := fmt.Sprintf(`sh -c "sandbox-probe read %s/.ssh/id_rsa; sandbox-probe write %s; sandbox-probe env GITHUB_TOKEN; sandbox-probe env HARMLESS; ulimit -n"`, e.home, outside)
	out, stderr, code := e.launch(t, "--profile", "none", "--", "sh", "-c", script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "EACCES\nEACCES\nunset\nset=1\n77\n"
	if out != want {
		t.Errorf("the grandchild printed %q, want %q", out, want)
	}
}

func TestLaunchNetwork(t *testing.T) {
	abi := requireLandlock(t)
	if abi < 4 {
		t.Skipf("skipped: Landlock ABI %d has no TCP rules (needs 4)", abi)
	}
	allowed, denied := listen(t), listen(t)
	bindOK, bindNo := freePort(t), freePort(t)
	e := newLaunchEnv(t, fmt.Sprintf("  connect: [%d]\n  bind: [%d]\n", allowed, bindOK))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"connect", strconv.Itoa(allowed)}, "ok"},
		{[]string{"connect", strconv.Itoa(denied)}, "EACCES"},
		{[]string{"bind", strconv.Itoa(bindOK)}, "ok"},
		{[]string{"bind", strconv.Itoa(bindNo)}, "EACCES"},
		{[]string{"listen", strconv.Itoa(bindOK)}, "ok"},
		{[]string{"listen", strconv.Itoa(bindNo)}, "EACCES"},
	}
	for _, c := range cases {
		if got := e.probe(t, c.args...); got != c.want {
			t.Errorf("sandbox-probe %v = %q, want %q", c.args, got, c.want)
		}
	}
}

// TestLaunchMPTCP: Landlock's TCP rules do not see multipath TCP sockets, so where the
// kernel offers them moat refuses to create them (seccomp), and programs fall back to
// plain TCP, which the port lists hold.
func TestLaunchMPTCP(t *testing.T) {
	abi := requireLandlock(t)
	if abi < 4 {
		t.Skipf("skipped: Landlock ABI %d has no TCP rules (needs 4)", abi)
	}
	allowed, denied := listen(t), listen(t)
	if err := connectMPTCP(strconv.Itoa(denied)); err != nil {
		t.Skipf("skipped: this kernel does not offer multipath TCP here (%v)", err)
	}
	e := newLaunchEnv(t, fmt.Sprintf("  connect: [%d]\n", allowed))
	if got := e.probe(t, "connect-mptcp", strconv.Itoa(denied)); got != "EPROTONOSUPPORT" {
		t.Errorf("an MPTCP connection to a port not allowed: %q, want EPROTONOSUPPORT", got)
	}
	// Without a port list there is nothing to get around: MPTCP stays available.
	e = newLaunchEnv(t, "  connect: any\n  bind: any\n")
	if got := e.probe(t, "connect-mptcp", strconv.Itoa(denied)); got != "ok" {
		t.Errorf("an MPTCP connection with no port list: %q, want ok", got)
	}
}

func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestLaunchForkBomb starts a bounded bomb (200 forks of children that sleep 3 seconds)
// under a process limit of 30, and checks that forks fail. RLIMIT_NPROC counts every
// process of the user and the kernel exempts root, so as root the launch runs as nobody,
// whose processes are few.
func TestLaunchForkBomb(t *testing.T) {
	requireLandlock(t)
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("skipped: the bomb is a perl one-liner, and perl is not installed")
	}
	limit := "+30"
	var cred *syscall.Credential
	// Not t.TempDir: nobody must be able to reach the binary.
	dir, err := os.MkdirTemp("", "moat-forkbomb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		limit = "30"
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "moat")
	copyFile(t, moatBinary(t), bin)
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	policy := filepath.Join(dir, "policy.yaml")
	mustWrite(t, policy, "version: 1\nsandbox:\n  limits: {processes: \""+limit+"\"}\n")
	bomb := `my ($s, $f) = (0, 0); for (1..200) { my $p = fork(); if (!defined $p) { $f++ } elsif ($p == 0) { sleep 3; exit 0 } else { $s++ } } print "started=$s failed=$f\n"; 1 while wait() != -1;`
	cmd := exec.Command(bin, "launch", "--policy", policy, "--profile", "none", "--", "perl", "-e", bomb)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%v: %s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	m := regexp.MustCompile(`started=(\d+) failed=(\d+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("the bomb printed %q", out)
	}
	started, _ := strconv.Atoi(m[1])
	failed, _ := strconv.Atoi(m[2])
	t.Logf("forks started %d, failed %d", started, failed)
	if failed == 0 || started >= 30 {
		t.Errorf("the process limit did not hold: %d forks started, %d failed", started, failed)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLaunchRefusesBeforeRunning checks that mistakes stop moat before the command runs.
func TestLaunchRefusesBeforeRunning(t *testing.T) {
	cases := []struct {
		name, section string
		args          []string
		want          string
	}{
		{"unknown profile", "", []string{"--profile", "claude"}, `unknown profile "claude"`},
		{"invalid sandbox section", "  connect: [http]\n", nil, `policy.yaml:4:13: sandbox.connect entry "http" must be a port`},
		{"unknown sandbox key", "  writes: [/tmp]\n", nil, `policy.yaml:4:3: unknown key "writes" in sandbox (did you mean "write"?)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newLaunchEnv(t, c.section)
			marker := filepath.Join(e.ws, "ran")
			args := append(c.args, "--", "sh", "-c", "touch "+marker)
			_, stderr, code := e.launch(t, args...)
			if code != 125 {
				t.Errorf("exit %d, want 125", code)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not say %q", stderr, c.want)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the command ran")
			}
		})
	}
}

func TestLaunchExitStatus(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	if _, _, code := e.launch(t, "--profile", "none", "--", "sh", "-c", "exit 7"); code != 7 {
		t.Errorf("the command's exit 7 came back as %d", code)
	}
	if _, stderr, code := e.launch(t, "--", "no-such-program-moat"); code != 127 {
		t.Errorf("a missing command: exit %d, want 127 (%s)", code, stderr)
	}
	out, _, code := e.launch(t, "--profile", "none", "--", "sh", "-c", `echo "$MOAT_POLICY|$MOAT_SANDBOX"`)
	if code != 0 || !strings.HasPrefix(out, e.policy+"|landlock-abi-") {
		t.Errorf("MOAT_POLICY|MOAT_SANDBOX inside = %q (exit %d), want %s|landlock-abi-N", out, code, e.policy)
	}
}

func TestLaunchDryRun(t *testing.T) {
	e := newLaunchEnv(t, "  connect: [443]\n")
	marker := filepath.Join(e.ws, "ran")
	out, stderr, code := e.launch(t, "--dry-run", "--profile", "codex", "--", "sh", "-c", "touch "+marker)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("--dry-run ran the command")
	}
	for _, want := range []string{
		"profiles: codex",
		"file system rules (",
		e.ws + "  [write $workspace",
		"denied (carved out of the grants above",
		filepath.Join(e.home, ".ssh"),
		"connect: 443",
		"dropped: GITHUB_TOKEN",
		"set: MOAT_POLICY=" + e.policy,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, out)
		}
	}
}

// TestLaunchProfiles launches a representative process under each profile: it must be
// able to edit a file in the workspace, read the agent's own directory and write in it.
func TestLaunchProfiles(t *testing.T) {
	requireLandlock(t)
	profiles, err := sandbox.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(profiles) < 9 {
		t.Fatalf("%d profiles, want the 9 agents of the README", len(profiles))
	}
	for _, p := range profiles {
		t.Run(p.Name, func(t *testing.T) {
			e := newLaunchEnv(t, "")
			dir := agentDir(t, p)
			mustWrite(t, filepath.Join(e.home, dir, "config"), "agent config\n")
			mustWrite(t, filepath.Join(e.ws, "main.go"), "package main\n")
			script := fmt.Sprintf(`set -e
echo '// edited' >> main.go
mkdir -p pkg && echo new > pkg/new.go && mv pkg/new.go pkg/renamed.go && rm pkg/renamed.go
cat "$HOME/%[1]s/config"
echo state > "$HOME/%[1]s/state"
sandbox-probe read "$HOME/.ssh/id_rsa"`, dir)
			out, stderr, code := e.launch(t, "--profile", p.Name, "--", "sh", "-c", script)
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
			}
			if out != "agent config\nEACCES\n" {
				t.Errorf("stdout %q", out)
			}
			if data, _ := os.ReadFile(filepath.Join(e.ws, "main.go")); string(data) != "package main\n// edited\n" {
				t.Errorf("main.go = %q", data)
			}
		})
	}
}

// agentDir returns the first directory under ~ that the profile makes writable.
func agentDir(t *testing.T, p *sandbox.Profile) string {
	t.Helper()
	for _, w := range p.Sandbox.Write {
		if strings.HasPrefix(w.Pattern, "~/.") && strings.HasSuffix(w.Pattern, "/**") {
			return strings.TrimSuffix(strings.TrimPrefix(w.Pattern, "~/"), "/**")
		}
	}
	t.Fatalf("profile %s makes no directory of home writable", p.Name)
	return ""
}

func TestSandboxStatusAndProfiles(t *testing.T) {
	abi, abiErr := linux.KernelABI()
	out, _, code := runMoat(t, nil, "sandbox", "status", "--json")
	if abiErr == nil && code != 0 || abiErr != nil && code != 1 {
		t.Fatalf("sandbox status: exit %d with ABI %d (%v)", code, abi, abiErr)
	}
	if !bytes.Contains(out, []byte(fmt.Sprintf(`"landlock_abi":%d`, abi))) {
		t.Errorf("sandbox status --json = %s", out)
	}
	out, _, code = runMoat(t, nil, "profile", "list")
	if code != 0 || !bytes.Contains(out, []byte("claude-code")) || !bytes.Contains(out, []byte("swe-agent")) {
		t.Errorf("profile list (exit %d):\n%s", code, out)
	}
	out, _, code = runMoat(t, nil, "profile", "show", "aider")
	if code != 0 || !bytes.Contains(out, []byte("commands: [aider]")) {
		t.Errorf("profile show aider (exit %d):\n%s", code, out)
	}
	_, stderr, code := runMoat(t, nil, "profile", "show", "nope")
	if code != 64 || !bytes.Contains(stderr, []byte(`unknown profile "nope"`)) {
		t.Errorf("profile show nope: exit %d, %s", code, stderr)
	}
}

// TestLaunchCreatesProfileDirs: on a first run the agent's directory does not exist yet,
// and the agent could not create it in a home it may not write; the launch does.
func TestLaunchCreatesProfileDirs(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	out, stderr, code := e.launch(t, "--profile", "codex", "--", "sh", "-c", `echo first > "$HOME/.codex/state" && cat "$HOME/.codex/state"`)
	if code != 0 || out != "first\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	if fi, err := os.Stat(filepath.Join(e.home, ".codex")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("~/.codex: %v, %v", fi, err)
	}
}

// TestLaunchPolicyInWorkspace: a policy named with --policy is protected; inside the
// workspace that closes its directory to new entries, and moat says so.
func TestLaunchPolicyInWorkspace(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	inside := filepath.Join(e.ws, "moat.yaml")
	copyFile(t, e.policy, inside)
	mustWrite(t, filepath.Join(e.ws, "sub", "file"), "x\n")
	e.policy = inside
	out, stderr, code := e.launch(t, "--profile", "none", "--", "sh", "-c",
		`sandbox-probe write moat.yaml; sandbox-probe write new; sandbox-probe write sub/file; sandbox-probe write sub/new`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "EACCES\nEACCES\nok\nok\n"; out != want {
		t.Errorf("probes = %q, want %q", out, want)
	}
	if !strings.Contains(stderr, "is inside the workspace") {
		t.Errorf("no warning: %s", stderr)
	}
}

// TestLaunchHooksRecord: the agent's hooks inside the sandbox still record their
// decisions, although moat's state directory is protected: the decision log and its lock
// are writable, and nothing else there is.
func TestLaunchHooksRecord(t *testing.T) {
	requireLandlock(t)
	e := newLaunchEnv(t, "")
	state := filepath.Join(e.home, ".local", "state", "moat")
	event := filepath.Join(t.TempDir(), "event.json")
	mustWrite(t, event, `{"session_id":"s1","transcript_path":"/tmp/t","cwd":"`+e.ws+`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	script := fmt.Sprintf(`%q hook claude-code < %q >/dev/null && sandbox-probe write %q`, moatBinary(t), event, filepath.Join(state, "other"))
	out, stderr, code := e.launch(t, "--profile", "none", "--", "sh", "-c", script)
	if code != 0 || strings.TrimSpace(out) != "EACCES" {
		t.Fatalf("exit %d, printed %q (want EACCES for the other file)\nstderr: %s", code, out, stderr)
	}
	if strings.Contains(stderr, "recording decision") {
		t.Errorf("the hook could not record: %s", stderr)
	}
	log := filepath.Join(state, "audit.jsonl")
	data, err := os.ReadFile(log)
	if err != nil || strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), `"session":"s1"`) {
		t.Fatalf("the decision log after a hook inside: %q, %v", data, err)
	}

	// A log due for rotation cannot be rotated inside (the directory is protected): the
	// record is appended all the same, and a moat outside rotates it later.
	full := bytes.Repeat(data, 10<<20/len(data)+1)
	if err := os.WriteFile(log, full, 0o600); err != nil {
		t.Fatal(err)
	}
	script = fmt.Sprintf(`%q hook claude-code < %q >/dev/null`, moatBinary(t), event)
	if _, stderr, code := e.launch(t, "--profile", "none", "--", "sh", "-c", script); code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	after, err := os.ReadFile(log)
	lines := bytes.Count(full, []byte("\n"))
	if err != nil || !bytes.HasPrefix(after, full) || bytes.Count(after, []byte("\n")) != lines+1 || !bytes.Contains(after[len(full):], []byte(`"session":"s1"`)) {
		t.Errorf("the full log of %d records has %d after a hook inside, want one more (%v)", lines, bytes.Count(after, []byte("\n")), err)
	}
	if _, err := os.Stat(log + ".1"); err == nil {
		t.Error("the log was rotated from inside the sandbox")
	}
}
