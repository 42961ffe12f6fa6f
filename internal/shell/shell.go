// Package shell analyses a shell command line into the commands it would run and what each does.
package shell

import (
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// MaxInput is the largest line Analyze parses, in bytes. A larger line is reported, not
// parsed: a hook must answer quickly, and no agent writes a megabyte of shell.
const MaxInput = 1 << 20

// maxNesting bounds how deeply brackets may nest in a line that is parsed. The parser's time
// grows faster than the input with nesting (10,000 nested `$(` take about 30 ms), while
// commands that people and agents write nest a few levels.
const maxNesting = 500

// Finding ids this package reports.
const (
	findParseError      = "shell.parse-error"
	findTooDeep         = "shell.too-deep"
	findTooLarge        = "input.too-large"
	findNulByte         = "evasion.nul-byte"
	findDynamicCommand  = "evasion.dynamic-command"
	findRecursiveDelete = "destructive.fs.recursive-delete"
)

// findingIDs lists every id the package reports, so that a test keeps them catalogued.
var findingIDs = []string{findParseError, findTooDeep, findTooLarge, findNulByte, findDynamicCommand, findRecursiveDelete}

// Env is where a line runs.
type Env struct {
	Cwd  string // absolute working directory
	Home string // absolute home directory
}

// Analysis is what a line would do.
type Analysis struct {
	Commands []call.Command // every command the line would run, in source order
	Findings []call.Finding // findings about the line as a whole (parse error, too large)
}

// Analyze parses line as bash and returns every command it would run, with their flags,
// operands, path accesses and findings. It never fails: a line that cannot be analysed
// yields a finding that says why, and no commands. Paths are resolved against env; a Cwd
// or Home that is not absolute is treated as unknown.
func Analyze(line string, env Env) Analysis {
	if len(line) > MaxInput {
		return lineFinding(findTooLarge, fmt.Sprintf("shell command of %d bytes; at most %d are analysed", len(line), MaxInput))
	}
	if d := nesting(line); d > maxNesting {
		return lineFinding(findTooDeep, fmt.Sprintf("brackets nest %d deep; at most %d are analysed", d, maxNesting))
	}
	p := syntax.NewParser(syntax.KeepComments(false), syntax.Variant(syntax.LangBash))
	f, err := p.Parse(strings.NewReader(line), "")
	if err != nil {
		return lineFinding(findParseError, err.Error())
	}
	a := newAnalyzer(line, env, f)
	a.run()
	var res Analysis
	if len(a.cmds) > 0 {
		res.Commands = a.cmds
	}
	if i := strings.IndexByte(line, 0); i >= 0 {
		// The parser drops NUL bytes, as bash does reading a script from standard input;
		// bash -c cannot receive them, and other readers stop at the first one.
		res.Findings = append(res.Findings, call.NewFinding(findNulByte, fmt.Sprintf("NUL byte at offset %d", i)))
	}
	return res
}

func lineFinding(id, evidence string) Analysis {
	return Analysis{Findings: []call.Finding{call.NewFinding(id, evidence)}}
}

// nesting returns how deeply brackets nest in s, counting every bracket, quoted or not: an
// upper bound on the nesting of the syntax tree that costs one pass over the bytes.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}
