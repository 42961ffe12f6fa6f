package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/hookcase"
	"github.com/moatdev/moat/internal/testbin"
)

// recordTime is a record's time, which the binary takes from the real clock.
var recordTime = regexp.MustCompile(`"time":"[^"]*"`)

// TestHookGoldensThroughBinary replays the hook goldens that internal/cli checks in
// process (internal/cli/testdata/hook) through the built binary, as the agents run it:
// the same answers and records prove that nothing of the process (exit paths, buffering,
// the real environment) differs from what the in-process tests see. Only the records'
// times, from the real clock, are not compared.
func TestHookGoldensThroughBinary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "internal", "cli", "testdata", "hook", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no hook goldens: %v", err)
	}
	bin := moatBinary(t)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			_, c, err := hookcase.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			h, err := c.Prepare(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, c.ExpandedArgs(h)...)
			cmd.Dir = h.Project
			cmd.Env = c.Environ(h)
			r := testbin.Run(t, cmd, strings.NewReader(h.Expand(c.Stdin)))
			state, err := h.State()
			if err != nil {
				t.Fatal(err)
			}
			for i := range state {
				state[i].Data = recordTime.ReplaceAll(state[i].Data, []byte(`"time":"2026-11-23T10:00:00Z"`))
			}
			if d := c.Diff(h.Unexpand(string(r.Stdout)), h.Unexpand(string(r.Stderr)), r.Code, state); d != "" {
				t.Errorf("%s, through the binary:\n%s", file, d)
			}
		})
	}
}
