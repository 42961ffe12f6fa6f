package decide

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/hook"
)

// benchCorpus is the engine's mixed benchmark corpus (shell commands, file reads, writes
// and edits, searches, MCP and web calls), as canonical calls.
func benchCorpus(tb testing.TB) []call.Call {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "engine", "testdata", "bench_calls.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var calls []call.Call
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		req, err := hook.DecodeMoat(sc.Bytes())
		if err != nil {
			tb.Fatalf("%s: %v", sc.Text(), err)
		}
		c, err := req.Call()
		if err != nil {
			tb.Fatalf("%s: %v", sc.Text(), err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	classes := map[call.Class]bool{}
	for _, c := range calls {
		classes[c.Class] = true
	}
	for _, want := range []call.Class{call.Shell, call.FileRead, call.FileWrite, call.MCP, call.WebFetch} {
		if !classes[want] {
			tb.Fatalf("the benchmark corpus has no %s call", want)
		}
	}
	return calls
}

// BenchmarkLocalDecide measures in-process evaluation of the mixed corpus as every entry
// point asks for it: Local.Decide under the embedded recommended policy, looked up once
// (warm), not recording (recording is the audit log's cost, not evaluation's). It reports
// the median and 99th percentile per call besides the mean, and the median of each
// call's fastest time (p50-fastest: what the median call costs when no other process
// takes the CPU from it). Target: p50 ≤ 20 µs.
//
// "project-known" passes the session's project, as the hooks (from the agent's payload)
// and the MCP proxy do; "project-found" leaves it to Decide, which looks for the
// repository around each call's directory (a few stat calls), as check --stdin does.
func BenchmarkLocalDecide(b *testing.B) {
	b.Run("project-known", func(b *testing.B) { benchLocalDecide(b, "/home/u/project", nil) })
	b.Run("project-found", func(b *testing.B) { benchLocalDecide(b, "", nil) })
	// In a session, with a history kept (history_bench_test.go): none yet, or one with
	// a download, a written script and a secret read.
	b.Run("session-no-history", func(b *testing.B) { benchLocalDecide(b, "/home/u/project", inSession(false)) })
	b.Run("session-history", func(b *testing.B) { benchLocalDecide(b, "/home/u/project", inSession(true)) })
}

// benchLocalDecide measures the corpus; setup, when set, prepares the Local and the
// calls before the measure.
func benchLocalDecide(b *testing.B, project string, setup func(testing.TB, *Local, []call.Call)) {
	home := b.TempDir()
	env := map[string]string{"HOME": home}
	l := NewLocal(Options{Getenv: func(k string) string { return env[k] }, Now: time.Now})
	calls := benchCorpus(b)
	if setup != nil {
		setup(b, l, calls)
	}
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: calls[0].Cwd})
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([]CallRequest, len(calls))
	for i, c := range calls {
		reqs[i] = CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}, Project: project}
	}
	// Warm: every call once, as a daemon or proxy that has run a while.
	for _, r := range reqs {
		if _, err := l.Decide(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	durations := make([]time.Duration, 0, 1<<16)
	// fastest is each call's shortest time: on a shared machine, the median of these is
	// the median call's own cost, without the time other processes took from it.
	fastest := make([]time.Duration, len(reqs))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := l.Decide(ctx, reqs[i%len(reqs)]); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		if len(durations) < cap(durations) {
			durations = append(durations, d)
		}
		if f := &fastest[i%len(reqs)]; *f == 0 || d < *f {
			*f = d
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	if len(durations) > 0 {
		b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds()), "p50-ns/op")
		b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds()), "p99-ns/op")
	}
	if len(durations) >= len(reqs) {
		slices.Sort(fastest)
		b.ReportMetric(float64(fastest[len(fastest)/2].Nanoseconds()), "p50-fastest-ns/op")
	}
}
