//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/moatdev/moat/internal/testbin"
)

// guardEnv is a fresh HOME with a canary file and a fake private key, and a bin directory
// holding moat-shell, a link to the built moat.
type guardEnv struct {
	home, bin, moat, shell, canary, key string
}

func newGuardEnv(t testing.TB) *guardEnv {
	t.Helper()
	e := &guardEnv{home: t.TempDir(), bin: t.TempDir(), moat: moatBinary(t)}
	e.shell = filepath.Join(e.bin, "moat-shell")
	if err := os.Symlink(e.moat, e.shell); err != nil {
		t.Fatal(err)
	}
	e.canary = filepath.Join(e.home, "canary")
	e.key = filepath.Join(e.home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(e.key), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{e.canary, e.key} {
		if err := os.WriteFile(f, []byte("FAKE-"+filepath.Base(f)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// env is the environment of a guarded command: only the fake HOME, PATH and extra.
func (e *guardEnv) env(extra ...string) []string {
	return append([]string{"HOME=" + e.home, "PATH=" + e.bin + ":" + os.Getenv("PATH")}, extra...)
}

func (e *guardEnv) checkCanary(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(e.canary); err != nil {
		t.Fatalf("the canary in the fake HOME is gone: %v", err)
	}
}

// run runs argv without a terminal (a new session, so /dev/tty cannot be opened) with
// stdin, and returns stdout, stderr and the exit status.
func (e *guardEnv) run(t *testing.T, stdin string, extraEnv []string, argv ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = e.home
	cmd.Env = e.env(extraEnv...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	r := testbin.Run(t, cmd, strings.NewReader(stdin))
	return string(r.Stdout), string(r.Stderr), r.Code
}

func TestRunPassesThrough(t *testing.T) {
	e := newGuardEnv(t)
	tests := []struct {
		name           string
		stdin          string
		argv           []string
		stdout, stderr string
		code           int
	}{
		{"stdio and status", "from stdin", []string{"--", "sh", "-c", "cat; echo to-stderr >&2; exit 7"}, "from stdin", "to-stderr\n", 7},
		{"arguments as given", "", []string{"--", "printf", "[%s]", "a b", "$HOME", "*", "; rm -rf ~"}, "[a b][$HOME][*][; rm -rf ~]", "", 0},
		{"flags end at the command", "", []string{"sh", "-c", "echo $0", "--agent"}, "--agent\n", "", 0},
		// A program moat does not know is asked about, and refused without a terminal.
		{"unknown program", "", []string{"--", "moat-no-such-program"}, "", "moat: not run: this makes a program run code from a file, library or setting that moat cannot read, so moat cannot tell what it does. It waits for the user's approval (no terminal to ask on): the user can run `moat approve $ID` in a terminal outside the agent (or `moat deny $ID`), and then the identical call can be retried (rule ask-opaque-code)\n", 126},
		{"not found", "", []string{"--", "./moat-no-such-program"}, "", "moat: ./moat-no-such-program: exec: \"./moat-no-such-program\": stat ./moat-no-such-program: no such file or directory\n", 127},
		{"usage", "", nil, "", "moat: run needs a command: moat run [flags] -- COMMAND [ARG...]\n", 64},
		{"bad flag", "", []string{"--nope", "true"}, "", "moat: unknown flag: --nope\n", 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The command runs as a child of sh so that its status, even a signal's, is
			// seen as a shell sees it.
			argv := append([]string{"sh", "-c", `"$@"; echo "status=$?" >&2`, "sh", e.moat, "run"}, tt.argv...)
			stdout, stderr, _ := e.run(t, tt.stdin, nil, argv...)
			status := stderr[strings.LastIndex(stderr, "status="):]
			stderr = maskApprovals(strings.TrimSuffix(stderr, status))
			if stdout != tt.stdout || stderr != tt.stderr || status != "status="+strconv.Itoa(tt.code)+"\n" {
				t.Errorf("got stdout %q stderr %q %s, want %q %q %d", stdout, stderr, status, tt.stdout, tt.stderr, tt.code)
			}
		})
	}
}

// The command replaces moat, so a signal that kills the command kills moat's process: its
// parent sees the signal, not an exit status moat made up.
func TestRunSignal(t *testing.T) {
	e := newGuardEnv(t)
	cmd := exec.Command(e.moat, "run", "--", "sh", "-c", "kill -TERM $$")
	cmd.Env = e.env()
	err := cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("err = %v", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("status %v, want killed by SIGTERM", ee)
	}
}

func TestRunDenies(t *testing.T) {
	e := newGuardEnv(t)
	stdout, stderr, code := e.run(t, "", nil, e.moat, "run", "--", "rm", "-rf", e.home)
	e.checkCanary(t)
	if code != 126 || stdout != "" || !strings.Contains(stderr, "moat: denied: ") || !strings.Contains(stderr, "(rule deny-delete-root-home-system)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// An ask without a terminal is a deny, and nothing is read from stdin for it.
	stdout, stderr, code = e.run(t, "y\n", nil, e.moat, "run", "--", "cat", e.key)
	if code != 126 || stdout != "" || !strings.Contains(stderr, "It waits for the user's approval (no terminal to ask on): the user can run `moat approve ") || !strings.Contains(stderr, "ask-secrets-read") {
		t.Errorf("ask without a terminal: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A policy that cannot be read runs nothing.
	bad := filepath.Join(e.home, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nfail: open\nrules: [{id: x}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = e.run(t, "", nil, e.moat, "run", "--policy", bad, "--", "touch", filepath.Join(e.home, "ran"))
	if _, err := os.Stat(filepath.Join(e.home, "ran")); err == nil || code != 126 || !strings.Contains(stderr, "cannot load the policy") {
		t.Errorf("bad policy: exit %d, stdout %q, stderr %q, ran: %v", code, stdout, stderr, err == nil)
	}
	// The decisions are recorded as moat run's, with the agent named.
	e.run(t, "", nil, e.moat, "run", "--agent", "aider", "--", "true")
	log, err := os.ReadFile(filepath.Join(e.home, ".local/state/moat/audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"run","class":"shell","tool":"shell","args":{"command":"rm -rf ` + e.home + `"}`, `"decision":"deny"`,
		`"decision":"ask","answer":"deny","rule":"ask-secrets-read","reason":"reads a file that holds credentials or private keys. It waits for the user's approval (no terminal to ask on)`,
		`"agent":"aider","event":"run","class":"shell","tool":"shell","args":{"command":"true"}`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
}

// TestRunAsksOnTerminal runs moat with a pseudo-terminal as its controlling terminal,
// answers the prompt, and checks that only yes runs the command. In the "pipes" cases the
// command's stdin and stdout are pipes: the prompt must still go to the terminal, and the
// command must get all of its input.
func TestRunAsksOnTerminal(t *testing.T) {
	e := newGuardEnv(t)
	for _, tt := range []struct {
		name, answer string
		pipes, ran   bool
	}{
		{"yes", "y\n", false, true},
		{"no", "n\n", false, false},
		{"enter is no", "\n", false, false},
		{"yes with pipes", "yes\n", true, true},
		{"no with pipes", "n\n", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pseudo-terminal: %v", err)
			}
			defer ptmx.Close()
			// With pipes the command reads its stdin too, which must not have lost anything
			// to the prompt; on the terminal it would wait for the user, so it does not.
			argv := []string{e.moat, "run", "--", "cat", e.key}
			if tt.pipes {
				argv = []string{e.moat, "run", "--", "cat", "-", e.key}
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir, cmd.Env = e.home, e.env()
			var stdout syncBuffer
			if tt.pipes {
				cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader("from stdin\n"), &stdout, &stdout
				cmd.ExtraFiles = []*os.File{tty}
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
			} else {
				cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tty.Close()
			var term syncBuffer
			done := make(chan struct{})
			go func() { io.Copy(&term, ptmx); close(done) }()
			waitFor(t, func() bool { return strings.Contains(term.String(), "Run it? [y/N] ") }, "the prompt")
			if _, err := ptmx.Write([]byte(tt.answer)); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			<-done
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			out := term.String()
			for _, want := range []string{strings.Join(argv[3:], " "), "reads a file that holds credentials or private keys", "ask-secrets-read"} {
				if !strings.Contains(out, want) {
					t.Errorf("the prompt does not show %q:\n%s", want, out)
				}
			}
			if tt.pipes {
				if strings.Contains(stdout.String(), "Run it?") {
					t.Errorf("the prompt went to the command's output: %q", stdout.String())
				}
				out = stdout.String()
			}
			if tt.ran {
				want := "FAKE-id_rsa"
				if tt.pipes {
					want = "from stdin\nFAKE-id_rsa\n"
				}
				if code != 0 || !strings.Contains(out, want) {
					t.Errorf("approved: exit %d, output %q", code, out)
				}
			} else if code != 126 || strings.Contains(out, "FAKE-id_rsa") || !strings.Contains(out, "refused at the terminal") {
				t.Errorf("refused: exit %d, output %q", code, out)
			}
		})
	}
}

func TestGuardedShell(t *testing.T) {
	e := newGuardEnv(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go in PATH")
	}
	shellEnv := []string{"SHELL=" + e.shell}
	tests := []struct {
		name   string
		argv   []string
		env    []string
		stdout string // a part of stdout
		stderr string // a part of stderr
		code   int
	}{
		{"a program runs $SHELL -c: allowed", []string{"sh", "-c", `"$SHELL" -c 'go version'`}, shellEnv, "go version go", "", 0},
		{"a program runs $SHELL -c: denied", []string{"sh", "-c", `"$SHELL" -c 'rm -rf ~'; echo "status=$?"`}, shellEnv, "status=126", "(rule deny-delete-root-home-system)", 0},
		{"bash -c runs $SHELL -lc", []string{"bash", "-c", `$SHELL -lc 'echo "$0 $1"' zero one`}, shellEnv, "zero one", "", 0},
		{"status and stdio", []string{e.shell, "-ec", "cat; echo err >&2; exit 5"}, shellEnv, "in", "err", 5},
		{"-e -c", []string{e.shell, "-e", "-c", "false; echo not-reached"}, shellEnv, "", "", 1},
		{"-ic", []string{e.shell, "-ic", "echo $-"}, shellEnv, "i", "", 0},
		{"denied through a parameter", []string{e.shell, "-c", `rm -rf "$1"`, "sh", e.home}, shellEnv, "", "denied", 126},
		{"no command string", []string{e.shell}, shellEnv, "", "command strings (-c 'COMMAND') only", 64},
		{"script file", []string{e.shell, "x.sh"}, shellEnv, "", "not script files", 64},
		{"as moat shell", []string{e.moat, "shell", "-c", "echo via-moat"}, shellEnv, "via-moat", "", 0},
		{"--version", []string{e.shell, "--version"}, shellEnv, "bash", "", 0},
		// The real shell is moat itself: skipped, never started in a loop.
		{"real shell is moat-shell", []string{e.shell, "-c", "echo $BASH_VERSION"}, append(shellEnv, "MOAT_REAL_SHELL="+e.shell), ".", "is moat itself", 0},
		{"real shell is /bin/sh", []string{e.shell, "-c", "echo ${BASH_VERSION:-not-bash}"}, append(shellEnv, "MOAT_REAL_SHELL=/bin/sh"), "", "", 0},
		// A guarded command that starts moat-shell again is decided with what the inner
		// shell would run: the outer one refuses the whole line (self-protection judges
		// what moat shell -c runs as the agent's own command).
		{"nested", []string{e.shell, "-c", e.shell + ` -c 'rm -rf ~'; echo "nested=$?"`}, shellEnv, "", "deny-delete-root-home-system", 126},
		{"agent from the environment", []string{e.shell, "-c", "true"}, append(shellEnv, "MOAT_AGENT=openclaw"), "", "", 0},
		{"unknown agent", []string{e.shell, "-c", "true"}, append(shellEnv, "MOAT_AGENT=clippy"), "", `unknown agent "clippy"`, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := e.run(t, "in", tt.env, tt.argv...)
			e.checkCanary(t)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
	// A program that starts $SHELL itself, as agents do: the test process.
	cmd := exec.Command(e.shell, "-c", "rm -rf ~")
	cmd.Env = e.env(shellEnv...)
	out, err := cmd.CombinedOutput()
	e.checkCanary(t)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 {
		t.Errorf("$SHELL -c 'rm -rf ~': %v: %s", err, out)
	}
	log, err := os.ReadFile(filepath.Join(e.home, ".local/state/moat/audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"shell","class":"shell","tool":"shell","args":{"command":"go version"}`, `"args":{"command":"rm -rf ~"}`,
		`"agent":"openclaw","event":"shell"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("audit log lacks %s:\n%s", want, log)
		}
	}
}

// A copy of moat (not a link, so not recognisable as the same file) configured as the
// real shell starts again with the same arguments in the same process: it notices, and
// runs the command with the next shell instead of starting itself for ever.
func TestGuardedShellCopyAsRealShell(t *testing.T) {
	e := newGuardEnv(t)
	data, err := os.ReadFile(e.moat)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "moat-shell")
	if err := os.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := e.run(t, "", []string{"SHELL=" + e.shell, "MOAT_REAL_SHELL=" + cp}, e.shell, "-c", "echo ran-once")
	if code != 0 || stdout != "ran-once\n" || !strings.Contains(stderr, "started moat again") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// BenchmarkRunTrue reports what moat run and moat-shell add to starting a command:
// `moat run -- true` against `true` alone and `moat-shell -c true` against `bash -c true`,
// each the median of its runs. The floor is an empty Go program (what starting any Go
// process costs here) and `moat check -- true` is the decision without the record and exec.
func BenchmarkRunTrue(b *testing.B) {
	e := newGuardEnv(b)
	trueBin, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	for _, bc := range []struct {
		name string
		argv []string
	}{
		{"true", []string{trueBin}},
		{"floor-empty-go-program", []string{emptyGoProgram(b)}},
		{"moat-check-true", []string{e.moat, "check", "--", "true"}},
		{"moat-run-true", []string{e.moat, "run", "--", "true"}},
		{"moat-shell-c-true", []string{e.shell, "-c", "true"}},
		{"bash-c-true", []string{"/bin/bash", "-c", "true"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				cmd := exec.Command(bc.argv[0], bc.argv[1:]...)
				cmd.Dir, cmd.Env = e.home, e.env()
				start := time.Now()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}

func TestShellInstallLink(t *testing.T) {
	e := newGuardEnv(t)
	dir := filepath.Join(t.TempDir(), "bin")
	stdout, stderr, code := e.run(t, "", nil, e.moat, "shell", "--install-link", dir)
	link := filepath.Join(dir, "moat-shell")
	if code != 0 || !strings.HasPrefix(stdout, link+" -> ") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = e.run(t, "", nil, link, "-c", "echo linked")
	if code != 0 || stdout != "linked\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
