package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/hookcase"
)

// TestHookEnv answers every hook golden case in process and fails when the hook path
// asks for an environment variable that is in neither daemonenv.Service nor
// daemonenv.Hook: the thin hook client relays only those to the daemon, so the daemon
// would decide without the value the client's own process would have read.
func TestHookEnv(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hook", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/hook/*.txtar (%v)", err)
	}
	relayed := append(slices.Clone(daemonenv.Service()), daemonenv.Hook()...)
	var mu sync.Mutex
	asked := map[string][]string{} // variable → the cases that asked for it
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		_, c, err := hookcase.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		h, err := c.Prepare(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{}
		for _, kv := range c.Environ(h) {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		var out, errOut bytes.Buffer
		Main(c.ExpandedArgs(h), Env{
			Stdin:  strings.NewReader(h.Expand(c.Stdin)),
			Stdout: &out,
			Stderr: &errOut,
			Getenv: func(k string) string {
				mu.Lock()
				defer mu.Unlock()
				if !slices.Contains(asked[k], name) {
					asked[k] = append(asked[k], name)
				}
				return vars[k]
			},
			Getwd:      func() (string, error) { return h.Project, nil },
			Now:        func() time.Time { return goldenNow },
			Executable: func() (string, error) { return filepath.Join(h.Dir, ".local", "bin", "moat"), nil },
		})
	}
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(asked))
	for n := range asked {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("the hook path asked for no variable at all: the recording Getenv is not used")
	}
	for _, n := range names {
		if !slices.Contains(relayed, n) {
			t.Errorf("the hook path reads $%s (in %s), which is in neither daemonenv.Service nor daemonenv.Hook: the daemon would not see the client's value", n, strings.Join(asked[n], ", "))
		}
	}
	t.Logf("variables read: %s", strings.Join(names, " "))
}
