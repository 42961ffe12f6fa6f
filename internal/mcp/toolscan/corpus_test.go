package toolscan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusFile is one file of testdata/benign or testdata/poisoned: a server's tools/list
// result, with what the test needs to know about it.
type corpusFile struct {
	path     string
	Server   string          `json:"server"`
	Attack   string          `json:"attack"`   // poisoned only: what the attack is
	Others   []string        `json:"others"`   // other servers' tools, when the attack needs them
	Poisoned []string        `json:"poisoned"` // the tools that carry the attack
	Result   json.RawMessage `json:"result"`
	tools    []Tool
}

func loadCorpus(t testing.TB, dir string) []*corpusFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", dir, err)
	}
	var out []*corpusFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &corpusFile{path: p}
		if err := json.Unmarshal(data, c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if c.tools, err = ParseList(c.Result); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, c)
	}
	return out
}

// TestBenignCorpus requires that no tool of the benign corpus has a finding. Each server
// is inspected with every other server's tools as others, as an agent with all of them
// connected would: a description that names a tool of its own server is ordinary.
func TestBenignCorpus(t *testing.T) {
	corpus := loadCorpus(t, "benign")
	tools := 0
	for _, c := range corpus {
		tools += len(c.tools)
	}
	if tools < 60 {
		t.Errorf("benign corpus has %d tools, want at least 60", tools)
	}
	flagged := 0
	for _, c := range corpus {
		var others []string
		for _, o := range corpus {
			if o != c {
				for _, tl := range o.tools {
					others = append(others, tl.Name)
				}
			}
		}
		for _, f := range Inspect(c.Server, c.tools, others) {
			flagged++
			t.Errorf("%s: false positive %s on %s %s: %s", c.path, f.ID, f.Tool, f.Field, f.Evidence)
		}
	}
	t.Logf("benign: %d tools in %d servers, %d findings", tools, len(corpus), flagged)
}

// TestPoisonedCorpus requires that at least 90% of the poisoned tools are reported, and
// that the ordinary tools listed beside them are not. It lists the misses.
func TestPoisonedCorpus(t *testing.T) {
	corpus := loadCorpus(t, "poisoned")
	total, caught := 0, 0
	var misses []string
	for _, c := range corpus {
		if len(c.Poisoned) == 0 || c.Attack == "" {
			t.Errorf("%s: says neither which tools are poisoned nor how", c.path)
		}
		found := map[string][]string{}
		for _, f := range Inspect(c.Server, c.tools, c.Others) {
			found[f.Tool] = append(found[f.Tool], f.ID+" at "+f.Field)
		}
		for _, name := range c.Poisoned {
			total++
			if len(found[name]) > 0 {
				caught++
				t.Logf("%s: %s: %s", filepath.Base(c.path), name, strings.Join(found[name], "; "))
			} else {
				misses = append(misses, filepath.Base(c.path)+" ("+c.Attack+")")
			}
		}
		for name, ids := range found {
			if !slices.Contains(c.Poisoned, name) {
				t.Errorf("%s: ordinary tool %s reported: %s", c.path, name, strings.Join(ids, "; "))
			}
		}
	}
	if total < 30 {
		t.Errorf("poisoned corpus has %d poisoned tools, want at least 30", total)
	}
	rate := float64(caught) / float64(total)
	t.Logf("poisoned: %d of %d detected (%.1f%%)", caught, total, 100*rate)
	for _, m := range misses {
		t.Logf("missed: %s", m)
	}
	if rate < 0.9 {
		t.Errorf("detection %.1f%%, want at least 90%%; missed:\n%s", 100*rate, strings.Join(misses, "\n"))
	}
}
