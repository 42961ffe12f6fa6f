//go:build linux || darwin

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/moatdev/moat/internal/testbin"
)

// limitedFetchPolicy denies web fetches over ten an hour in a session, and lets the
// others run.
const limitedFetchPolicy = `version: 1
default: allow
rules:
  - id: fetch-rate
    tool: web.fetch
    limit: 10 per 1h
    decision: deny
    reason: ten fetches an hour
`

const (
	limitProcesses = 50
	limitAllowed   = 10
)

// fetchHook runs one Claude Code PreToolUse for a WebFetch through bin (moat hook or
// moat-hook) and reports whether it was let through: an allow is no opinion (empty
// output); an over-the-limit call is denied by the limited rule, saying so.
func fetchHook(t *testing.T, e daemonEnv, bin string, args ...string) (allowed bool, err error) {
	payload := fmt.Sprintf(`{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"WebFetch","tool_input":{"url":"https://example.com/","prompt":"summarize"}}`, e.home)
	cmd := exec.Command(bin, args...)
	// A generous deadline: fifty processes on two cores must not be answered by the
	// deadline's fail-closed deny instead of the policy.
	cmd.Env, cmd.Dir = append(e.env, "MOAT_HOOK_DEADLINE=30s"), e.home
	r := testbin.Run(t, cmd, strings.NewReader(payload))
	out := string(r.Stdout)
	switch {
	case r.Code != 0:
		return false, fmt.Errorf("exit %d: %s%s", r.Code, out, r.Stderr)
	case out == "":
		return true, nil
	case strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "rate limit of 10 per hour per session reached") && strings.Contains(out, "fetch-rate"):
		return false, nil
	}
	return false, fmt.Errorf("unexpected answer: %s%s", out, r.Stderr)
}

// runFetches runs limitProcesses hooks at once, each through one of bins (in turn), and
// returns how many were let through.
func runFetches(t *testing.T, e daemonEnv, bins [][]string) int {
	t.Helper()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
	)
	for i := range limitProcesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := bins[i%len(bins)]
			ok, err := fetchHook(t, e, b[0], b[1:]...)
			if err != nil {
				t.Errorf("hook %d (%s): %v", i, filepath.Base(b[0]), err)
				return
			}
			if ok {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return allowed
}

func limitedUser(t *testing.T) daemonEnv {
	t.Helper()
	e := newDaemonEnv(t)
	file := filepath.Join(e.home, ".config", "moat", "moat.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(limitedFetchPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

var hookRequests = regexp.MustCompile(`\n\s*hook\s+(\d+) requests`)

// TestRateLimitConcurrentProcesses is the acceptance of rate limits: 50 hook processes
// at once, each about to run a web fetch in one session under `limit: 10 per 1h`, let
// exactly 10 through, whether each decides in its own process, all through the daemon,
// or half each way (the daemon's services and the processes share the counters' file).
func TestRateLimitConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 150 hook processes and the daemon")
	}
	moatBin := moatBinary(t)
	client := moatHook.Path(t)
	local := []string{moatBin, "hook", "claude-code"}
	viaDaemon := []string{client, "claude-code"}

	t.Run("without the daemon", func(t *testing.T) {
		e := limitedUser(t)
		if n := runFetches(t, e, [][]string{local}); n != limitAllowed {
			t.Errorf("%d of %d fetches let through; want exactly %d", n, limitProcesses, limitAllowed)
		}
		// The next one, looked at by moat check, is over the limit and is not counted.
		out, code := e.moatCmd(t, "check", "--explain", "--tool", "WebFetch", "--args", `{"url":"https://example.com/","prompt":"x"}`, "--agent", "claude-code", "--session", "s1")
		if code == 0 || !strings.Contains(out, "10 of 10 calls in the last hour (session claude-code/s1): over the limit") {
			t.Errorf("check --explain (exit %d) does not show the full counter:\n%s", code, out)
		}
	})
	for _, tt := range []struct {
		name string
		bins [][]string
	}{
		{"through the daemon", [][]string{viaDaemon}},
		{"half through the daemon, half in their own process", [][]string{viaDaemon, local}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := limitedUser(t)
			e.startDaemon(t)
			if n := runFetches(t, e, tt.bins); n != limitAllowed {
				t.Errorf("%d of %d fetches let through; want exactly %d", n, limitProcesses, limitAllowed)
			}
			out, _ := e.moatCmd(t, "daemon", "status")
			m := hookRequests.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("daemon status says it answered no hook:\n%s", out)
			}
			served, _ := strconv.Atoi(m[1])
			t.Logf("the daemon decided %d of the %d calls", served, limitProcesses)
			if served == 0 {
				t.Errorf("the daemon decided none of the calls")
			}
		})
	}
}
