//go:build linux || darwin

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/proc"
)

var updateScreenshots = flag.Bool("update-screenshots", false, "write the dashboard's screenshots to docs/screenshots")

// browserPolicy is the user policy of the browser tests: a deny and an ask rule on
// harmless canary commands, which only print a word into a temporary directory (and
// which the hooks only decide: nothing runs them).
const browserPolicy = `version: 1
default: allow
approvals: {notify: false}
rules:
  - id: deny-browser-canary
    command: "echo moat-browser-deny **"
    decision: deny
    reason: the browser test's canary for a deny
  - id: ask-browser-canary
    command: "echo moat-browser-ask **"
    decision: ask
    reason: the browser test's canary for an ask
`

// dashboardEnv is a daemon of a fresh user serving the dashboard, and the project its
// agents work in.
type dashboardEnv struct {
	daemonEnv
	project string // the agents' working directory
	scratch string // where the canary commands write
}

// newDashboardEnv writes browserPolicy in a fresh HOME and starts the real daemon, which
// runs until the end of the test.
func newDashboardEnv(t *testing.T) *dashboardEnv {
	t.Helper()
	// moat ui refuses a login to a process that runs under an agent: the dashboard
	// answers approvals, which an agent may not give itself.
	if self, err := proc.Lineage(os.Getpid()); err == nil {
		for _, p := range self {
			if a, ok := agent.ByProcess(p.Args); ok {
				t.Skipf("the test runs inside %s, to which moat ui gives no login", a.Title)
			}
		}
	}
	e := &dashboardEnv{daemonEnv: newDaemonEnv(t)}
	policy := filepath.Join(e.home, ".config", "moat", "moat.yaml")
	e.project = filepath.Join(e.home, "project")
	e.scratch = filepath.Join(e.home, "scratch")
	for _, dir := range []string{filepath.Dir(policy), filepath.Join(e.project, ".git"), e.scratch} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(policy, []byte(browserPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	e.startDaemon(t)
	return e
}

// canary is a harmless shell command: echo WORDS into a file of the scratch directory.
func (e *dashboardEnv) canary(words string) string {
	return "echo " + words + " > " + filepath.Join(e.scratch, "out.txt")
}

// login asks moat ui --json for a one-time login URL, as a user at a terminal does.
func (e *dashboardEnv) login(t *testing.T) (url, origin string) {
	t.Helper()
	out, code := e.moatCmd(t, "ui", "--json")
	if code != 0 {
		t.Fatalf("moat ui --json: exit %d\n%s", code, out)
	}
	var ans struct{ URL, Origin string }
	// moat ui may say on stderr that it started the daemon: the JSON is the last line.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &ans); err != nil || ans.URL == "" || ans.Origin == "" {
		t.Fatalf("moat ui --json: %v\n%s", err, out)
	}
	return ans.URL, ans.Origin
}

// hook runs moat hook AGENT with payload on stdin in the project, as the agent does, and
// returns its stdout.
func (e *dashboardEnv) hook(t *testing.T, agentName string, payload any) string {
	t.Helper()
	data, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(moatBinary(t), "hook", agentName)
	cmd.Env, cmd.Dir, cmd.Stdin = e.env, e.project, bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("moat hook %s: %v", agentName, err)
	}
	return string(out)
}

// claudeTool is Claude Code's hook call for its tool with input, in session.
func (e *dashboardEnv) claudeTool(t *testing.T, session, tool string, input map[string]any) string {
	t.Helper()
	return e.hook(t, "claude-code", map[string]any{
		"session_id": session, "transcript_path": filepath.Join(e.home, "transcript.jsonl"), "cwd": e.project,
		"permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
	})
}

// claudeBash is Claude Code's hook call for a Bash command in session.
func (e *dashboardEnv) claudeBash(t *testing.T, session, command string) string {
	t.Helper()
	return e.claudeTool(t, session, "Bash", map[string]any{"command": command})
}

// approveID finds the approval ID in the reason of a call held for approval.
var approveID = regexp.MustCompile("`moat approve ([0-9a-f]{4,})`")

// codexBash is Codex's hook call for a Bash command: Codex cannot ask, so an ask is a
// deny whose reason names the pending approval. It returns the decision ("" for
// silence) and the reason.
func (e *dashboardEnv) codexBash(t *testing.T, command string) (decision, reason string) {
	t.Helper()
	out := e.hook(t, "codex", map[string]any{
		"session_id": "thr_browser", "turn_id": "t1", "cwd": e.project, "model": "gpt-5", "permission_mode": "default",
		"tool_use_id": "call_1", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": command},
	})
	if strings.TrimSpace(out) == "" {
		return "", ""
	}
	var ans struct {
		H struct {
			D string `json:"permissionDecision"`
			R string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("codex hook answer %s: %v", out, err)
	}
	return ans.H.D, ans.H.R
}

// pendingApproval makes Codex ask for command and returns the ID of the approval it
// is held for.
func (e *dashboardEnv) pendingApproval(t *testing.T, command string) string {
	t.Helper()
	decision, reason := e.codexBash(t, command)
	m := approveID.FindStringSubmatch(reason)
	if decision != "deny" || m == nil {
		t.Fatalf("Codex's ask for %q: %s %q; want a deny naming moat approve ID", command, decision, reason)
	}
	return m[1]
}

// approvalState is the state of approval id in moat approvals --json, "" when it is not
// listed.
func (e *dashboardEnv) approvalState(t *testing.T, id string) string {
	t.Helper()
	out, code := e.moatCmd(t, "approvals", "--json")
	if code != 0 {
		t.Fatalf("moat approvals --json: exit %d\n%s", code, out)
	}
	var listed []struct {
		ID    string `json:"id"`
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(out), &listed); err != nil {
		t.Fatalf("moat approvals --json: %v\n%s", err, out)
	}
	for _, l := range listed {
		if l.ID == id {
			return l.State
		}
	}
	return ""
}

// chromium is the browser the tests drive: $MOAT_TEST_CHROMIUM, else chromium or
// chromium-browser on PATH. Without one the tests skip, except in CI, which installs
// Debian's chromium (.ci/run) and where a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MOAT_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH and MOAT_TEST_CHROMIUM unset: .ci/run installs Debian's chromium for the dashboard's browser tests")
	}
	t.Skip("no chromium on PATH (set MOAT_TEST_CHROMIUM to a Chromium binary to run the dashboard's browser tests)")
	return ""
}

// newBrowser starts a headless Chromium for the test and returns the context of its
// first tab; the browser ends with the test.
func newBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 860),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox on (CI and the project's
		// machines run tests as root). The pages it loads here are the test's own, on
		// loopback.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	// The first Run starts the browser: under a context without a deadline of its own.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting %s: %v", chromium(t), err)
	}
	return tab
}

// within runs f on ctx limited to d: one step of a test must not wait for the whole
// test's deadline.
func within[T any](ctx context.Context, d time.Duration, a chromedp.Action[T]) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	return chromedp.Run(ctx, a)
}

// openView shows the dashboard's page hash (#/NAME…) in tab and waits until ready (a CSS
// selector) is on it.
func openView(t *testing.T, tab context.Context, hash, ready string) {
	t.Helper()
	if _, err := within(tab, 5*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("location.hash = %q", hash))); err != nil {
		t.Fatalf("showing %s: %v", hash, err)
	}
	waitView(t, tab, hash, ready)
}

// waitView waits until the page shows ready.
func waitView(t *testing.T, tab context.Context, hash, ready string) {
	t.Helper()
	expr := fmt.Sprintf(`document.querySelector(%q) ? "ready" : ""`, ready)
	_, err := within(tab, 10*time.Second, chromedp.Poll[string](expr, chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		text, _ := within(tab, time.Second, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("page %s: %s did not appear: %v\npage text:\n%s", hash, ready, err, text)
	}
}

// saveScreenshot writes a full-page PNG of tab as NAME.png to $MOAT_TEST_ARTIFACTS when
// set, and to docs/screenshots with -update-screenshots.
func saveScreenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	png, err := within(tab, 10*time.Second, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", name, err)
	}
	var dirs []string
	if dir := os.Getenv("MOAT_TEST_ARTIFACTS"); dir != "" {
		dirs = append(dirs, filepath.Join(dir, "screenshots"))
	}
	if *updateScreenshots {
		dirs = append(dirs, filepath.Join("..", "..", "docs", "screenshots"))
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", file, len(png))
	}
}
