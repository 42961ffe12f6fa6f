//go:build linux || darwin

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/hookcase"
	"github.com/moatdev/moat/internal/testbin"
)

// hookInstall is moat installed as the user installs it: the moat binary and the hook
// client side by side in one directory (moatHook), which is also first on PATH.
type hookInstall struct {
	dir, moat, client string
}

func installHookClient(t testing.TB) hookInstall {
	t.Helper()
	client := moatHook.Path(t)
	return hookInstall{dir: filepath.Dir(client), moat: moatBinary(t), client: client}
}

// clientEvent is one agent event, with the answer `moat hook` gives it in this process's
// environment.
type clientEvent struct {
	name, agent, payload string
	want                 testbin.Result
}

// answer is a hook answer as the agent sees it: stdout, stderr and exit status, without
// the notice that the decision's record waited too long for the audit log's lock and was
// spooled (see normalizeSpooled).
func answer(r testbin.Result) string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, normalizeSpooled(r.Stdout, true), normalizeSpooled(r.Stderr, false))
}

// spooledNotice is what moat hook tells the user, and writes on stderr, when the record
// of its decision could not take the audit log's lock in time and went to a spool file.
var (
	spooledNotice = regexp.MustCompile("moat: this decision is not in the audit log yet \\(.*?\\); it is kept in a spool file and merged by the next write\\. Run `moat doctor` if this repeats\\.\n?")
	spooledLine   = regexp.MustCompile(`(?m)^moat: recording decision: .*the record was spooled to .*\n`)
)

// normalizeSpooled removes from a hook's output the notice of a spooled record, which
// depends on how many processes write the log at that moment (dozens of fallbacks on two
// cores, after a kill -9), not on what was decided; a JSON answer is compared as its
// members, a member left empty by the removal being one the notice alone had added.
func normalizeSpooled(out []byte, answer bool) string {
	if !answer {
		return spooledLine.ReplaceAllString(string(out), "")
	}
	var obj map[string]any
	if err := json.Unmarshal(out, &obj); err != nil {
		return spooledNotice.ReplaceAllString(string(out), "")
	}
	var strip func(v any) any
	strip = func(v any) any {
		switch v := v.(type) {
		case string:
			return spooledNotice.ReplaceAllString(v, "")
		case map[string]any:
			for k, e := range v {
				if e = strip(e); e == "" {
					delete(v, k)
				} else {
					v[k] = e
				}
			}
		}
		return v
	}
	strip(obj)
	if len(obj) == 0 {
		return ""
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

// spooled reports whether a hook's answer says that its record was spooled.
func spooled(r testbin.Result) bool { return spooledLine.Match(r.Stderr) }

// hookLoad is a daemon user (newDaemonEnv) with moat and its hook client installed and a
// project, and the golden hook events that need no files or variables of their own,
// each with its in-process answer.
type hookLoad struct {
	daemonEnv
	inst    hookInstall
	project string
	events  []clientEvent
	// spooled counts the client answers whose record was spooled.
	spooled atomic.Int64
}

func newHookLoad(t *testing.T) *hookLoad {
	t.Helper()
	inst := installHookClient(t)
	e := newDaemonEnv(t)
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PATH=") {
			e.env[i] = "PATH=" + inst.dir + string(os.PathListSeparator) + os.Getenv("PATH")
		}
	}
	l := &hookLoad{daemonEnv: e, inst: inst, project: filepath.Join(e.home, "project")}
	if err := os.MkdirAll(filepath.Join(l.project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "cli", "testdata", "hook", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hook goldens: %v", err)
	}
	h := hookcase.Home{Dir: e.home, Project: l.project}
	for _, file := range files {
		_, c, err := hookcase.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// Events whose answer needs files or variables of their own (a broken policy,
		// an unattended session) stay in the golden tests: here every call shares one
		// user. Each event kept is recorded once, so that records count calls.
		if len(c.Env) > 0 || len(c.Files) > 0 || len(c.Args) != 2 || c.Args[0] != "hook" || strings.Count(c.State["state/audit.jsonl"], "\n") != 1 {
			continue
		}
		l.events = append(l.events, clientEvent{
			name:    strings.TrimSuffix(filepath.Base(file), ".txtar"),
			agent:   c.Args[1],
			payload: h.Expand(c.Stdin),
		})
	}
	for i := range l.events {
		ev := &l.events[i]
		ev.want = l.run(t, inst.moat, ev, "hook", ev.agent)
	}
	return l
}

// run runs prog with args on ev's payload as the agent would, in the project.
func (l *hookLoad) run(t testing.TB, prog string, ev *clientEvent, args ...string) testbin.Result {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = l.project, l.env
	return testbin.Run(t, cmd, strings.NewReader(ev.payload))
}

// client runs the hook client on ev and reports how its answer differs from moat
// hook's, or "".
func (l *hookLoad) client(t testing.TB, ev *clientEvent) string {
	got := l.run(t, l.inst.client, ev, ev.agent)
	if spooled(got) {
		l.spooled.Add(1)
	}
	if answer(got) != answer(ev.want) {
		return fmt.Sprintf("%s: the hook client answered\n%s\nmoat hook answered\n%s", ev.name, answer(got), answer(ev.want))
	}
	return ""
}

// load runs n client calls over the events, inFlight processes at a time, calling
// after(i) once the i-th call (counted from 1) has answered. It returns the number of
// answers that differ from moat hook's, each reported.
func (l *hookLoad) load(t *testing.T, n, inFlight int, after func(done int64)) int64 {
	t.Helper()
	var wg sync.WaitGroup
	var done, wrong atomic.Int64
	slots := make(chan struct{}, inFlight)
	for i := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if d := l.client(t, &l.events[i%len(l.events)]); d != "" {
				if wrong.Add(1) <= 5 {
					t.Error(d)
				}
			}
			if after != nil {
				after(done.Add(1))
			}
		}()
	}
	wg.Wait()
	return wrong.Load()
}

// auditLog is the user's JSONL audit log, which the daemon and moat hook both write.
func (l *hookLoad) auditLog() string {
	return filepath.Join(l.home, ".local", "state", "moat", "audit.jsonl")
}

// records returns the number of records of the user's audit trail, as moat logs reads it.
func (l *hookLoad) records(t *testing.T) int {
	t.Helper()
	out, code := l.moatCmd(t, "logs", "--json")
	if code != 0 {
		t.Fatalf("moat logs --json: exit %d\n%s", code, out)
	}
	return strings.Count(out, "\n")
}

// mix counts the events by agent and their in-process answers by what they decide, as
// the answers spell it, so that a load is seen to mix allows, asks and denies of several agents.
func (l *hookLoad) mix() map[string]int {
	m := map[string]int{}
	for _, ev := range l.events {
		m[ev.agent]++
		for _, word := range []string{"deny", "ask", "block", "allow"} {
			if bytes.Contains(bytes.ToLower(ev.want.Stdout), []byte(`"`+word+`"`)) {
				m[word]++
			}
		}
		if ev.want.Code == 2 {
			m["exit 2"]++
		}
	}
	return m
}

// The acceptance test of the thin client: 2,000 hook-client calls, 64 processes in
// flight, over golden events of every agent (allow, ask, deny; shell, file, MCP,
// prompts, tool output) answer exactly as moat hook answers in process, and the daemon
// records each once in the user's trail.
func TestHookClientThroughDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 processes")
	}
	l := newHookLoad(t)
	t.Logf("%d events: %v", len(l.events), l.mix())
	daemonCmd, log := l.startDaemonAt(t)
	before := l.records(t)
	const calls = 2000
	start := time.Now()
	if wrong := l.load(t, calls, 64, nil); wrong > 0 {
		t.Errorf("%d of %d answers differ from moat hook's", wrong, calls)
	}
	t.Logf("%d calls in %v", calls, time.Since(start).Round(time.Millisecond))
	if n := l.spooled.Load(); n > 0 {
		t.Errorf("%d records were spooled: the daemon, the trail's only writer here, waited for its lock", n)
	}
	if got := l.records(t) - before; got != calls {
		t.Errorf("the trail gained %d records, want %d", got, calls)
	}
	if out, code := l.moatCmd(t, "logs", "--verify"); code != 0 {
		t.Errorf("moat logs --verify: exit %d\n%s", code, out)
	}
	if daemonCmd.ProcessState != nil {
		t.Fatalf("the daemon ended: %s", log.String())
	}
	if strings.Contains(log.String(), "fall") {
		t.Logf("daemon log:\n%s", log.String())
	}
}

// kill -9 of the daemon in the middle of a load: every call still gets moat hook's
// answer (the client falls back to moat hook), the trail keeps every record written
// before the kill and verifies, and a restarted daemon serves again.
//
// The trail may hold more records than calls: a call whose decision the daemon recorded
// but whose answer it could not send before it died is decided and recorded again by the
// fallback, since the client cannot know that the daemon had recorded it. Nothing is
// lost, and no call is answered without a decision.
func TestHookClientDaemonKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 processes")
	}
	l := newHookLoad(t)
	daemonCmd, log := l.startDaemonAt(t)
	before := l.records(t)
	const calls, killAt = 1000, 300
	var killed sync.Once
	var atKill []byte // the trail as the kill left it
	wrong := l.load(t, calls, 64, func(done int64) {
		if done == killAt {
			killed.Do(func() {
				daemonCmd.Process.Signal(syscall.SIGKILL)
				daemonCmd.Wait()
				atKill, _ = os.ReadFile(l.auditLog())
			})
		}
	})
	if wrong > 0 {
		t.Errorf("%d of %d answers differ from moat hook's", wrong, calls)
	}
	if daemonCmd.ProcessState == nil || daemonCmd.ProcessState.Success() {
		t.Fatalf("the daemon was not killed: %v", daemonCmd.ProcessState)
	}
	after := l.records(t)
	if after-before < calls {
		t.Errorf("the trail gained %d records for %d calls", after-before, calls)
	}
	t.Logf("%d calls, daemon killed after %d answers: the trail gained %d records; %d answers told of a spooled record", calls, killAt, after-before, l.spooled.Load())
	// Every record written before the kill is still there, where it was.
	final, err := os.ReadFile(l.auditLog())
	if err != nil {
		t.Fatal(err)
	}
	if len(atKill) == 0 || !bytes.HasPrefix(final, atKill) {
		t.Errorf("the trail at the kill (%d bytes) is not the start of the trail after the load", len(atKill))
	}
	if out, code := l.moatCmd(t, "logs", "--verify"); code != 0 {
		t.Errorf("moat logs --verify after kill -9: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(l.socket()); err != nil {
		t.Logf("the killed daemon's socket: %v", err)
	}

	// A new daemon serves again, over the socket the killed one left.
	_, log = l.startDaemonAt(t)
	const again = 50
	if wrong := l.load(t, again, 8, nil); wrong > 0 {
		t.Errorf("after restart, %d of %d answers differ from moat hook's", wrong, again)
	}
	if got := l.records(t) - after; got != again {
		t.Errorf("after restart, the trail gained %d records for %d calls", got, again)
	}
	st := l.status(t)
	t.Logf("restarted daemon: %+v", st)
	if st.Environments == 0 && st.Decisions == 0 {
		t.Errorf("the restarted daemon served nothing: %+v\n%s", st, log.String())
	}
}

// A daemon killed with its socket left behind: the client finds nobody on the socket,
// falls back at once, and answers as moat hook does.
func TestHookClientStaleSocket(t *testing.T) {
	l := newHookLoad(t)
	daemonCmd, _ := l.startDaemonAt(t)
	daemonCmd.Process.Signal(syscall.SIGKILL)
	daemonCmd.Wait()
	if _, err := os.Stat(l.socket()); err != nil {
		t.Fatalf("no stale socket: %v", err)
	}
	var direct, client []time.Duration
	for i := range l.events {
		ev := &l.events[i]
		start := time.Now()
		l.run(t, l.inst.moat, ev, "hook", ev.agent)
		direct = append(direct, time.Since(start))
		start = time.Now()
		if d := l.client(t, ev); d != "" {
			t.Error(d)
		}
		client = append(client, time.Since(start))
	}
	slices.Sort(direct)
	slices.Sort(client)
	md, mc := direct[len(direct)/2], client[len(client)/2]
	t.Logf("median: moat hook %v, hook client with a stale socket %v", md, mc)
	// The fallback costs a failed connect and an exec: far less than the dial timeout.
	if mc > md+200*time.Millisecond {
		t.Errorf("with a stale socket the client took %v (median), moat hook %v: the fallback waits", mc, md)
	}
}

// startDaemonAt is startDaemon with the installed moat, so that the daemon is the moat
// whose hook answers it is compared with.
func (l *hookLoad) startDaemonAt(t *testing.T) (*exec.Cmd, *syncWriter) {
	t.Helper()
	return l.runDaemon(t, l.inst.moat)
}

// daemonStatus is what `moat daemon status --json` says.
type daemonStatus struct {
	Running      bool   `json:"running"`
	PID          int    `json:"pid"`
	Decisions    uint64 `json:"decisions"`
	Environments int    `json:"environments"`
}

func (l *hookLoad) status(t *testing.T) daemonStatus {
	t.Helper()
	out, code := l.moatCmd(t, "daemon", "status", "--json")
	var st daemonStatus
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("daemon status --json: exit %d\n%s", code, out)
	}
	return st
}
