//go:build linux || darwin

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// daemonEnv is a fresh user for a daemon: HOME and XDG_RUNTIME_DIR of its own.
type daemonEnv struct {
	home, runtime string
	env           []string
}

func newDaemonEnv(t testing.TB) daemonEnv {
	t.Helper()
	home := t.TempDir()
	// A short runtime directory: a socket's path is limited to about 100 bytes.
	runtime, err := os.MkdirTemp("", "moatrt-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(runtime) })
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	return daemonEnv{home: home, runtime: runtime, env: []string{
		"HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, "PATH=" + os.Getenv("PATH"),
	}}
}

func (e daemonEnv) getenv(k string) string {
	for _, kv := range e.env {
		if name, v, _ := strings.Cut(kv, "="); name == k {
			return v
		}
	}
	return ""
}

func (e daemonEnv) socket() string { return filepath.Join(e.runtime, "moat", "daemon.sock") }

// moatCmd runs the real binary with the daemon's environment.
func (e daemonEnv) moatCmd(t testing.TB, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(moatBinary(t), args...)
	cmd.Env, cmd.Dir = e.env, e.home
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return out.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), 0
}

// startDaemon runs `moat daemon run` and waits until its socket answers.
func (e daemonEnv) startDaemon(t testing.TB) (*exec.Cmd, *syncWriter) {
	t.Helper()
	return e.runDaemon(t, moatBinary(t))
}

// runDaemon runs `BIN daemon run ARGS…` in e and waits until its socket answers; the
// daemon is killed at the end of the test unless it ended before.
func (e daemonEnv) runDaemon(t testing.TB, bin string, args ...string) (*exec.Cmd, *syncWriter) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"daemon", "run"}, args...)...)
	cmd.Env, cmd.Dir = e.env, e.home
	log := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if out, code := e.moatCmd(t, "daemon", "status"); code == 0 {
			if !strings.Contains(out, "moat daemon: running") {
				t.Fatalf("status: %s", out)
			}
			return cmd, log
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not answer; its log:\n%s", log.String())
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// benchCalls are the mixed corpus of the engine's benchmark, as canonical calls.
func benchCalls(t testing.TB) []call.Call {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "engine", "testdata", "bench_calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []call.Call
	for line := range bytes.Lines(data) {
		req, err := hook.DecodeMoat(bytes.TrimSpace(line))
		if err != nil {
			t.Fatal(err)
		}
		c, err := req.Call()
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	return calls
}

// The real daemon, asked through decide.Remote by 50 goroutines for 500 decisions,
// decides each call as decide.Local does in this process, records each, and stops
// when told to.
func TestDaemonEndToEnd(t *testing.T) {
	e := newDaemonEnv(t)
	daemonCmd, log := e.startDaemon(t)
	exe := moatBinary(t)
	local := decide.NewLocal(decide.Options{Getenv: e.getenv, Now: time.Now, Executable: func() (string, error) { return exe, nil }})
	remote := decide.NewRemote(decide.DialUnix(e.socket()))
	defer remote.Close()
	ctx := context.Background()
	calls := benchCalls(t)
	scope := decide.Scope{Cwd: calls[0].Cwd}
	lp, err := local.Lookup(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := remote.Lookup(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lp, rp) {
		t.Fatalf("Lookup: local %+v, remote %+v", lp, rp)
	}
	const workers, each = 50, 10
	var wg sync.WaitGroup
	verdicts := make(chan call.Verdict, workers*each)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				c := calls[(w*each+i)%len(calls)]
				rr, err := remote.Decide(ctx, decide.CallRequest{Policy: rp.Key, Event: "PreToolUse", Calls: []call.Call{c}, Record: true})
				if err != nil {
					t.Errorf("remote: %v", err)
					return
				}
				lr, err := local.Decide(ctx, decide.CallRequest{Policy: lp.Key, Event: "PreToolUse", Calls: []call.Call{c}})
				if err != nil {
					t.Errorf("local: %v", err)
					return
				}
				if len(rr.NotRecorded) > 0 {
					t.Errorf("not recorded: %v", rr.NotRecorded[0])
				}
				got, want := rr.Decision, lr.Decision
				got.Latency, want.Latency = 0, 0
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %v:\ndaemon %+v\nlocal  %+v", c.Tool, c.Args, got, want)
				}
				verdicts <- got.Verdict
			}
		}()
	}
	wg.Wait()
	close(verdicts)
	seen := map[call.Verdict]int{}
	for v := range verdicts {
		seen[v]++
	}
	t.Logf("verdicts: %v", seen)
	if len(seen) < 2 {
		t.Errorf("the corpus gave one verdict only: %v", seen)
	}

	// The seeds' format on the same socket, with a seed tool name.
	conn, err := decide.DialUnix(e.socket())(ctx)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write([]byte(`{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"shell_execute","args":{"command":"rm -rf ~"},"cwd":"` + e.home + `"}` + "\n"))
	answer, err := bufio.NewReader(conn).ReadString('\n')
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var seed struct {
		Decision, Rule, Policy string
		LatencyMS              *float64 `json:"latency_ms"`
	}
	if err := json.Unmarshal([]byte(answer), &seed); err != nil || seed.Decision != "deny" || seed.Policy != "embedded:recommended" || seed.LatencyMS == nil {
		t.Errorf("seed request answered %s (%v)", answer, err)
	}

	// Every decision was recorded, the seed request's too.
	d, err := local.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := audit.Read(d.AuditLog(), func(audit.Record) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != workers*each+1 {
		t.Errorf("%d records, want %d", n, workers*each+1)
	}

	out, code := e.moatCmd(t, "daemon", "status", "--json")
	var st struct {
		Running   bool   `json:"running"`
		PID       int    `json:"pid"`
		Policies  int    `json:"policies"`
		Decisions uint64 `json:"decisions"`
		Socket    string `json:"socket"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: %s (exit %d)", out, code)
	}
	if !st.Running || st.PID != daemonCmd.Process.Pid || st.Decisions != workers*each+1 || st.Policies != 1 || st.Socket != e.socket() {
		t.Errorf("status %+v", st)
	}

	if out, code := e.moatCmd(t, "daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("stop: %s (exit %d)", out, code)
	}
	if err := daemonCmd.Wait(); err != nil {
		t.Errorf("the daemon exited with %v; its log:\n%s", err, log.String())
	}
	if _, err := os.Lstat(e.socket()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
	if out, code := e.moatCmd(t, "daemon", "status"); code != 1 || !strings.Contains(out, "not running") {
		t.Errorf("status after stop: %s (exit %d)", out, code)
	}
	// Asked through a stopped daemon, a call gets an error, never a decision.
	if _, err := remote.Decide(ctx, decide.CallRequest{Policy: rp.Key, Event: "PreToolUse", Calls: calls[:1]}); err == nil {
		t.Error("decided with the daemon stopped")
	}
}

// start is idempotent and detaches; SIGTERM drains and exits 0.
func TestDaemonStartStop(t *testing.T) {
	e := newDaemonEnv(t)
	out, code := e.moatCmd(t, "daemon", "start")
	if code != 0 || !strings.Contains(out, "moat daemon: started (pid ") {
		t.Fatalf("start: %s (exit %d)", out, code)
	}
	t.Cleanup(func() { e.moatCmd(t, "daemon", "stop") })
	out2, code := e.moatCmd(t, "daemon", "start")
	if code != 0 || !strings.Contains(out2, "already running") {
		t.Fatalf("second start: %s (exit %d)", out2, code)
	}
	fi, err := os.Lstat(filepath.Join(e.runtime, "moat"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("runtime directory: %v %v", fi.Mode(), err)
	}
	if out, code := e.moatCmd(t, "daemon", "stop"); code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("stop: %s (exit %d)", out, code)
	}
	if out, code := e.moatCmd(t, "daemon", "stop"); code != 0 || !strings.Contains(out, "not running") {
		t.Errorf("stop again: %s (exit %d)", out, code)
	}

	// In the foreground, SIGTERM stops it with status 0.
	cmd, log := e.startDaemon(t)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("after SIGTERM: %v; log:\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "signalled: stopping") {
		t.Errorf("log:\n%s", log.String())
	}
}

// Another user cannot reach the daemon: its directory is the daemon's user's alone.
func TestDaemonRefusesAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run moat as another user")
	}
	e := newDaemonEnv(t)
	e.startDaemon(t)
	// The binary must be reachable by nobody.
	dir, err := os.MkdirTemp("", "moat-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "moat")
	data, err := os.ReadFile(moatBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// Let nobody through the runtime directory's parent, as a shared /tmp would; the
	// daemon's own directory stays 0700.
	os.Chmod(e.runtime, 0o711)
	cmd := exec.Command(bin, "daemon", "status")
	cmd.Env = []string{"HOME=" + dir, "XDG_RUNTIME_DIR=" + e.runtime}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "not running") {
		t.Errorf("as nobody: %s (%v)", out, err)
	}
}
