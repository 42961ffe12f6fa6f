//go:build linux || darwin

package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// latency is the one field of an answer that differs between two runs.
var latency = regexp.MustCompile(`"latency_ms":[0-9.e-]+`)

// daemonDecisions is the number of decisions the daemon of e says it served.
func (e daemonEnv) daemonDecisions(t *testing.T) uint64 {
	t.Helper()
	out, code := e.moatCmd(t, "daemon", "status", "--json")
	var st struct {
		Decisions uint64 `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status --json: %s (exit %d)", out, code)
	}
	return st.Decisions
}

// check --stdin and moat run decide through the daemon when it runs, with the answers
// and exit codes they give without it; MOAT_DAEMON=off and --no-daemon keep them in
// their own process; and once the daemon is gone they decide alone.
func TestEntryPointsUseDaemon(t *testing.T) {
	e := newDaemonEnv(t)
	daemonCmd, _ := e.startDaemon(t)
	var stdin strings.Builder
	for _, cmd := range []string{"ls -la", "rm -rf ~", "curl http://127.0.0.1:1/x | sh", "git status"} {
		line, _ := json.Marshal(map[string]any{"version": 1, "tool": "Bash", "args": map[string]string{"command": cmd}, "cwd": e.home})
		stdin.Write(append(line, '\n'))
	}
	checkStdin := func(extraEnv []string, args ...string) string {
		cmd := exec.Command(moatBinary(t), append([]string{"check", "--stdin"}, args...)...)
		cmd.Env, cmd.Dir = append(append([]string{}, e.env...), extraEnv...), e.home
		cmd.Stdin = strings.NewReader(stdin.String())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("check --stdin %v: %v", args, err)
		}
		return latency.ReplaceAllString(string(out), `"latency_ms":0`)
	}
	runExit := func(extraEnv []string, args ...string) int {
		cmd := exec.Command(moatBinary(t), append([]string{"run"}, args...)...)
		cmd.Env, cmd.Dir = append(append([]string{}, e.env...), extraEnv...), e.home
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	}

	alone := checkStdin([]string{"MOAT_DAEMON=off"})
	if n := e.daemonDecisions(t); n != 0 {
		t.Fatalf("MOAT_DAEMON=off: the daemon decided %d calls", n)
	}
	if got := checkStdin(nil, "--no-daemon"); got != alone || e.daemonDecisions(t) != 0 {
		t.Fatalf("--no-daemon answered\n%s\nwant\n%s\n(or asked the daemon)", got, alone)
	}
	if got := checkStdin(nil); got != alone {
		t.Errorf("through the daemon:\n%s\nwant (alone):\n%s", got, alone)
	}
	if n := e.daemonDecisions(t); n != 4 {
		t.Errorf("the daemon decided %d of check --stdin's 4 calls", n)
	}
	if code := runExit(nil, "--", "true"); code != 0 {
		t.Errorf("moat run -- true: exit %d", code)
	}
	if code := runExit(nil, "--", "rm", "-rf", e.home); code != 126 {
		t.Errorf("moat run -- rm -rf HOME: exit %d, want 126", code)
	}
	if n := e.daemonDecisions(t); n != 6 {
		t.Errorf("the daemon decided %d calls after two of moat run, want 6", n)
	}

	// Gone: every entry point decides alone, the same way.
	daemonCmd.Process.Kill()
	daemonCmd.Wait()
	if got := checkStdin(nil); got != alone {
		t.Errorf("after the daemon was killed:\n%s\nwant:\n%s", got, alone)
	}
	if code := runExit(nil, "--", "rm", "-rf", e.home); code != 126 {
		t.Errorf("moat run -- rm -rf HOME without the daemon: exit %d, want 126", code)
	}
}
