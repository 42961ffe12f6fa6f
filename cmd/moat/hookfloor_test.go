package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/testbin"
)

// floorHookProgram is the least a hook can be: a static Go program that reads the event's
// JSON from stdin, decodes it, and answers. moat's hook path is measured against it.
const floorHookProgram = `package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	payload, err := io.ReadAll(io.LimitReader(os.Stdin, 16<<20))
	if err != nil {
		os.Exit(2)
	}
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		os.Exit(2)
	}
	if ev["tool_name"] == nil {
		os.Exit(2)
	}
}
`

// BenchmarkHookVsFloor runs, alternately in one benchmark, the floor program above and
// `moat hook claude-code` on the same Bash event, as Claude Code runs its hook: a fresh
// process per tool call. It reports min/median/max of each and the median of the paired
// ratios (moat/floor), the figure issue 20 sets targets on: what moat costs beyond any Go
// process doing the same I/O, on the same machine at the same moment.
func BenchmarkHookVsFloor(b *testing.B) {
	bin := moatBinary(b)
	src := b.TempDir()
	for name, text := range map[string]string{"go.mod": "module floor\n\ngo 1.26\n", "main.go": floorHookProgram} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	floor, err := testbin.Build(b.TempDir(), src, ".")
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	payload := `{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./... && git status"}}`
	run := func(prog string, args ...string) time.Duration {
		cmd := exec.Command(prog, args...)
		cmd.Dir = project
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			b.Fatalf("%s: %v: %s", filepath.Base(prog), err, out.Bytes())
		}
		return d
	}
	var floors, hooks, ratios []float64
	i := 0
	for b.Loop() {
		// The order alternates, so that neither side always runs on a warmer machine.
		var f, h time.Duration
		if i%2 == 0 {
			f, h = run(floor), run(bin, "hook", "claude-code")
		} else {
			h, f = run(bin, "hook", "claude-code"), run(floor)
		}
		i++
		floors = append(floors, millis(f))
		hooks = append(hooks, millis(h))
		ratios = append(ratios, float64(h)/float64(f))
	}
	for _, m := range []struct {
		unit string
		v    []float64
	}{{"floor", floors}, {"hook", hooks}} {
		slices.Sort(m.v)
		b.ReportMetric(m.v[0], m.unit+"-min-ms")
		b.ReportMetric(m.v[len(m.v)/2], m.unit+"-median-ms")
		b.ReportMetric(m.v[len(m.v)-1], m.unit+"-max-ms")
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "hook/floor-median")
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
