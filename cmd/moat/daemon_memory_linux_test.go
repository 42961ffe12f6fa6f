//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
)

// memoryCheckpoints are the decision counts at which the daemon's memory is read; the
// first two are its warm-up.
var memoryCheckpoints = []int{10_000, 25_000, 50_000, 100_000}

// memorySlackKiB is how far the daemon's resident memory may rise from 25,000 decisions
// to 100,000. By 25,000 every cache the daemon has is full or at its steady size: one
// compiled policy (of at most decide.DefaultCacheSize), one service (of at most
// maxDaemonEnvs), the connections' 64 KiB buffers; the runtime has grown its heap to
// the size the collector keeps (GOGC=100: up to twice the live heap between
// collections). What may still move is where that heap sits in the pages: the collector
// returns and retakes pages at its own pace, a few MiB either way. 8 MiB is well above
// that noise and well below what 75,000 decisions kept would take (at 1 KiB each, which
// a record or a call with its findings easily is, 73 MiB).
const memorySlackKiB = 8 << 10

// memoryFigures are the daemon's VmRSS and VmHWM, in KiB, after a number of decisions.
type memoryFigures struct {
	decisions int
	rss, hwm  int
}

// daemonMemory sends the daemon whose process is pid n decisions of the mixed corpus
// over four connections bound to e's environment, recording each, and reads its memory
// at each checkpoint. Half the shell calls are made unique, so that anything the daemon
// kept per call would show.
func daemonMemory(tb testing.TB, e daemonEnv, pid int) []memoryFigures {
	tb.Helper()
	calls := benchCalls(tb)
	remote := decide.NewRemote(daemon.DialBound(e.socket(), daemon.BindParams{Env: daemonenv.Capture(e.getenv)}))
	defer remote.Close()
	ctx := context.Background()
	pol, err := remote.Lookup(ctx, decide.Scope{Cwd: calls[0].Cwd})
	if err != nil {
		tb.Fatal(err)
	}
	const conns = 4
	var figures []memoryFigures
	done := 0
	for _, upTo := range memoryCheckpoints {
		var wg sync.WaitGroup
		errs := make(chan error, conns)
		for w := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := done + w; i < upTo; i += conns {
					c := calls[i%len(calls)]
					if c.Class == call.Shell && i%2 == 1 {
						c.Args = map[string]any{call.ArgCommand: c.String(call.ArgCommand) + " && echo " + strconv.Itoa(i)}
					}
					res, err := remote.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}, Record: true})
					if err == nil && len(res.NotRecorded) > 0 {
						err = res.NotRecorded[0]
					}
					if err != nil {
						errs <- fmt.Errorf("decision %d: %w", i, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			tb.Fatal(err)
		}
		done = upTo
		rss, hwm, err := readMemory(pid)
		if err != nil {
			tb.Fatal(err)
		}
		figures = append(figures, memoryFigures{decisions: upTo, rss: rss, hwm: hwm})
	}
	return figures
}

// checkMemory fails when the daemon's memory rose after its warm-up beyond the slack,
// and logs the figures.
func checkMemory(tb testing.TB, figures []memoryFigures) {
	tb.Helper()
	var warm memoryFigures
	for _, f := range figures {
		tb.Logf("after %7d decisions: VmRSS %6d KiB, VmHWM %6d KiB", f.decisions, f.rss, f.hwm)
		if f.decisions == 25_000 {
			warm = f
		}
	}
	last := figures[len(figures)-1]
	if last.rss > warm.rss+memorySlackKiB || last.hwm > warm.hwm+memorySlackKiB {
		tb.Errorf("the daemon's memory grew with its decisions: VmRSS %d → %d KiB, VmHWM %d → %d KiB from %d to %d decisions (slack %d KiB)",
			warm.rss, last.rss, warm.hwm, last.hwm, warm.decisions, last.decisions, memorySlackKiB)
	}
}

// The daemon's resident memory after 100,000 decisions is what it was after 25,000: its
// caches are bounded, and nothing is kept per decision.
func TestDaemonMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 decisions through the daemon")
	}
	e := newDaemonEnv(t)
	cmd, log := e.startDaemon(t)
	figures := daemonMemory(t, e, cmd.Process.Pid)
	checkMemory(t, figures)
	if t.Failed() {
		t.Logf("daemon log:\n%s", log)
	}
}

// BenchmarkDaemonMemory reports the daemon's memory after 25,000 and 100,000 decisions
// (run it with -benchtime=1x: each iteration is a daemon and 100,000 decisions).
func BenchmarkDaemonMemory(b *testing.B) {
	for b.Loop() {
		e := newDaemonEnv(b)
		cmd, _ := e.startDaemon(b)
		figures := daemonMemory(b, e, cmd.Process.Pid)
		checkMemory(b, figures)
		for _, f := range figures {
			if f.decisions == 25_000 || f.decisions == 100_000 {
				b.ReportMetric(float64(f.rss), fmt.Sprintf("rss-kib-%dk", f.decisions/1000))
				b.ReportMetric(float64(f.hwm), fmt.Sprintf("hwm-kib-%dk", f.decisions/1000))
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
}

// readMemory reads VmRSS and VmHWM (KiB) of process pid.
func readMemory(pid int) (rss, hwm int, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(value), " kB"))
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %q: %w", name, value, err)
		}
		if name == "VmRSS" {
			rss = kib
		} else {
			hwm = kib
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if rss == 0 || hwm == 0 {
		return 0, 0, fmt.Errorf("no VmRSS or VmHWM in /proc/%d/status", pid)
	}
	return rss, hwm, nil
}
