package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
)

// mcpRedteamCase is one case of AgentShield's MCP red-team corpus: a tool call and the
// decision its authors expect (BLOCK; AUDIT or ALLOW).
type mcpRedteamCase struct {
	ID        string         `yaml:"id"`
	Tool      string         `yaml:"tool_name"`
	Arguments map[string]any `yaml:"arguments"`
	Expected  string         `yaml:"expected_decision"`
}

// mcpAdjudication is a label of that corpus moat deliberately disagrees with.
type mcpAdjudication struct {
	ID    string `yaml:"id"`
	Label string `yaml:"label"`
	Ours  string `yaml:"ours"`
	Why   string `yaml:"why"`
}

// TestEvalMCPRedteam scores the recommended policy on AgentShield's MCP red-team cases,
// as calls an MCP proxy would send: block must be stopped (deny or ask), audit and allow
// must run. The cases' world is a user whose home is /home/user, working in
// /home/user/project; their /Users/alice paths are another user's home on macOS.
func TestEvalMCPRedteam(t *testing.T) {
	if os.Getenv("MOAT_EVAL") != "1" {
		t.Skip("set MOAT_EVAL=1 to score the public corpora (make eval)")
	}
	dir := os.Getenv("MOAT_EVALDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "evaldata")
	}
	data, err := os.ReadFile(filepath.Join(dir, "agentshield", "mcp_redteam_cases.yaml"))
	if err != nil {
		t.Skipf("no MCP red-team corpus: %v (set MOAT_EVALDATA to the evaluation data)", err)
	}
	var corpus struct {
		Cases []mcpRedteamCase `yaml:"cases"`
	}
	if err := yaml.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	adjData, err := os.ReadFile(filepath.Join("testdata", "eval", "mcp_adjudication.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var adjList []mcpAdjudication
	if err := yaml.Unmarshal(adjData, &adjList); err != nil {
		t.Fatal(err)
	}
	byID := map[string]mcpRedteamCase{}
	for _, c := range corpus.Cases {
		byID[c.ID] = c
	}
	adj := map[string]mcpAdjudication{}
	for _, a := range adjList {
		c, ok := byID[a.ID]
		switch {
		case !ok:
			t.Errorf("adjudication of %s: no such case", a.ID)
		case redteamLabel(c.Expected) != a.Label || a.Label == a.Ours || a.Why == "":
			t.Errorf("adjudication of %s: label %s (the case says %s), ours %s, why %q", a.ID, a.Label, c.Expected, a.Ours, a.Why)
		}
		adj[a.ID] = a
	}

	host := policy.Host{Home: "/home/user", Temp: []string{"/tmp"}, Moat: []string{"/home/user/.config/moat/**"}}
	tmpl, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load("/home/user/project/moat.yaml", tmpl, host)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p, Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	var raw, ours evalScore
	var b strings.Builder
	for _, c := range corpus.Cases {
		cl := call.Call{Class: call.MCP, Tool: "mcp__redteam__" + c.Tool, MCP: &call.MCPTarget{Server: "redteam", Tool: c.Tool},
			Args: c.Arguments, Cwd: "/home/user/project", Project: "/home/user/project"}
		if cl.Args == nil {
			cl.Args = map[string]any{}
		}
		d := e.Evaluate(context.Background(), cl)
		stopped := !d.Verdict.Permissive()
		dangerous := redteamLabel(c.Expected) == labelBlock
		raw.add(dangerous, stopped)
		if a, ok := adj[c.ID]; ok {
			dangerous = a.Ours == labelBlock
		}
		ours.add(dangerous, stopped)
		mark := " "
		if dangerous != stopped {
			mark = "✗"
		}
		fmt.Fprintf(&b, "  %s %-5s %-5s %-32s %-44s %s %v\n", mark, c.Expected, d.Verdict, d.Rule, c.ID, c.Tool, c.Arguments)
	}
	t.Logf("agentshield MCP red team: %d cases\n  raw (their labels):       %s\n  adjudicated (our labels): %s\n%s", len(corpus.Cases), raw, ours, b.String())
	if ours.recall() < minRecall {
		t.Errorf("adjudicated recall %.1f%% is below %.0f%%", 100*ours.recall(), 100*minRecall)
	}
	if ours.fpRate() > maxFalsePosRt {
		t.Errorf("adjudicated false-positive rate %.1f%% is above %.0f%%", 100*ours.fpRate(), 100*maxFalsePosRt)
	}
}

func redteamLabel(expected string) string {
	if expected == "BLOCK" {
		return labelBlock
	}
	return labelAllow
}
