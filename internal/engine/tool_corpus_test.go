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
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
)

// toolCase is one entry of testdata/tools/*.yaml: a tool call an agent (or an attacker
// steering one) would make through a tool other than the shell (a web fetch, an MCP
// tool, named as Claude Code names it), the decision the recommended policy must give
// it, and why.
type toolCase struct {
	Tool   string         `yaml:"tool"`
	Args   map[string]any `yaml:"args"`
	Expect string         `yaml:"expect"`
	Why    string         `yaml:"why"`
}

func (c toolCase) String() string { return fmt.Sprintf("%s %v", c.Tool, c.Args) }

// loadToolCases decodes one corpus file strictly, as loadShellCases does.
func loadToolCases(path string) ([]toolCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cases []toolCase
	if err := dec.Decode(&cases); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: want one YAML document (a list of cases)", path)
	}
	var problems []string
	for i, c := range cases {
		where := fmt.Sprintf("case %d (%s)", i+1, c)
		if c.Tool == "" || c.Args == nil {
			problems = append(problems, where+": no tool or no args")
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

// TestToolCorpus decides every call of testdata/tools/*.yaml with the recommended policy,
// as Claude Code's hook would send it from the workspace, and reports each one whose
// decision differs from the expected one, with its trace.
func TestToolCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "tools", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files in testdata/tools")
	}
	sort.Strings(files)
	e := corpusEngine(t)
	ctx := context.Background()
	var perVerdict [call.Deny + 1]int
	seen := map[string]string{}
	for _, f := range files {
		cases, err := loadToolCases(f)
		if err != nil {
			t.Error(err)
			continue
		}
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			for _, tc := range cases {
				if prev, dup := seen[tc.String()]; dup {
					t.Errorf("duplicate case %s (also in %s)", tc, prev)
				}
				seen[tc.String()] = f
				want, _ := call.ParseVerdict(tc.Expect)
				perVerdict[want]++
				c, err := call.Canonicalize(call.ClaudeCode, tc.Tool, tc.Args)
				if err != nil {
					t.Errorf("%s: canonicalize: %v", tc, err)
					continue
				}
				c.Cwd, c.Project = corpusWorkspace, corpusWorkspace
				d, tr := e.Explain(ctx, c)
				if fast := e.Evaluate(ctx, c); fast.Verdict != d.Verdict || fast.Rule != d.Rule {
					t.Errorf("%s: Evaluate says %s/%s but Explain says %s/%s", tc, fast.Verdict, fast.Rule, d.Verdict, d.Rule)
				}
				if d.Verdict != want {
					var b strings.Builder
					_ = tr.WriteText(&b, nil)
					t.Errorf("%s\n  got  %s (rule %s)\n  want %s: %s\n%s", tc, d.Verdict, d.Rule, want, tc.Why, b.String())
				}
			}
		})
	}
	t.Logf("%d allow, %d audit, %d ask, %d deny", perVerdict[call.Allow], perVerdict[call.Audit], perVerdict[call.Ask], perVerdict[call.Deny])
}
