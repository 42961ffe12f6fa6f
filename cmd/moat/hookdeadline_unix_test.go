//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// agentBlock is one agent's event for `rm -rf ~` and how to tell that the agent would
// block the call from the hook's answer: the failure form (see internal/hook's Fail) or a
// deny, whichever moat could give in time.
var agentBlock = []struct {
	agent, event string
	// blocks reports whether the agent blocks the call on this answer.
	blocks func(stdout string, code int) bool
	// failed reports whether the answer is the agent's failure form.
	failed func(stdout, stderr string, code int) bool
}{
	{"claude-code", claudeEvent("bypassPermissions", "Bash", `{"command":"rm -rf ~"}`),
		func(out string, code int) bool { return strings.Contains(out, `"permissionDecision":"deny"`) },
		func(out, errOut string, code int) bool {
			return code == 2 && strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "failing closed")
		}},
	{"cursor", `{"conversation_id":"c1","hook_event_name":"beforeShellExecution","command":"rm -rf ~","cwd":"$PROJECT","workspace_roots":["$PROJECT"]}`,
		func(out string, code int) bool { return strings.Contains(out, `"permission":"deny"`) },
		func(out, errOut string, code int) bool {
			return code == 2 && strings.Contains(out, `"permission":"deny"`) && strings.Contains(out, "failing closed")
		}},
	{"windsurf", `{"trajectory_id":"t1","agent_action_name":"pre_run_command","tool_info":{"command_line":"rm -rf ~","cwd":"$PROJECT"}}`,
		func(out string, code int) bool { return code == 2 },
		func(out, errOut string, code int) bool {
			return code == 2 && strings.Contains(errOut, "failing closed")
		}},
	{"gemini-cli", `{"session_id":"s1","cwd":"$PROJECT","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf ~"}}`,
		func(out string, code int) bool { return strings.Contains(out, `"decision":"deny"`) },
		func(out, errOut string, code int) bool {
			return strings.Contains(out, `"decision":"deny"`) && strings.Contains(out, "failing closed")
		}},
	{"codex", `{"session_id":"thr_1","cwd":"$PROJECT","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`,
		func(out string, code int) bool { return strings.Contains(out, `"permissionDecision":"deny"`) },
		func(out, errOut string, code int) bool {
			return code == 2 && strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "failing closed")
		}},
}

// newDeadlineRun is a hookRun whose state and config directories are named by XDG
// variables, as a user's may be.
func newDeadlineRun(t *testing.T) (h *hookRun, state, config string) {
	t.Helper()
	h = newHookRun(t)
	state, config = filepath.Join(h.home, "state"), filepath.Join(h.home, "config")
	h.env = append(h.env, "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+config)
	return h, filepath.Join(state, "moat"), filepath.Join(config, "moat")
}

// timedRun runs the hook and returns its answer and how long it took; a hook that has
// not answered after a minute is killed and fails the test.
func timedRun(t *testing.T, h *hookRun, env []string, payload string, args ...string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	cmd := exec.Command(moatBinary(t), args...)
	cmd.Dir = h.project
	cmd.Env = append(append([]string(nil), h.env...), env...)
	cmd.Stdin = strings.NewReader(h.expand(payload))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	took = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code, took
}

// TestHookAnswersWithHeldAuditLock: with the audit log's lock held by another process,
// every agent's hook still answers within the deadline (and a second for starting the
// process and recording), blocking `rm -rf ~`: in the failure form when the lock is met
// at the deadline, or the policy's deny when the audit log spools the record instead of
// waiting.
func TestHookAnswersWithHeldAuditLock(t *testing.T) {
	h, state, _ := newDeadlineRun(t)
	takeAuditLock(t, state)
	const deadline = 2 * time.Second // the default
	for _, ab := range agentBlock {
		t.Run(ab.agent, func(t *testing.T) {
			t.Parallel() // each waits on the lock: together they take one deadline
			stdout, stderr, code, took := timedRun(t, h, nil, ab.event, "hook", ab.agent)
			if took > deadline+time.Second {
				t.Errorf("answered after %s; the deadline is %s", took.Round(time.Millisecond), deadline)
			}
			if !ab.blocks(stdout, code) {
				t.Errorf("the answer does not block the call: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			if ab.failed(stdout, stderr, code) && !strings.Contains(stdout+stderr, "deadline of 2s") {
				t.Errorf("a failure that does not name the deadline: %q %q", stdout, stderr)
			}
			t.Logf("answered in %s, exit %d", took.Round(time.Millisecond), code)
		})
	}
}

// TestHookDeadlineEveryAgent: a hook held up (here by an agent that never closes the
// hook's standard input) answers in every agent's failure form on the deadline, the
// default or MOAT_HOOK_DEADLINE's, and records the timeout with what moat was doing.
func TestHookDeadlineEveryAgent(t *testing.T) {
	tests := []struct {
		env      []string
		deadline time.Duration
	}{
		{nil, 2 * time.Second},
		{[]string{"MOAT_HOOK_DEADLINE=700ms"}, 700 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.deadline.String(), func(t *testing.T) {
			h, _, _ := newDeadlineRun(t)
			for _, ab := range agentBlock {
				t.Run(ab.agent, func(t *testing.T) {
					t.Parallel()
					stdout, stderr, code, took := stuckStdinRun(t, h, tt.env, ab.event, ab.agent)
					if took > tt.deadline+time.Second {
						t.Errorf("answered after %s; the deadline is %s", took.Round(time.Millisecond), tt.deadline)
					}
					if !ab.failed(stdout, stderr, code) || !strings.Contains(stdout+stderr, "deadline of "+tt.deadline.String()+": moat was still reading the event") {
						t.Errorf("want the failure form naming the deadline: exit %d, stdout %q, stderr %q", code, stdout, stderr)
					}
				})
			}
			t.Cleanup(func() {
				logs, stderr, code := h.moat(t, "", "logs", "--failures", "--json")
				if n := strings.Count(logs, "deadline of "+tt.deadline.String()); code != 0 || n != len(agentBlock) {
					t.Errorf("%d of %d timeouts recorded as failures (exit %d %s):\n%s", n, len(agentBlock), code, stderr, logs)
				}
			})
		})
	}
}

// stuckStdinRun runs the hook with its event on a standard input that is never closed.
func stuckStdinRun(t *testing.T, h *hookRun, env []string, payload, agent string) (stdout, stderr string, code int, took time.Duration) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // held open until the hook has answered
	if _, err := w.WriteString(h.expand(payload)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(moatBinary(t), "hook", agent)
	cmd.Dir, cmd.Env, cmd.Stdin = h.project, append(append([]string(nil), h.env...), env...), r
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err = cmd.Wait()
	took = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code, took
}

// TestHookAnswersWithFIFOUserPolicy: a FIFO in place of the user policy is refused at
// once (it is not a regular file), and every agent's hook fails closed with the reason.
func TestHookAnswersWithFIFOUserPolicy(t *testing.T) {
	h, _, config := newDeadlineRun(t)
	if err := os.MkdirAll(config, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(config, "moat.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ab := range agentBlock {
		t.Run(ab.agent, func(t *testing.T) {
			stdout, stderr, code, took := timedRun(t, h, nil, ab.event, "hook", ab.agent)
			if took > 3*time.Second {
				t.Errorf("answered after %s; the deadline is 2s", took.Round(time.Millisecond))
			}
			if !ab.failed(stdout, stderr, code) || !strings.Contains(stdout+stderr, "is a FIFO (named pipe), not a regular file") {
				t.Errorf("want the failure form naming the FIFO: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		})
	}
}

// TestHookDeadlineInvalid: a MOAT_HOOK_DEADLINE moat cannot read fails closed, saying so.
func TestHookDeadlineInvalid(t *testing.T) {
	h, _, _ := newDeadlineRun(t)
	for _, v := range []string{"soon", "1h", "1ms"} {
		stdout, _, code, _ := timedRun(t, h, []string{"MOAT_HOOK_DEADLINE=" + v}, agentBlock[0].event, "hook", "claude-code")
		if code != 2 || !strings.Contains(stdout, "MOAT_HOOK_DEADLINE") || !strings.Contains(stdout, "failing closed") {
			t.Errorf("MOAT_HOOK_DEADLINE=%s: exit %d, %s", v, code, stdout)
		}
	}
}
