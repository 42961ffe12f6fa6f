package engine

import (
	"context"
	"fmt"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// TestResult is the outcome of one inline policy test.
type TestResult struct {
	Test     policy.Test
	Decision call.Decision
	Trace    *Trace
	// Failure says what went wrong; empty when the test passed.
	Failure string
}

// Passed reports whether the test passed.
func (r TestResult) Passed() bool { return r.Failure == "" }

// RunTests evaluates each test's call and compares the decision with the expected one. A
// test that names no working directory runs in dir, which is also its project.
func (e *Engine) RunTests(ctx context.Context, tests []policy.Test, dir string) []TestResult {
	results := make([]TestResult, 0, len(tests))
	for _, t := range tests {
		c := t.Call
		c.Args = cloneArgs(c.Args)
		if c.Cwd == "" {
			c.Cwd, c.Project = dir, dir
		} else {
			c.Cwd = e.resolvePath(c.Cwd, dir)
		}
		d, tr := e.Explain(ctx, c)
		r := TestResult{Test: t, Decision: d, Trace: tr}
		switch {
		case d.Verdict != t.Expect:
			r.Failure = fmt.Sprintf("expected %s, got %s (rule %s)", t.Expect, d.Verdict, d.Rule)
		case t.Rule != "" && d.Rule != t.Rule:
			r.Failure = fmt.Sprintf("expected rule %s to decide, but %s did (%s)", t.Rule, d.Rule, d.Verdict)
		}
		results = append(results, r)
	}
	return results
}

// cloneArgs copies the top level of a test's arguments, so that evaluating a test cannot
// change the policy's copy.
func cloneArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = v
	}
	return out
}
