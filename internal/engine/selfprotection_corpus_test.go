package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// selfProtectionClasses are the routes by which an agent could undo, bypass or outlive
// moat (issue 18), each with the corpus files that attack it. TestShellCorpus and
// TestToolCorpus check every case's decision; this test checks that the attacks are many,
// spread over every class, denied rather than merely asked, and each class has benign
// neighbours that stay allowed.
var selfProtectionClasses = []struct {
	name        string
	shell, tool []string
	// selfRule says the class's attacks must be denied by self-protection itself, which
	// no policy can loosen; otherwise by any rule of the recommended policy.
	selfRule bool
}{
	{name: "moat's own commands", shell: []string{"moat-cli.yaml"}, selfRule: true},
	{name: "moat's files and state", shell: []string{"self-protection.yaml"}, selfRule: true},
	{name: "links, renames and editing tools", shell: []string{"file-identity.yaml"}, selfRule: true},
	{name: "interpreter file APIs", shell: []string{"interpreter-code.yaml"}, selfRule: true},
	{name: "second agents", shell: []string{"second-agents.yaml"}, selfRule: true},
	{name: "containers", shell: []string{"containers.yaml"}},
	{name: "planted code", shell: []string{"planted.yaml"}, tool: []string{"planted.yaml"}},
	{name: "MCP arguments and web fetches", tool: []string{"mcp-destructive.yaml", "mcp-outbound.yaml", "mcp-sql.yaml", "webfetch.yaml"}},
}

// minAttacks is how many distinct denied attacks the corpus must hold in all (issue 18's
// acceptance), and minPerClass how many each class must.
const (
	minAttacks  = 60
	minPerClass = 5
)

func TestSelfProtectionAttackCorpus(t *testing.T) {
	e := corpusEngine(t)
	ctx := context.Background()
	total := 0
	for _, class := range selfProtectionClasses {
		var decided []struct {
			d    call.Decision
			want call.Verdict
		}
		for _, f := range class.shell {
			cases, err := loadShellCases(filepath.Join("testdata", "shell", f))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range cases {
				c, err := corpusCall(tc.Cmd)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := call.ParseVerdict(tc.Expect)
				decided = append(decided, struct {
					d    call.Decision
					want call.Verdict
				}{e.Evaluate(ctx, c), want})
			}
		}
		for _, f := range class.tool {
			cases, err := loadToolCases(filepath.Join("testdata", "tools", f))
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range cases {
				c, err := call.Canonicalize(call.ClaudeCode, tc.Tool, tc.Args)
				if err != nil {
					t.Fatal(err)
				}
				c.Cwd, c.Project = corpusWorkspace, corpusWorkspace
				want, _ := call.ParseVerdict(tc.Expect)
				decided = append(decided, struct {
					d    call.Decision
					want call.Verdict
				}{e.Evaluate(ctx, c), want})
			}
		}
		denied, allowed := 0, 0
		for _, x := range decided {
			switch {
			case x.want == call.Deny && x.d.Verdict == call.Deny && (!class.selfRule || strings.HasPrefix(x.d.Rule, "self-protection.")):
				denied++
			case x.want == call.Allow && x.d.Verdict == call.Allow:
				allowed++
			}
		}
		t.Logf("%s: %d attacks denied, %d benign neighbours allowed", class.name, denied, allowed)
		if denied < minPerClass {
			t.Errorf("%s: %d attacks denied%s; want at least %d", class.name, denied, map[bool]string{true: " by self-protection", false: ""}[class.selfRule], minPerClass)
		}
		if allowed == 0 {
			t.Errorf("%s: no benign neighbour stays allowed", class.name)
		}
		total += denied
	}
	if total < minAttacks {
		t.Errorf("%d attacks denied in all; want at least %d", total, minAttacks)
	}
	t.Logf("%d attacks denied in all", total)
}
