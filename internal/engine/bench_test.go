package engine

import (
	"bufio"
	"context"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fileid"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/policy"
)

// benchCalls reads the realistic mix of calls in testdata/bench_calls.jsonl: ordinary
// development commands and file edits, with the dangerous ones an agent sometimes tries.
func benchCalls(tb testing.TB) []call.Call {
	tb.Helper()
	f, err := os.Open("testdata/bench_calls.jsonl")
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
		c.Project = "/home/u/project"
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(calls) < 100 {
		tb.Fatalf("only %d calls in the benchmark corpus", len(calls))
	}
	return calls
}

func recommendedEngine(tb testing.TB) *Engine {
	tb.Helper()
	return recommendedEngineWith(tb, nil)
}

// recommendedEngineWith is recommendedEngine with the file system written paths are
// resolved in (nil: the machine's).
func recommendedEngineWith(tb testing.TB, files fileid.FS) *Engine {
	tb.Helper()
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := policy.Load(policy.EmbeddedPrefix+policy.DefaultTemplate, data, testHost())
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(p, Options{Host: testHost(), Files: files})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// noFiles is a file system that holds only its root: resolving a written path in it costs
// no system call, so that a benchmark measures analysis and decision alone.
type noFiles struct{ root fs.FileInfo }

func newNoFiles(tb testing.TB) noFiles {
	root, err := os.Lstat("/")
	if err != nil {
		tb.Fatal(err)
	}
	return noFiles{root}
}

func (f noFiles) Lstat(name string) (fs.FileInfo, error) {
	if name == "/" {
		return f.root, nil
	}
	return nil, fs.ErrNotExist
}
func (f noFiles) Stat(name string) (fs.FileInfo, error)  { return f.Lstat(name) }
func (noFiles) EvalSymlinks(name string) (string, error) { return name, nil }
func (noFiles) Readlink(string) (string, error)          { return "", fs.ErrInvalid }
func (noFiles) ReadDir(string) ([]fs.DirEntry, error)    { return nil, fs.ErrNotExist }

// BenchmarkEvaluate reports the cost of one decision, averaged over the corpus, against the
// embedded recommended policy. Target: under 20 µs per call on one core.
func BenchmarkEvaluate(b *testing.B) {
	e := recommendedEngine(b)
	calls := benchCalls(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		e.Evaluate(ctx, calls[i%len(calls)])
	}
}

// BenchmarkEvaluateManyRules checks that rules for other classes cost nothing: the same
// file-read calls against the recommended policy with 500 extra MCP rules.
func BenchmarkEvaluateManyRules(b *testing.B) {
	src := "version: 1\ndefault: allow\npacks: [recommended]\nrules:\n"
	for i := range 500 {
		src += "  - {id: mcp-" + strconv.Itoa(i) + ", tool: 'mcp:server" + strconv.Itoa(i) + "/*', decision: deny}\n"
	}
	for _, tc := range []struct {
		name string
		src  string
	}{{"recommended", "version: 1\ndefault: allow\npacks: [recommended]\n"}, {"plus500mcp", src}} {
		b.Run(tc.name, func(b *testing.B) {
			e := newEngine(b, tc.src)
			c := call.Call{Class: call.FileRead, Tool: "Read", Args: map[string]any{"path": "/home/u/project/src/main.go"}, Cwd: "/home/u/project"}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				e.Evaluate(ctx, c)
			}
		})
	}
}

// BenchmarkShellDecision measures analysis plus decision of one shell command, over the
// ordinary developer commands of the corpus (testdata/shell/dev-*.yaml), and reports the
// median time per command besides the mean. Target: a median under 20 µs on one core.
// The sub-benchmark "analysis" resolves written paths in a file system that costs no
// system call; the whole benchmark adds the identity of every written path on the
// machine's (internal/fileid: a few lstat calls per path).
func BenchmarkShellDecision(b *testing.B) {
	b.Run("analysis", func(b *testing.B) { benchShellDecision(b, recommendedEngineWith(b, newNoFiles(b))) })
	b.Run("with-files", func(b *testing.B) { benchShellDecision(b, recommendedEngine(b)) })
}

func benchShellDecision(b *testing.B, e *Engine) {
	var calls []call.Call
	for _, f := range []string{"testdata/shell/dev-ordinary.yaml", "testdata/shell/dev-files.yaml"} {
		cases, err := loadShellCases(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range cases {
			cl, err := corpusCall(c.Cmd)
			if err != nil {
				b.Fatal(err)
			}
			calls = append(calls, cl)
		}
	}
	ctx := context.Background()
	durations := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		e.Evaluate(ctx, calls[i%len(calls)])
		if len(durations) < cap(durations) {
			durations = append(durations, time.Since(start))
		}
	}
	b.StopTimer()
	slices.Sort(durations)
	if len(durations) > 0 {
		b.ReportMetric(float64(durations[len(durations)/2].Nanoseconds()), "p50-ns/op")
		b.ReportMetric(float64(durations[len(durations)*99/100].Nanoseconds()), "p99-ns/op")
	}
}

// BenchmarkWriteLargeFile decides a write of 1 MiB of ordinary Go source (from GOROOT)
// and, for comparison, the same text written into an agent instruction file, which is
// also read for prompt injection. The target for ordinary source is 5 ms.
func BenchmarkWriteLargeFile(b *testing.B) {
	var text []byte
	err := filepath.WalkDir(filepath.Join(build.Default.GOROOT, "src", "net", "http"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || len(text) >= 1<<20 {
			return err
		}
		src, err := os.ReadFile(path)
		text = append(text, src...)
		return err
	})
	if err != nil || len(text) < 1<<20 {
		b.Skipf("not enough Go source in GOROOT: %v", err)
	}
	content := string(text[:1<<20])
	e := recommendedEngine(b)
	for _, path := range []string{"/home/u/project/server.go", "/home/u/project/CLAUDE.md"} {
		b.Run(filepath.Base(path), func(b *testing.B) {
			c := toolCall(b, "Write", map[string]any{"file_path": path, "content": content}, "/home/u/project")
			c.Project = "/home/u/project"
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				e.Evaluate(context.Background(), c)
			}
		})
	}
}
