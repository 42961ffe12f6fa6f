package engine

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/protocol"
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
		req, err := protocol.Decode(sc.Bytes())
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
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := policy.Load(policy.EmbeddedPrefix+policy.DefaultTemplate, data, testHost())
	if err != nil {
		tb.Fatal(err)
	}
	e, err := New(p, Options{Host: testHost()})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

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
