// Package textdiff shows what turns one text into another as a unified diff of lines.
package textdiff

import (
	"fmt"
	"strings"
)

// Unified shows what turns old into new as a unified diff of lines, without file headers:
// hunks of changed lines ("-" old, "+" new) with three lines of context. It is empty
// when the texts are equal. Every diff moat shows (setup --dry-run, mcp wrap --dry-run,
// trust --diff) is made here.
//
// It finds a shortest edit script with Myers' algorithm, in time and memory that grow
// with the size of the change, not of the file: ~/.claude.json runs to many thousands
// of lines, of which wrapping changes a few.
func Unified(old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(a, b)
	var out strings.Builder
	const context = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before this change to context lines after the
		// last change that is no more than 2*context lines from the one before it.
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(ops), end+context)
		aStart, bStart, aLen, bLen := ops[start].a, ops[start].b, 0, 0
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[start:end] {
			var line string
			if op.kind == '+' {
				line = b[op.b]
			} else {
				line = a[op.a]
			}
			out.WriteByte(op.kind)
			out.WriteString(strings.TrimSuffix(line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange writes a hunk's start and length as unified diffs do: 1-based, and for an
// empty range the line before it.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits text into lines that keep their "\n", so that a last line without
// one differs from the same line with one.
func splitLines(text string) []string {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of an edit script: kept (' '), removed ('-') or added ('+'), with
// the indexes of the old and new lines it stands at.
type diffOp struct {
	kind byte
	a, b int
}

// maxEdits bounds the edit scripts myers searches, and so its memory (which grows with
// the square of the script's length). Texts further apart are shown as the removal of
// all their differing lines and the addition of the others.
const maxEdits = 2000

// lineOps is an edit script turning a into b.
func lineOps(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for i := range pre {
		ops = append(ops, diffOp{' ', i, i})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(am, bm)
	if !ok {
		mid = mid[:0]
		for i := range am {
			mid = append(mid, diffOp{'-', i, 0})
		}
		for j := range bm {
			mid = append(mid, diffOp{'+', len(am), j})
		}
	}
	for _, op := range mid {
		ops = append(ops, diffOp{op.kind, op.a + pre, op.b + pre})
	}
	for i := range suf {
		ops = append(ops, diffOp{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers finds a shortest edit script, if it is no longer than maxEdits.
func myers(a, b []string) ([]diffOp, bool) {
	n, m := len(a), len(b)
	limit := min(n+m, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] holds v[-d..d] after step d, to walk the path back.
	var trace [][]int
	found := false
	for d := 0; d <= limit && !found; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
			}
		}
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
	}
	if !found {
		return nil, false
	}
	var ops []diffOp
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		at := func(k int) int { return prev[k+d-1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			ops = append(ops, diffOp{' ', x, y})
		}
		if x == px {
			y--
			ops = append(ops, diffOp{'+', x, y})
		} else {
			x--
			ops = append(ops, diffOp{'-', x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		ops = append(ops, diffOp{' ', x, y})
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops, true
}

// WithHeaders is Unified under the ---/+++ lines that name the two texts, as diff -u and
// patch expect them; empty when the texts are equal.
func WithHeaders(oldName, old, newName, new string) string {
	d := Unified(old, new)
	if d == "" {
		return ""
	}
	return "--- " + oldName + "\n+++ " + newName + "\n" + d
}
