package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/pathset"
)

// cacheTree makes a home with a key, a project, a document directory and a link, and
// returns the input of a carving of the default sandbox over it.
func cacheTree(t *testing.T) (home string, in CarveInput) {
	t.Helper()
	home = t.TempDir()
	for _, f := range []string{".ssh/id_rsa", "proj/src/main.go", "docs/note.txt", ".config/app/settings"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A link out of home, to a directory granted through it alone; and the AWS keys in
	// a directory reached through a link.
	if err := os.Symlink(t.TempDir(), filepath.Join(home, "link")); err != nil {
		t.Fatal(err)
	}
	aws := t.TempDir()
	if err := os.WriteFile(filepath.Join(aws, "credentials"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(aws, filepath.Join(home, ".aws")); err != nil {
		t.Fatal(err)
	}
	return home, CarveInput{
		Section:   section(t, ""),
		Host:      pathset.Host{Home: home, Temp: []string{t.TempDir()}},
		Workspace: []string{filepath.Join(home, "proj")},
		ABI:       7,
	}
}

// TestCacheMatchesFresh changes the tree (or the input) after a carving was kept, in
// every way that matters and one that does not, and checks that the cache gives what a
// fresh carving gives, kept only when nothing it depends on changed. It runs once with
// the directories' times as proof (a clock past the racy window) and once without.
func TestCacheMatchesFresh(t *testing.T) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		change func(t *testing.T, home string, in *CarveInput)
		kept   bool
	}{
		{"nothing", func(*testing.T, string, *CarveInput) {}, true},
		{"a file in a tree granted whole", func(t *testing.T, home string, _ *CarveInput) {
			must(os.WriteFile(filepath.Join(home, "proj/src/new.go"), nil, 0o600))
		}, true},
		{"a new secret in a walked directory", func(t *testing.T, home string, _ *CarveInput) {
			must(os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine x password y"), 0o600))
		}, false},
		{"a new directory", func(t *testing.T, home string, _ *CarveInput) {
			must(os.Mkdir(filepath.Join(home, "newdir"), 0o700))
		}, false},
		{"a directory removed", func(t *testing.T, home string, _ *CarveInput) {
			must(os.RemoveAll(filepath.Join(home, "docs")))
		}, false},
		{"a directory renamed", func(t *testing.T, home string, _ *CarveInput) {
			must(os.Rename(filepath.Join(home, "docs"), filepath.Join(home, "docs2")))
		}, false},
		{"a link swapped", func(t *testing.T, home string, _ *CarveInput) {
			// Renamed over the old link: the directory keeps its names and kinds.
			must(os.Symlink(t.TempDir(), filepath.Join(home, "link.new")))
			must(os.Rename(filepath.Join(home, "link.new"), filepath.Join(home, "link")))
		}, false},
		{"a linked directory holding a secret swapped", func(t *testing.T, home string, _ *CarveInput) {
			// ~/.aws leads elsewhere: the secret ~/.aws/credentials is now another file.
			other := t.TempDir()
			must(os.WriteFile(filepath.Join(other, "credentials"), nil, 0o600))
			must(os.Symlink(other, filepath.Join(home, ".aws.new")))
			must(os.Rename(filepath.Join(home, ".aws.new"), filepath.Join(home, ".aws")))
		}, false},
		{"a directory replaced by a file", func(t *testing.T, home string, _ *CarveInput) {
			must(os.RemoveAll(filepath.Join(home, "docs")))
			must(os.WriteFile(filepath.Join(home, "docs"), nil, 0o600))
		}, false},
		{"the policy's section edited", func(t *testing.T, _ string, in *CarveInput) {
			in.Section = section(t, "  deny: [~/docs/**]\n")
		}, false},
		{"a profile added", func(t *testing.T, _ string, in *CarveInput) {
			in.Section = section(t, "", "codex")
		}, false},
		{"another workspace", func(t *testing.T, home string, in *CarveInput) {
			in.Workspace = []string{filepath.Join(home, "docs")}
		}, false},
		{"another ABI", func(t *testing.T, _ string, in *CarveInput) { in.ABI = 3 }, false},
	}
	for _, clock := range []struct {
		name string
		now  func() time.Time
	}{{"times as proof", func() time.Time { return time.Now().Add(time.Hour) }}, {"listed again", nil}} {
		for _, tt := range tests {
			t.Run(clock.name+"/"+tt.name, func(t *testing.T) {
				home, in := cacheTree(t)
				c := NewCache(0, clock.now)
				first, kept, err := c.Carve(in)
				must(err)
				if kept {
					t.Fatal("the first carving was kept already")
				}
				if again, kept, err := c.Carve(in); err != nil || !kept || !reflect.DeepEqual(again, first) {
					t.Fatalf("carving again: kept %v, %v", kept, err)
				}
				// Past a coarse clock's tick, so that a change moves the times.
				time.Sleep(20 * time.Millisecond)
				changed := in
				tt.change(t, home, &changed)
				got, kept, err := c.Carve(changed)
				must(err)
				fresh, err := Carve(changed.Options())
				must(err)
				if !reflect.DeepEqual(got, fresh) {
					t.Fatalf("the cache gave a carving that differs from a fresh one:\ncached %+v\nfresh  %+v", got.Rules, fresh.Rules)
				}
				if kept != tt.kept {
					t.Errorf("kept = %v, want %v", kept, tt.kept)
				}
				if !tt.kept && reflect.DeepEqual(first, fresh) {
					t.Errorf("the change did not change the carving: the case tests nothing")
				}
			})
		}
	}
}

// TestCacheProvesRacyDirectoriesOnceOld: a carving made while its directories were
// changing is proved by asking again at every check; once their times are old enough, a
// check takes them as proof from then on, and a change after that is still seen.
func TestCacheProvesRacyDirectoriesOnceOld(t *testing.T) {
	home, in := cacheTree(t)
	clock := time.Now() // the tree was just made: its directories' times prove nothing
	c := NewCache(0, func() time.Time { return clock })
	first, _, err := c.Carve(in)
	if err != nil {
		t.Fatal(err)
	}
	rec := c.entries[0].rec
	racy := func() (n int) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		for _, st := range rec.dirs {
			if st.racy {
				n++
			}
		}
		for q, a := range rec.answers {
			if q.op == opReadDir && a.ok && a.dirID.racy {
				n++
			}
		}
		return n
	}
	before := racy()
	if before == 0 {
		t.Fatal("no directory was racy: the test tests nothing")
	}
	for i, step := range []struct {
		later     time.Duration
		wantRacy  bool
		wantEqual bool
	}{
		{0, true, true},          // still within the window: asked again, nothing replaced
		{time.Hour, false, true}, // old enough: proved by asking again, and replaced
		{time.Hour, false, true}, // proved by the times alone
	} {
		clock = clock.Add(step.later)
		cv, kept, err := c.Carve(in)
		if err != nil || !kept || !reflect.DeepEqual(cv, first) {
			t.Fatalf("check %d: kept %v, %v", i, kept, err)
		}
		if n := racy(); (n > 0) != step.wantRacy {
			t.Errorf("check %d: %d of %d racy states left", i, n, before)
		}
	}
	time.Sleep(20 * time.Millisecond) // past a coarse clock's tick
	if err := os.Mkdir(filepath.Join(home, "newdir"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, kept, err := c.Carve(in)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Carve(in.Options())
	if err != nil {
		t.Fatal(err)
	}
	if kept || !reflect.DeepEqual(got, fresh) {
		t.Errorf("after a change: kept %v, same as fresh %v", kept, reflect.DeepEqual(got, fresh))
	}
}

// TestCacheConcurrentChecks checks one kept carving from several goroutines at once, as
// the daemon does for launches that start together (run it with -race).
func TestCacheConcurrentChecks(t *testing.T) {
	_, in := cacheTree(t)
	later := time.Now().Add(time.Hour) // every check may replace the racy states
	c := NewCache(0, func() time.Time { return later })
	first, _, err := c.Carve(in)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 10 {
				if cv, kept, err := c.Carve(in); err != nil || !kept || !reflect.DeepEqual(cv, first) {
					t.Errorf("kept %v, %v", kept, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestCacheCreatedIsNotKept: a carving that created the profiles' missing directories
// saw the tree before it changed it, so it is not kept; the next one is.
func TestCacheCreatedIsNotKept(t *testing.T) {
	_, in := cacheTree(t)
	in.Section = section(t, "", "codex")
	in.CreateDirs = true
	in.LogFiles = []string{filepath.Join(in.Host.Home, ".local/state/moat/audit.jsonl")}
	c := NewCache(0, nil)
	for i, want := range []bool{false, false, true} {
		cv, kept, err := c.Carve(in)
		if err != nil {
			t.Fatal(err)
		}
		if kept != want {
			t.Fatalf("carving %d: kept = %v, want %v", i, kept, want)
		}
		if i == 0 {
			continue // it saw the tree before it made the directories
		}
		fresh, err := Carve(in.Options())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cv, fresh) {
			t.Fatalf("carving %d differs from a fresh one", i)
		}
	}
}

// TestCacheBound keeps at most its size, dropping the least recently used.
func TestCacheBound(t *testing.T) {
	_, in := cacheTree(t)
	c := NewCache(2, nil)
	var ins []CarveInput
	for _, abi := range []int{1, 2, 3} {
		x := in
		x.ABI = abi
		ins = append(ins, x)
		if _, _, err := c.Carve(x); err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() != 2 {
		t.Fatalf("Len = %d, want 2", c.Len())
	}
	for i, want := range []bool{false, true} {
		if _, kept, _ := c.Carve(ins[i+1]); kept != want && i == 1 {
			t.Errorf("input %d: kept = %v, want %v", i+1, kept, want)
		}
	}
	if _, kept, _ := c.Carve(ins[0]); kept {
		t.Error("the least recently used carving was kept beyond the bound")
	}
}

// TestCarvingJSON: a carving survives the daemon's wire unchanged, and Build is Carve
// then Finish.
func TestCarvingJSON(t *testing.T) {
	_, in := cacheTree(t)
	cv, err := Carve(in.Options())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cv)
	if err != nil {
		t.Fatal(err)
	}
	var back Carving
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, cv) {
		t.Fatal("a carving changed on its way through JSON")
	}
	if err := back.Validate(7); err != nil {
		t.Fatal(err)
	}
	o := in.Options()
	o.Environ = []string{"PATH=/usr/bin", "GITHUB_TOKEN=x"}
	built, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	finished, err := Finish(o, &back)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(built, finished) {
		t.Fatal("Finish of a carving differs from Build")
	}
}

func TestCarvingValidate(t *testing.T) {
	ok := func() *Carving {
		return &Carving{ABI: 7, Handled: handledAccess(7), Rules: []Rule{{Path: "/usr", Access: readAccess}}}
	}
	tests := []struct {
		name   string
		change func(*Carving)
	}{
		{"another ABI", func(c *Carving) { c.ABI = 6 }},
		{"fewer rights handled", func(c *Carving) { c.Handled = handledAccess(1) }},
		{"a relative path", func(c *Carving) { c.Rules[0].Path = "usr" }},
		{"an unclean path", func(c *Carving) { c.Rules[0].Path = "/usr/../etc" }},
		{"an empty path", func(c *Carving) { c.Rules[0].Path = "" }},
		{"no rights", func(c *Carving) { c.Rules[0].Access = 0 }},
		{"unknown rights", func(c *Carving) { c.Rules[0].Access = 1 << 40 }},
	}
	if err := ok().Validate(7); err != nil {
		t.Fatalf("a valid carving: %v", err)
	}
	for _, tt := range tests {
		cv := ok()
		tt.change(cv)
		if err := cv.Validate(7); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if err := (*Carving)(nil).Validate(7); err == nil {
		t.Error("nil accepted")
	}
	if slices.ContainsFunc([]CarveInput{{}, {Section: &Section{}, Host: pathset.Host{Home: "rel"}}}, func(in CarveInput) bool { return in.Check() == nil }) {
		t.Error("an input without a section or with a relative home was accepted")
	}
}
