package sessionhistory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/shell"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newStore(t *testing.T) (*Store, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	return Open(Options{Dir: filepath.Join(t.TempDir(), "sessions"), Now: c.now, Idle: time.Hour}), c
}

func TestAddThenEarlier(t *testing.T) {
	tests := []struct {
		name                string
		addAgent, addSess   string
		readAgent, readSess string
		advance             time.Duration
		end                 bool
		want                bool
	}{
		{name: "same session", addAgent: "claude-code", addSess: "s1", readAgent: "claude-code", readSess: "s1", want: true},
		{name: "another session", addAgent: "claude-code", addSess: "s1", readAgent: "claude-code", readSess: "s2"},
		{name: "another agent", addAgent: "claude-code", addSess: "s1", readAgent: "codex", readSess: "s1"},
		{name: "no session id", addAgent: "claude-code", addSess: "", readAgent: "claude-code", readSess: ""},
		{name: "idle too long", addAgent: "claude-code", addSess: "s1", readAgent: "claude-code", readSess: "s1", advance: 2 * time.Hour},
		{name: "ended", addAgent: "claude-code", addSess: "s1", readAgent: "claude-code", readSess: "s1", end: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, c := newStore(t)
			left := shell.Left{Downloads: []string{"/tmp/x.sh"}, Written: []shell.Written{{Path: "/p/b.sh", Text: "ls\n", Known: true}}, Secrets: []string{"/h/.aws/credentials"}}
			if err := s.Add(tt.addAgent, tt.addSess, 41, left); err != nil {
				t.Fatal(err)
			}
			c.t = c.t.Add(tt.advance)
			if tt.end {
				if err := s.End(tt.addAgent, tt.addSess); err != nil {
					t.Fatal(err)
				}
			}
			e, err := s.Earlier(tt.readAgent, tt.readSess)
			if err != nil {
				t.Fatal(err)
			}
			if got := e != nil; got != tt.want {
				t.Fatalf("history found %v, want %v", got, tt.want)
			}
			if !tt.want {
				return
			}
			if e.Downloaded["/tmp/x.sh"].Call != "record 41" || e.Written["/p/b.sh"].Text != "ls\n" || !e.Written["/p/b.sh"].Known || e.Secret == nil || e.Secret.What != "/h/.aws/credentials" {
				t.Errorf("earlier = %+v", e)
			}
		})
	}
}

// A record without a number yet is named as an earlier call; a later write of a file
// replaces what was known of it.
func TestLaterFactsReplace(t *testing.T) {
	s, _ := newStore(t)
	must(t, s.Add("a", "s", 0, shell.Left{Written: []shell.Written{{Path: "/p/x.sh", Text: "ls", Known: true}}}))
	must(t, s.Add("a", "s", 7, shell.Left{Written: []shell.Written{{Path: "/p/x.sh"}}}))
	e, err := s.Earlier("a", "s")
	must(t, err)
	if w := e.Written["/p/x.sh"]; w.Known || w.Text != "" || w.Call != "record 7" {
		t.Errorf("written = %+v", w)
	}
	must(t, s.Add("a", "s", 0, shell.Left{Downloads: []string{"/tmp/d"}}))
	e, _ = s.Earlier("a", "s")
	if e.Downloaded["/tmp/d"].Call != "an earlier call" {
		t.Errorf("downloaded = %+v", e.Downloaded)
	}
}

func TestBounds(t *testing.T) {
	s, _ := newStore(t)
	for i := range MaxFacts + 10 {
		must(t, s.Add("a", "s", uint64(i+1), shell.Left{Downloads: []string{fmt.Sprintf("/tmp/d%d", i)}}))
	}
	big := strings.Repeat("x", MaxText+1)
	must(t, s.Add("a", "s", 500, shell.Left{Written: []shell.Written{{Path: "/p/big", Text: big, Known: true}}}))
	for i := range 20 {
		must(t, s.Add("a", "s", 600, shell.Left{Written: []shell.Written{{Path: fmt.Sprintf("/p/f%d", i), Text: strings.Repeat("y", MaxText), Known: true}}}))
	}
	e, err := s.Earlier("a", "s")
	must(t, err)
	if len(e.Downloaded) != MaxFacts || e.Downloaded["/tmp/d0"].Call != "" || e.Downloaded[fmt.Sprintf("/tmp/d%d", MaxFacts+9)].Call == "" {
		t.Errorf("%d downloads kept, the oldest first forgotten", len(e.Downloaded))
	}
	if w := e.Written["/p/big"]; w.Known || w.Text != "" {
		t.Errorf("a text past MaxText is kept as unknown, got known=%v len %d", w.Known, len(w.Text))
	}
	if w := e.Written["/p/f19"]; !w.Known {
		t.Errorf("the newest text is kept")
	}
	if w := e.Written["/p/f0"]; w.Known {
		t.Errorf("the oldest text goes first past MaxBytes")
	}
	fi, err := os.Stat(s.path("a", "s"))
	must(t, err)
	if fi.Size() > MaxBytes {
		t.Errorf("file of %d bytes", fi.Size())
	}
}

// A corrupt file is reported, never read as a history, and replaced by the next update.
func TestCorruptFile(t *testing.T) {
	s, _ := newStore(t)
	name := s.path("a", "s")
	must(t, os.MkdirAll(filepath.Dir(name), 0o700))
	must(t, os.WriteFile(name, []byte("{not json"), 0o600))
	if _, err := s.Earlier("a", "s"); err == nil {
		t.Error("a corrupt history read without an error")
	}
	if err := s.Add("a", "s", 3, shell.Left{Downloads: []string{"/tmp/d"}}); err == nil || !strings.Contains(err.Error(), "started again") {
		t.Errorf("Add over a corrupt file: %v", err)
	}
	e, err := s.Earlier("a", "s")
	must(t, err)
	if e == nil || e.Downloaded["/tmp/d"].Call != "record 3" {
		t.Errorf("earlier = %+v", e)
	}
}

// Concurrent processes' updates all land: every update holds the file's lock.
func TestConcurrentAdds(t *testing.T) {
	s, _ := newStore(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			other := Open(Options{Dir: s.dir, Now: s.now, Idle: time.Hour})
			must(t, other.Add("a", "s", uint64(i+1), shell.Left{Downloads: []string{fmt.Sprintf("/tmp/d%d", i)}}))
		}()
	}
	wg.Wait()
	e, err := s.Earlier("a", "s")
	must(t, err)
	if len(e.Downloaded) != 20 {
		t.Errorf("%d of 20 downloads kept", len(e.Downloaded))
	}
}

func TestExpire(t *testing.T) {
	s, c := newStore(t)
	must(t, s.Add("a", "old", 1, shell.Left{Downloads: []string{"/tmp/d"}}))
	must(t, os.Chtimes(s.path("a", "old"), c.t.Add(-2*time.Hour), c.t.Add(-2*time.Hour)))
	// A new session's first update forgets those long idle.
	must(t, s.Add("a", "new", 2, shell.Left{Downloads: []string{"/tmp/d"}}))
	if _, err := os.Stat(s.path("a", "old")); !os.IsNotExist(err) {
		t.Errorf("the idle history is still there: %v", err)
	}
	if _, err := os.Stat(s.path("a", "new")); err != nil {
		t.Error(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
