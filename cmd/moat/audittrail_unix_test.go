//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bashEvent is Claude Code's PreToolUse event for a Bash command.
func bashEvent(command string) string {
	b, _ := json.Marshal(command)
	return claudeEvent("default", "Bash", `{"command":`+string(b)+`}`)
}

// takeAuditLock holds the audit log's lock (flock on audit.jsonl.lock), as another
// process would, until release or the end of the test.
func takeAuditLock(t *testing.T, stateDir string) (release func()) {
	t.Helper()
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(stateDir, "audit.jsonl.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			f.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestHookWithAuditLockHeld: with the audit log's lock held by another process, `moat
// hook claude-code` still denies `rm -rf ~`, within a second, and its record is not lost:
// it waits in a spool file, which `moat status` and `moat doctor` report, until the next
// hook merges it into the log ahead of its own record, with the chain intact.
func TestHookWithAuditLockHeld(t *testing.T) {
	moatBinary(t) // built before the clock starts
	h := newHookRun(t)
	state := filepath.Join(h.home, ".local/state/moat")
	release := takeAuditLock(t, state)

	start := time.Now()
	stdout, stderr, code := h.run(t, bashEvent("rm -rf ~"), "claude-code")
	took := time.Since(start)
	if !strings.Contains(stdout, `"permissionDecision":"deny"`) {
		t.Errorf("rm -rf ~ with the lock held: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The user is told through the agent, not only on stderr, which no agent shows.
	if !strings.Contains(stdout, `"systemMessage":"moat: this decision is not in the audit log yet`) {
		t.Errorf("the spooled record is not told to the user: stdout %q", stdout)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("the hook answered after %v with the audit lock held", took)
	}
	t.Logf("answered in %v; stderr %q", took.Round(time.Millisecond), stderr)
	spools, _ := filepath.Glob(filepath.Join(state, "audit.jsonl.spool.*"))
	if len(spools) != 1 {
		t.Fatalf("spool files: %v", spools)
	}

	out, _, _ := h.moat(t, "", "status")
	if !strings.Contains(out, "1 record waiting in spool files") {
		t.Errorf("moat status does not show the spooled record:\n%s", out)
	}
	rep, status, code := runDoctor(t, h.home, os.Getenv("PATH"), h.project)
	if status["audit.writes"] != "fail" || code != 1 {
		t.Errorf("doctor with a record spooled: audit.writes %s, exit %d: %+v", status["audit.writes"], code, rep)
	}

	release()
	if _, stderr, _ := h.run(t, bashEvent("ls"), "claude-code"); stderr != "" {
		t.Errorf("a hook after the release: stderr %q", stderr)
	}
	out, stderr, code = h.moat(t, "", "logs", "--json")
	if code != 0 {
		t.Fatalf("moat logs --json: exit %d: %s", code, stderr)
	}
	recs := decodeJSONRecords(t, out)
	if len(recs) != 2 || recs[0].Args["command"] != "rm -rf ~" || recs[0].Decision.String() != "deny" || recs[1].Args["command"] != "ls" {
		t.Errorf("records after the merge: %+v", recs)
	}
	if out, _, code := h.moat(t, "", "logs", "--verify"); code != 0 || !strings.Contains(out, "verifies: 2 records") {
		t.Errorf("moat logs --verify after the merge: exit %d\n%s", code, out)
	}
	if spools, _ := filepath.Glob(filepath.Join(state, "audit.jsonl.spool.*")); len(spools) != 0 {
		t.Errorf("spool files left: %v", spools)
	}
}

// TestAuditLogLinkRefused: a link planted at the audit log (to /dev/null, or to a file of
// the user's) is never written through: the hook's record is spooled, `moat status` and
// `moat doctor` report the link, and once it is removed the next hook merges the record.
func TestAuditLogLinkRefused(t *testing.T) {
	for _, target := range []string{"/dev/null", "victim"} {
		t.Run(target, func(t *testing.T) {
			h := newHookRun(t)
			state := filepath.Join(h.home, ".local/state/moat")
			if err := os.MkdirAll(state, 0o700); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(state, "audit.jsonl")
			victim := target
			if target == "victim" {
				victim = filepath.Join(h.home, ".bashrc")
				if err := os.WriteFile(victim, []byte("export PATH\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(victim, log); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, _ := h.run(t, bashEvent("rm -rf ~"), "claude-code")
			if !strings.Contains(stdout, `"permissionDecision":"deny"`) {
				t.Errorf("rm -rf ~: stdout %q, stderr %q", stdout, stderr)
			}
			if target == "victim" {
				if b, _ := os.ReadFile(victim); string(b) != "export PATH\n" {
					t.Errorf("the record was written through the link: %q", b)
				}
			}
			out, _, _ := h.moat(t, "", "status")
			if !strings.Contains(out, "REFUSED "+log+": it is a symbolic link") {
				t.Errorf("moat status does not show the refused log:\n%s", out)
			}
			_, status, code := runDoctor(t, h.home, os.Getenv("PATH"), h.project)
			if status["audit.writes"] != "fail" || code != 1 {
				t.Errorf("doctor with a link at the log: audit.writes %s, exit %d", status["audit.writes"], code)
			}

			if err := os.Remove(log); err != nil {
				t.Fatal(err)
			}
			h.run(t, bashEvent("ls"), "claude-code")
			out, _, _ = h.moat(t, "", "logs", "--json")
			recs := decodeJSONRecords(t, out)
			if len(recs) != 2 || recs[0].Args["command"] != "rm -rf ~" {
				t.Errorf("records after removing the link: %+v", recs)
			}
			if _, status, _ := runDoctor(t, h.home, os.Getenv("PATH"), h.project); status["audit.writes"] != "warn" || status["audit.chain"] != "ok" {
				t.Errorf("doctor after the repair: %v", status)
			}
		})
	}
}
