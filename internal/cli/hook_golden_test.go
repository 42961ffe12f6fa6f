package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/moatdev/moat/internal/hookcase"
)

var updateHookGoldens = flag.Bool("update", false, "rewrite the answers in testdata/hook/*.txtar")

// goldenNow is the clock of every golden run, so that the records' times are exact.
var goldenNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// TestHookGoldens runs each testdata/hook/*.txtar (see package hookcase) through Main in
// process, as an agent runs its hook, in a fresh HOME at a fixed clock, and compares the
// answer byte for byte: stdout, stderr, exit status and the records moat wrote. -update
// rewrites the answers from today's behaviour. cmd/moat replays the same archives
// through the built binary.
func TestHookGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hook", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/hook/*.txtar")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, c, err := hookcase.ParseFile(file)
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
			code := Main(c.ExpandedArgs(h), Env{
				Stdin:  strings.NewReader(h.Expand(c.Stdin)),
				Stdout: &out,
				Stderr: &errOut,
				Getenv: func(k string) string { return vars[k] },
				Getwd:  func() (string, error) { return h.Project, nil },
				Now:    func() time.Time { return goldenNow },
				// Where moat would be installed: moat protects its own binary.
				Executable: func() (string, error) { return filepath.Join(h.Dir, ".local", "bin", "moat"), nil },
			})
			stdout, stderr := h.Unexpand(out.String()), h.Unexpand(errOut.String())
			state, err := h.State()
			if err != nil {
				t.Fatal(err)
			}
			if *updateHookGoldens {
				hookcase.SetAnswer(ar, stdout, stderr, code, state)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if d := c.Diff(stdout, stderr, code, state); d != "" {
				t.Errorf("%s:\n%s\n(go test -run TestHookGoldens -update rewrites the goldens)", file, d)
			}
		})
	}
}
