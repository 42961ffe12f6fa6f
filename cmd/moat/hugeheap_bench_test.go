//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHookHugeheap runs `moat hook claude-code` with and without internal/hugeheap,
// interleaved in one run (the order alternates every iteration, so neither binary is
// always the warm one). It reports, for each, min/median/max of the wall time, the
// median CPU time (user+system: what the process itself costs, steadier than wall time
// on a loaded machine) and the median of minor page faults, which hugeheap is meant to
// save; and the ratios with/without of the wall medians, of the back-to-back pairs'
// wall times (median) and of the CPU medians: below 1 means hugeheap pays. The binary
// without it is built with the moat_nohugeheap tag, which compiles Advise to nothing.
func BenchmarkHookHugeheap(b *testing.B) {
	dir := b.TempDir()
	build := func(name string, tags ...string) string {
		out := filepath.Join(dir, name)
		args := append([]string{"build", "-o", out}, tags...)
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %v: %v\n%s", tags, err, msg)
		}
		return out
	}
	with := build("moat-hugeheap")
	without := build("moat-plain", "-tags", "moat_nohugeheap")

	home := b.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	pre := `{"session_id":"s","transcript_path":"/tmp/t.jsonl","cwd":"` + project + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_use_id":"t",`
	// One call the recommended policy denies and one it has no opinion on: both walk the
	// whole path (policy, shell analysis, answer).
	payloads := []string{
		pre + `"tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`,
		pre + `"tool_name":"Bash","tool_input":{"command":"go test ./... && git status | head"}}`,
	}
	type sample struct {
		wall, cpu time.Duration
		minflt    int64
	}
	run := func(bin, payload string) (string, sample) {
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir, cmd.Env = project, env
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		wall := time.Since(start)
		if _, exit := err.(*exec.ExitError); err != nil && !exit {
			b.Fatalf("%s: %v\n%s", bin, err, out.Bytes())
		}
		s := sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.minflt = ru.Minflt
		}
		return out.String() + cmd.ProcessState.String(), s
	}
	// The advice changes speed, never the answer.
	for _, p := range payloads {
		a, _ := run(with, p)
		c, _ := run(without, p)
		if a != c {
			b.Fatalf("the two builds answer differently:\n%s\n%s", a, c)
		}
	}
	var sWith, sWithout []sample
	i := 0
	for b.Loop() {
		p := payloads[i%len(payloads)]
		if i%2 == 0 {
			_, s := run(with, p)
			sWith = append(sWith, s)
			_, s = run(without, p)
			sWithout = append(sWithout, s)
		} else {
			_, s := run(without, p)
			sWithout = append(sWithout, s)
			_, s = run(with, p)
			sWith = append(sWith, s)
		}
		i++
	}
	b.StopTimer()
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	report := func(name string, ss []sample) (wall, cpu float64) {
		var walls, cpus, faults []float64
		for _, s := range ss {
			walls = append(walls, float64(s.wall)/1e6)
			cpus = append(cpus, float64(s.cpu)/1e6)
			faults = append(faults, float64(s.minflt))
		}
		b.ReportMetric(slices.Min(walls), name+"-min-ms")
		b.ReportMetric(median(walls), name+"-median-ms")
		b.ReportMetric(slices.Max(walls), name+"-max-ms")
		b.ReportMetric(median(cpus), name+"-cpu-median-ms")
		b.ReportMetric(median(faults), name+"-minflt-median")
		return median(walls), median(cpus)
	}
	ww, cw := report("hugeheap", sWith)
	wo, co := report("plain", sWithout)
	b.ReportMetric(ww/wo, "ratio")
	b.ReportMetric(cw/co, "cpu-ratio")
	// The median of the ratios of the pairs run back to back is steadier than the ratio
	// of the medians on a machine whose load drifts.
	pairs := make([]float64, len(sWith))
	for i := range sWith {
		pairs[i] = float64(sWith[i].wall) / float64(sWithout[i].wall)
	}
	b.ReportMetric(median(pairs), "paired-ratio")
}
