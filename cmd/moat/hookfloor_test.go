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
// the installed hook paths on the same Bash event, as Claude Code runs its hook: a fresh
// process per tool call. The paths are `moat hook claude-code` and, where the daemon
// runs (hookClientArms), the hook client with the daemon running and with none (its
// fallback). It reports min/median/max of each and the median of the paired ratios
// (path/floor), the figure issue 20 sets targets on: what moat costs beyond any Go
// process doing the same I/O, on the same machine at the same moment.
//
// One more arm, "startup", is not a hook path: moat started with an agent it has no
// hook for, which it refuses before reading anything. It is what the moat binary costs
// before it does any work (loading the program and initialising its packages), the part
// of `moat hook` that no change to deciding can remove.
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
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	arms := append([]hookArm{
		{name: "floor", prog: floor, env: env},
		{name: "hook", prog: bin, args: []string{"hook", "claude-code"}, env: env},
		{name: "startup", prog: bin, args: []string{"hook", "no-such-agent"}, env: env, code: 2}, // moat hook refuses an unknown agent with status 2
	}, hookClientArms(b, home)...)
	run := func(a hookArm) time.Duration {
		cmd := exec.Command(a.prog, a.args...)
		cmd.Dir = project
		cmd.Env = a.env
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if code := cmd.ProcessState.ExitCode(); code != a.code {
			b.Fatalf("%s: exit status %d, want %d (%v): %s", a.name, code, a.code, err, out.Bytes())
		}
		return d
	}
	times := make([][]float64, len(arms))
	ratios := make([][]float64, len(arms))
	i := 0
	for b.Loop() {
		// The order rotates, so that no path always runs on a warmer machine.
		d := make([]time.Duration, len(arms))
		for k := range arms {
			j := (i + k) % len(arms)
			d[j] = run(arms[j])
		}
		i++
		for j := range arms {
			times[j] = append(times[j], millis(d[j]))
			ratios[j] = append(ratios[j], float64(d[j])/float64(d[0]))
		}
	}
	for j, a := range arms {
		v := times[j]
		slices.Sort(v)
		b.ReportMetric(v[0], a.name+"-min-ms")
		b.ReportMetric(v[len(v)/2], a.name+"-median-ms")
		b.ReportMetric(v[len(v)-1], a.name+"-max-ms")
		if j > 0 {
			slices.Sort(ratios[j])
			b.ReportMetric(ratios[j][len(ratios[j])/2], a.name+"/floor-median")
		}
	}
}

// hookArm is one program the benchmark runs on the event: its arguments, environment and
// exit status.
type hookArm struct {
	name, prog string
	args, env  []string
	code       int // the exit status the arm ends with
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
