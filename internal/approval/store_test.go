package approval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/proc"
	"github.com/moatdev/moat/internal/testbin"
)

func shellCall(cmd string) call.Call {
	return call.Call{Agent: call.Codex, Session: "s1", Cwd: "/work/p", Class: call.Shell, Tool: "Bash", Args: map[string]any{call.ArgCommand: cmd}}
}

func mustKey(t *testing.T, calls ...call.Call) string {
	t.Helper()
	k, err := Key(calls)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyBindsEveryPart(t *testing.T) {
	base := shellCall("rm -rf build")
	k := mustKey(t, base)
	if again := mustKey(t, shellCall("rm -rf build")); again != k {
		t.Fatalf("identical calls hash differently: %s, %s", k, again)
	}
	variants := map[string]func(*call.Call){
		"argument": func(c *call.Call) { c.Args = map[string]any{call.ArgCommand: "rm -rf build2"} },
		"extra":    func(c *call.Call) { c.Args = map[string]any{call.ArgCommand: "rm -rf build", "timeout": 5} },
		"agent":    func(c *call.Call) { c.Agent = call.ClaudeCode },
		"session":  func(c *call.Call) { c.Session = "s2" },
		"cwd":      func(c *call.Call) { c.Cwd = "/work/q" },
		"class":    func(c *call.Call) { c.Class = call.Other },
		"tool":     func(c *call.Call) { c.Tool = "shell" },
		"mcp":      func(c *call.Call) { c.MCP = &call.MCPTarget{Server: "s", Tool: "t"} },
	}
	for name, change := range variants {
		c := shellCall("rm -rf build")
		change(&c)
		if mustKey(t, c) == k {
			t.Errorf("a call with another %s has the same key", name)
		}
	}
	if mustKey(t, base, base) == k {
		t.Error("an event of two calls has the key of one")
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newStore(t *testing.T) (*Store, *clock) {
	c := &clock{t: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
	return &Store{Path: filepath.Join(t.TempDir(), "state", "approvals.json"), Now: c.now}, c
}

func queue(t *testing.T, s *Store, cmd string, ttl time.Duration) Listed {
	t.Helper()
	c := shellCall(cmd)
	l, added, err := s.Queue(Entry{Hash: mustKey(t, c), TTL: ttl, Agent: string(c.Agent), Session: c.Session, Cwd: c.Cwd, Calls: []string{Render(c)}, Rule: "ask-rm"})
	if err != nil {
		t.Fatal(err)
	}
	if !added {
		t.Fatalf("queueing %q: not added", cmd)
	}
	return l
}

func TestQueueAndAnswer(t *testing.T) {
	tests := []struct {
		name  string
		state State
		// uses: the results of Use on the identical call, in turn.
		uses []State
	}{
		{"once", Once, []State{Once, ""}},
		{"session", Session, []State{Session, Session, Session}},
		{"denied", Denied, []State{Denied, Denied}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newStore(t)
			l := queue(t, s, "rm -rf build", 0)
			if l.State != Pending || len(l.ID) != MinID || !strings.HasPrefix(l.Hash, l.ID) {
				t.Fatalf("queued %+v", l)
			}
			again, added, err := s.Queue(Entry{Hash: l.Hash})
			if err != nil || added || again.ID != l.ID {
				t.Fatalf("queueing the same call again: %+v, added %v, %v", again, added, err)
			}
			if _, err := s.Answer(l.ID, tt.state, "uid 1, pid 2 (terminal)"); err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.uses {
				e, ok, err := s.Use(l.Hash)
				if err != nil {
					t.Fatal(err)
				}
				if got := map[bool]State{true: e.State}[ok]; got != want {
					t.Errorf("use %d: state %q, want %q", i, got, want)
				}
			}
			if _, ok, _ := s.Find(mustKey(t, shellCall("rm -rf build2"))); ok {
				t.Error("a call with another argument found the approval")
			}
		})
	}
}

func TestFindDoesNotUse(t *testing.T) {
	s, _ := newStore(t)
	l := queue(t, s, "x", 0)
	s.Answer(l.ID, Once, "me")
	for range 3 {
		if e, ok, _ := s.Find(l.Hash); !ok || e.State != Once {
			t.Fatalf("Find: %+v %v", e, ok)
		}
	}
}

func TestExpiry(t *testing.T) {
	s, c := newStore(t)
	l := queue(t, s, "x", 10*time.Minute)
	c.add(9 * time.Minute)
	if _, ok, _ := s.Find(l.Hash); !ok {
		t.Fatal("pending approval gone before it expired")
	}
	c.add(2 * time.Minute)
	if _, ok, _ := s.Find(l.Hash); ok {
		t.Fatal("pending approval still there after it expired")
	}
	if _, err := s.Answer(l.ID, Once, "me"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("answering an expired approval: %v, want ErrNotFound", err)
	}
	l = queue(t, s, "x", 10*time.Minute)
	c.add(5 * time.Minute)
	s.Answer(l.ID, Session, "me")
	c.add(9 * time.Minute) // 14 minutes after queueing, 9 after the grant
	if e, ok, _ := s.Find(l.Hash); !ok || e.State != Session {
		t.Fatal("a session grant lasts its TTL from the answer")
	}
	c.add(2 * time.Minute)
	if _, ok, _ := s.Find(l.Hash); ok {
		t.Fatal("session grant still there after it expired")
	}
}

func TestIDs(t *testing.T) {
	entries := []Entry{{Hash: "abcd0" + strings.Repeat("0", 59)}, {Hash: "abcd1" + strings.Repeat("0", 59)}, {Hash: "ffff" + strings.Repeat("1", 60)}, {Hash: "abce" + strings.Repeat("1", 60)}}
	ids := IDs(entries)
	want := []string{"abcd0", "abcd1", "ffff", "abce"}
	for i, e := range entries {
		if ids[e.Hash] != want[i] {
			t.Errorf("ID of %s… = %q, want %q", e.Hash[:8], ids[e.Hash], want[i])
		}
	}
}

// TestFindID checks that Find and Use name an entry by its ID among all the entries held,
// as `moat approvals` does, so that a refusal never names an ID that is ambiguous.
func TestFindID(t *testing.T) {
	s, _ := newStore(t)
	a, b := "abcd0"+strings.Repeat("0", 59), "abcd1"+strings.Repeat("0", 59)
	for _, h := range []string{a, b} {
		if _, _, err := s.Queue(Entry{Hash: h, Calls: []string{"x"}}); err != nil {
			t.Fatal(err)
		}
	}
	for name, get := range map[string]func(string) (Listed, bool, error){"Find": s.Find, "Use": s.Use} {
		l, ok, err := get(b)
		if err != nil || !ok || l.ID != "abcd1" {
			t.Errorf("%s: %q, %v, %v; want ID abcd1", name, l.ID, ok, err)
		}
	}
}

func TestAnswerIDs(t *testing.T) {
	s, _ := newStore(t)
	l := queue(t, s, "x", 0)
	for _, id := range []string{"", "ab", "zzzz", "x; rm"} {
		if _, err := s.Answer(id, Once, "me"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Answer(%q): %v, want ErrNotFound", id, err)
		}
	}
	if _, err := s.Answer(strings.ToUpper(l.Hash[:10]), Once, "me"); err != nil {
		t.Errorf("a longer prefix, in capitals: %v", err)
	}
	if _, err := s.Answer(l.ID, Pending, "me"); err == nil {
		t.Error("pending is no answer")
	}
}

func TestCorruptFileIsNoGrant(t *testing.T) {
	for name, content := range map[string]string{
		"garbage": "{not json",
		"version": `{"version":9,"entries":[]}`,
		"state":   `{"version":1,"entries":[{"hash":"` + strings.Repeat("a", 64) + `","state":"yes","expires":"2099-01-01T00:00:00Z"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := newStore(t)
			os.MkdirAll(filepath.Dir(s.Path), 0o700)
			os.WriteFile(s.Path, []byte(content), 0o600)
			if _, ok, err := s.Use(strings.Repeat("a", 64)); ok || err == nil {
				t.Errorf("Use on a corrupt file: found %v, err %v; want an error", ok, err)
			}
			if _, _, err := s.Queue(Entry{Hash: strings.Repeat("b", 64)}); err == nil {
				t.Error("Queue on a corrupt file: no error")
			}
		})
	}
}

func TestBounded(t *testing.T) {
	s, c := newStore(t)
	s.MaxEntries = 3
	var first Listed
	for i := range 5 {
		l := queue(t, s, fmt.Sprint("cmd ", i), 0)
		if i == 0 {
			first = l
		}
		c.add(time.Second)
	}
	list, err := s.List()
	if err != nil || len(list) != 3 {
		t.Fatalf("List: %d entries, %v; want 3", len(list), err)
	}
	if _, ok, _ := s.Find(first.Hash); ok {
		t.Error("the oldest entry was kept over the bound")
	}
}

// TestConcurrentProcesses has processes queue and use approvals in parallel: no
// entry is lost, and a once grant is used by exactly one of them.
func TestConcurrentProcesses(t *testing.T) {
	if os.Getenv("MOAT_APPROVAL_HELPER") != "" {
		return
	}
	s, _ := newStore(t)
	s.Now = nil
	l, _, err := s.Queue(Entry{Hash: mustKey(t, shellCall("granted"))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Answer(l.ID, Once, "me"); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	used := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			cmd := testbin.Rerun("TestConcurrentHelper", "MOAT_APPROVAL_HELPER="+s.Path, "MOAT_APPROVAL_N="+strconv.Itoa(i))
			out, err := cmd.CombinedOutput()
			errs[i] = err
			used[i] = strings.Contains(string(out), "USED")
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		})
	}
	wg.Wait()
	count := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if used[i] {
			count++
		}
	}
	if count != 1 {
		t.Errorf("the once grant was used by %d processes, want 1", count)
	}
	list, err := s.List()
	if err != nil || len(list) != n*5 {
		t.Errorf("after %d processes queued 5 each: %d entries, %v", n, len(list), err)
	}
}

func TestConcurrentHelper(t *testing.T) {
	path := os.Getenv("MOAT_APPROVAL_HELPER")
	if path == "" {
		t.Skip("run by TestConcurrentProcesses")
	}
	s := &Store{Path: path}
	if e, ok, err := s.Use(mustKey(t, shellCall("granted"))); err != nil {
		t.Fatal(err)
	} else if ok && e.State == Once {
		fmt.Println("USED")
	}
	for j := range 5 {
		if _, _, err := s.Queue(Entry{Hash: mustKey(t, shellCall(fmt.Sprint(os.Getenv("MOAT_APPROVAL_N"), "-", j)))}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckApprover(t *testing.T) {
	line := func(ps ...proc.Process) Lineage {
		return func(int) ([]proc.Process, error) { return ps, nil }
	}
	p := func(pid int, tty string, args ...string) proc.Process {
		return proc.Process{Info: proc.Info{PID: pid, Args: args}, UID: 1000, Terminal: tty}
	}
	tests := []struct {
		name      string
		lineage   Lineage
		dashboard bool
		refused   string
	}{
		{"terminal", line(p(10, "/dev/pts/1", "moat", "approve"), p(9, "/dev/pts/1", "bash")), false, ""},
		{"under codex", line(p(10, "/dev/pts/1", "moat"), p(9, "/dev/pts/1", "sh"), p(8, "/dev/pts/1", "/usr/bin/codex")), false, "inside Codex"},
		{"under node codex", line(p(10, "", "moat"), p(8, "", "node", "/x/codex.js")), true, "inside Codex"},
		{"no terminal", line(p(10, "", "moat"), p(9, "", "systemd")), false, "no controlling terminal"},
		{"dashboard", line(p(10, "", "moat"), p(9, "", "systemd")), true, ""},
		{"unreadable", func(int) ([]proc.Process, error) { return nil, errors.New("gone") }, false, "cannot be read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			who, err := CheckApprover(10, tt.lineage, tt.dashboard)
			if tt.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				if who.PID != 10 || who.UID != 1000 {
					t.Errorf("approver %+v", who)
				}
				return
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("err = %v, want a refusal with %q", err, tt.refused)
			}
		})
	}
}

// The file never grows past what a read accepts, whatever the entries hold.
func TestBoundedBytes(t *testing.T) {
	s, c := newStore(t)
	big := strings.Repeat("\x01", maxField*2)
	for i := range 30 {
		_, _, err := s.Queue(Entry{Hash: mustKey(t, shellCall(fmt.Sprint(i))), Calls: []string{big, big, big, big, big, big, big, big}, Reason: big, Rule: big, Cwd: big, Agent: big, Session: big, Policy: big})
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		c.add(time.Second)
	}
	if fi, err := os.Stat(s.Path); err != nil || fi.Size() >= maxFileBytes {
		t.Fatalf("approvals file: %v, %d bytes", err, fi.Size())
	}
	if _, err := s.List(); err != nil {
		t.Fatal(err)
	}
}
