//go:build linux || darwin

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/hookcase"
	"github.com/moatdev/moat/internal/testbin"
)

// moatHook is the thin hook client, built beside moat as it is installed.
var moatHook = moat.Beside(testbin.MoatHook)

// hookClientCases are hook goldens answered through moat-hook: every agent, each kind of
// answer and failure. They are fewer than the environments a daemon serves, since each
// runs in a HOME of its own.
var hookClientCases = []string{
	"claude-code-allow", "claude-code-deny", "claude-code-ask", "claude-code-output-scan",
	"claude-code-fail-closed", "claude-code-malformed", "cursor-deny", "cursor-ask",
	"windsurf-allow", "windsurf-deny", "gemini-cli-ask", "gemini-cli-deny",
	"codex-deny-apply-patch", "codex-ask",
}

// TestHookClientEndToEnd answers hook goldens through the built moat-hook, first with a
// real daemon running in another HOME (which serves each client's environment), then
// with the daemon stopped (moat-hook falls back on moat hook): both times the answer and
// the records are the golden's, which is moat hook's own (TestHookGoldensThroughBinary).
func TestHookClientEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds moat and moat-hook and runs the daemon")
	}
	client := moatHook.Path(t)
	e := newDaemonEnv(t)
	// The clients' HOMEs outlive the daemon, which may still write into their state
	// directories (the audit database mirrors their logs in the background): made
	// before it starts, they are removed after it stops.
	homes := t.TempDir()
	daemon, log := e.startDaemon(t)
	replay := func(t *testing.T, name string) {
		file := filepath.Join("..", "..", "internal", "cli", "testdata", "hook", name+".txtar")
		_, c, err := hookcase.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := os.MkdirTemp(homes, name+"-")
		if err != nil {
			t.Fatal(err)
		}
		h, err := c.Prepare(dir)
		if err != nil {
			t.Fatal(err)
		}
		args := c.ExpandedArgs(h)
		if len(args) < 2 || args[0] != "hook" {
			t.Fatalf("not a hook case: %q", args)
		}
		cmd := exec.Command(client, args[1:]...)
		cmd.Dir = h.Project
		cmd.Env = append(c.Environ(h), "XDG_RUNTIME_DIR="+e.runtime)
		r := testbin.Run(t, cmd, strings.NewReader(h.Expand(c.Stdin)))
		state, err := h.State()
		if err != nil {
			t.Fatal(err)
		}
		for i := range state {
			state[i].Data = recordTime.ReplaceAll(state[i].Data, []byte(`"time":"2026-11-23T10:00:00Z"`))
		}
		if d := c.Diff(h.Unexpand(string(r.Stdout)), h.Unexpand(string(r.Stderr)), r.Code, state); d != "" {
			t.Errorf("%s, through moat-hook:\n%s", file, d)
		}
	}
	t.Run("daemon", func(t *testing.T) {
		for _, name := range hookClientCases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				replay(t, name)
			})
		}
	})
	// Each client's environment (its own HOME) was served by the daemon, beside the
	// daemon's own: the answers above are the daemon's, not the fallback's.
	out, code := e.moatCmd(t, "daemon", "status")
	if want := "environments " + strconv.Itoa(len(hookClientCases)+1) + " served"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("daemon status (exit %d) does not say %q:\n%s\ndaemon log:\n%s", code, want, out, log)
	}
	if out, code := e.moatCmd(t, "daemon", "stop"); code != 0 {
		t.Fatalf("daemon stop: exit %d\n%s", code, out)
	}
	daemon.Wait()
	t.Run("fallback", func(t *testing.T) {
		for _, name := range hookClientCases {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				replay(t, name)
			})
		}
	})
}
