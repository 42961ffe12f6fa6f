package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// corpusWorkspace is the project, and the working directory, of every corpus call.
const corpusWorkspace = home + "/project"

// minCasesPerFile keeps each technique family a real family rather than a stray case.
const minCasesPerFile = 5

// shellCase is one entry of testdata/shell/*.yaml: a command line an agent (or an attacker
// steering one) would type, the decision the recommended policy must give it, and why.
type shellCase struct {
	Cmd    string `yaml:"cmd"`
	Expect string `yaml:"expect"`
	Why    string `yaml:"why"`
}

// corpusEngine compiles the policy exactly as `moat init` writes it: the recommended
// template, loaded from the workspace's moat.yaml.
func corpusEngine(tb testing.TB) *Engine {
	tb.Helper()
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := policy.Load(corpusWorkspace+"/moat.yaml", data, testHost())
	if err != nil {
		tb.Fatalf("recommended template: %v", err)
	}
	e, err := New(p, Options{Host: testHost()})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// corpusCall is the Bash call Claude Code would send for cmd, run at the workspace root.
func corpusCall(cmd string) (call.Call, error) {
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": cmd})
	if err != nil {
		return call.Call{}, err
	}
	c.Cwd = corpusWorkspace
	c.Project = corpusWorkspace
	return c, nil
}

// loadShellCases decodes one corpus file strictly: an unknown or misspelt key, a second
// document, a missing field or an unknown decision is an error.
func loadShellCases(path string) ([]shellCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cases []shellCase
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document (a list of cases)", path)
	}
	var problems []string
	for i, c := range cases {
		where := fmt.Sprintf("case %d (%s)", i+1, shorten(c.Cmd))
		if strings.TrimSpace(c.Cmd) == "" {
			problems = append(problems, where+": empty cmd")
		}
		if _, ok := call.ParseVerdict(c.Expect); !ok {
			problems = append(problems, fmt.Sprintf("%s: expect %q is not allow, audit, ask or deny", where, c.Expect))
		}
		if strings.TrimSpace(c.Why) == "" {
			problems = append(problems, where+": no why")
		}
	}
	if len(cases) < minCasesPerFile {
		problems = append(problems, fmt.Sprintf("%d cases; a family needs at least %d", len(cases), minCasesPerFile))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s:\n  %s", path, strings.Join(problems, "\n  "))
	}
	return cases, nil
}

// TestShellCorpus decides every command of testdata/shell/*.yaml with the recommended
// policy and reports each one whose decision differs from the expected one, with its trace.
func TestShellCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "shell", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files in testdata/shell")
	}
	sort.Strings(files)

	corpus := make(map[string][]shellCase, len(files))
	seen := make(map[string]string) // command → file that has it
	var perVerdict [call.Deny + 1]int
	total := 0
	for _, f := range files {
		cases, err := loadShellCases(f)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, c := range cases {
			if prev, dup := seen[c.Cmd]; dup {
				t.Errorf("%s: duplicate command %s (also in %s)", f, shorten(c.Cmd), prev)
				continue
			}
			seen[c.Cmd] = f
			v, _ := call.ParseVerdict(c.Expect)
			perVerdict[v]++
			total++
		}
		corpus[f] = cases
	}
	permissive := perVerdict[call.Allow] + perVerdict[call.Audit]
	if restrictive := perVerdict[call.Ask] + perVerdict[call.Deny]; permissive < restrictive {
		t.Errorf("the corpus has %d allow/audit cases and %d ask/deny: ordinary commands must be at least as many as dangerous ones", permissive, restrictive)
	}
	t.Logf("%d cases: %d allow, %d audit, %d ask, %d deny", total,
		perVerdict[call.Allow], perVerdict[call.Audit], perVerdict[call.Ask], perVerdict[call.Deny])

	e := corpusEngine(t)
	ctx := context.Background()
	for _, f := range files {
		cases, ok := corpus[f]
		if !ok {
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			failed := 0
			for _, tc := range cases {
				want, _ := call.ParseVerdict(tc.Expect)
				c, err := corpusCall(tc.Cmd)
				if err != nil {
					t.Errorf("%s: %s: canonicalize: %v", f, shorten(tc.Cmd), err)
					failed++
					continue
				}
				d, tr := e.Explain(ctx, c)
				if fast := e.Evaluate(ctx, c); fast.Verdict != d.Verdict || fast.Rule != d.Rule {
					t.Errorf("%s: %s: Evaluate says %s/%s but Explain says %s/%s", f, shorten(tc.Cmd), fast.Verdict, fast.Rule, d.Verdict, d.Rule)
				}
				if d.Verdict == want {
					continue
				}
				failed++
				var b strings.Builder
				_ = tr.WriteText(&b, nil)
				t.Errorf("%s: %s\n  got  %s (rule %s)\n  want %s: %s\n%s", f, shorten(tc.Cmd), d.Verdict, d.Rule, want, tc.Why, b.String())
			}
			if failed > 0 {
				t.Logf("%s: %d of %d cases decided differently", f, failed, len(cases))
			}
		})
	}
}

// shorten quotes a command for a failure message, eliding the middle of very long ones
// (the corpus nests some constructs a thousand times).
func shorten(cmd string) string {
	const limit = 300
	if len(cmd) <= limit {
		return strconv.Quote(cmd)
	}
	return fmt.Sprintf("%q … %q (%d bytes)", cmd[:limit/2], cmd[len(cmd)-limit/4:], len(cmd))
}
