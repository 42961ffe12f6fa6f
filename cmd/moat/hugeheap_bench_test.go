//go:build linux

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
)

// BenchmarkHookHugeheap runs `moat hook claude-code` with and without internal/hugeheap,
// interleaved in one run (the order alternates every iteration, so neither binary is
// always the warm one), and reports min/median/max of each, the ratio of the medians and
// the median ratio of the back-to-back pairs (with/without: below 1 means hugeheap pays).
// The binary without it is built with the moat_nohugeheap tag, which compiles Advise to
// nothing.
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
	answer := func(bin, payload string) (string, time.Duration) {
		cmd := exec.Command(bin, "hook", "claude-code")
		cmd.Dir, cmd.Env = project, env
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if _, exit := err.(*exec.ExitError); err != nil && !exit {
			b.Fatalf("%s: %v\n%s", bin, err, out.Bytes())
		}
		return out.String() + cmd.ProcessState.String(), d
	}
	run := func(bin, payload string) time.Duration {
		_, d := answer(bin, payload)
		return d
	}
	// The advice changes speed, never the answer.
	for _, p := range payloads {
		a, _ := answer(with, p)
		c, _ := answer(without, p)
		if a != c {
			b.Fatalf("the two builds answer differently:\n%s\n%s", a, c)
		}
	}
	var tWith, tWithout []time.Duration
	i := 0
	for b.Loop() {
		p := payloads[i%len(payloads)]
		if i%2 == 0 {
			tWith = append(tWith, run(with, p))
			tWithout = append(tWithout, run(without, p))
		} else {
			tWithout = append(tWithout, run(without, p))
			tWith = append(tWith, run(with, p))
		}
		i++
	}
	report := func(name string, ds []time.Duration) time.Duration {
		s := slices.Clone(ds)
		slices.Sort(s)
		b.ReportMetric(float64(s[0])/1e6, name+"-min-ms")
		b.ReportMetric(float64(s[len(s)/2])/1e6, name+"-median-ms")
		b.ReportMetric(float64(s[len(s)-1])/1e6, name+"-max-ms")
		return s[len(s)/2]
	}
	mw := report("hugeheap", tWith)
	mo := report("plain", tWithout)
	b.ReportMetric(float64(mw)/float64(mo), "ratio")
	// The median of the ratios of each pair, run back to back, is steadier than the
	// ratio of the medians on a machine whose load drifts.
	pairs := make([]float64, len(tWith))
	for i := range tWith {
		pairs[i] = float64(tWith[i]) / float64(tWithout[i])
	}
	slices.Sort(pairs)
	b.ReportMetric(pairs[len(pairs)/2], "paired-ratio")
}
