package auditdb

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// realistic returns record n of a realistic history: five agents, sessions of a few
// hundred calls, mostly allowed shell commands and file reads, some MCP calls and web
// fetches, a few asks and denials with findings, one call every three seconds.
func realistic(n int) audit.Record {
	agents := []string{"claude-code", "cursor", "gemini-cli", "codex", "windsurf"}
	commands := []string{
		"git status", "go test ./...", "ls -la", "npm install", "cat README.md", "rg TODO internal",
		"make build", "git diff --stat", "docker ps", "kubectl get pods", "python3 -m pytest -q",
		"curl -s localhost:8080/health", "git push origin main", "rm -rf build/", "terraform plan",
	}
	paths := []string{"internal/cli/ui.go", "README.md", "go.mod", "/etc/hosts", "docs/guide.md", "~/.ssh/config", ".env"}
	agent := agents[n%len(agents)]
	r := audit.Record{
		Time:      t0.Add(time.Duration(n) * 3 * time.Second),
		Agent:     agent,
		Session:   fmt.Sprintf("%s-%04d", agent, n/400),
		Event:     "pre_tool_use",
		Cwd:       fmt.Sprintf("/home/dev/src/project%d", n%9),
		Decision:  call.Allow,
		Rule:      fmt.Sprintf("allow-common-%d", n%11),
		LatencyMS: 0.4,
		Policy:    "/home/dev/src/project/moat.yaml",
	}
	switch k := n % 20; {
	case k < 11:
		cmd := commands[(n/7)%len(commands)]
		r.Class, r.Tool, r.Args = "shell", "Bash", map[string]any{"command": fmt.Sprintf("%s # step %d", cmd, n)}
	case k < 15:
		r.Class, r.Tool, r.Args = "file.read", "Read", map[string]any{"path": paths[n%len(paths)]}
	case k < 17:
		r.Class, r.Tool, r.Args = "file.edit", "Edit", map[string]any{"path": paths[n%len(paths)], "old": "a", "new": fmt.Sprint("b", n)}
	case k < 18:
		r.Class, r.Tool, r.Args = "web.fetch", "WebFetch", map[string]any{"url": fmt.Sprintf("https://pkg.go.dev/net/http?n=%d", n)}
	default:
		r.Class, r.Tool, r.MCP = "mcp", "mcp__github__create_issue", "mcp:github/create_issue"
		r.Args = map[string]any{"arguments": map[string]any{"title": fmt.Sprint("issue ", n), "body": "from the agent"}}
	}
	switch {
	case n%97 == 0:
		r.Decision, r.Rule, r.Reason = call.Deny, "deny-secrets-exfil", "reads a secret and sends it to the network"
		r.Findings = []call.Finding{{ID: "flow.secret-to-network", Category: "exfiltration", Severity: call.Critical, Evidence: "~/.ssh/id_ed25519 piped to curl"}}
	case n%13 == 0:
		r.Decision, r.Rule, r.Reason = call.Ask, "ask-destructive", "deletes files recursively"
		r.Findings = []call.Finding{{ID: "shell.recursive-delete", Category: "destructive", Severity: call.High, Evidence: "rm -rf build/"}}
	case n%29 == 0:
		r.Decision, r.Rule = call.Audit, "audit-network"
	case n%500 == 0:
		r.Failure, r.Decision, r.Rule = true, call.Deny, "fail-closed"
	}
	return r
}

// benchRecords is how many records the page-query benchmark stores.
const benchRecords = 100_000

// benchDB opens (read-only, as the dashboard does) a database of benchRecords realistic
// records in a temporary directory.
func benchDB(b *testing.B) *DB {
	path := filepath.Join(b.TempDir(), FileName)
	d := open(b, path, Options{})
	rs := make([]audit.Record, benchRecords)
	for n := range rs {
		rs[n] = realistic(n)
	}
	for chunk := range slices.Chunk(rs, 5000) {
		if err := d.AppendBatch(context.Background(), chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	return open(b, path, Options{ReadOnly: true})
}

// pageQueries are the queries the dashboard's live page makes: each filter alone, some
// combined, text searches that match often, rarely and never, and a page deep in the past.
var pageQueries = []struct {
	name string
	f    Filter
	p    Page
}{
	{"none", Filter{}, Page{}},
	{"decision=deny", Filter{Decisions: []call.Verdict{call.Deny}}, Page{}},
	{"decision=ask", Filter{Decisions: []call.Verdict{call.Ask}}, Page{}},
	{"agent", Filter{Agents: []string{"cursor"}}, Page{}},
	{"session", Filter{Sessions: []string{"codex-0100"}}, Page{}},
	{"rule", Filter{Rules: []string{"deny-secrets-exfil"}}, Page{}},
	{"tool=shell", Filter{Tools: []string{"shell"}}, Page{}},
	{"tool=mcp", Filter{Tools: []string{"mcp:github/create_issue"}}, Page{}},
	{"tool=WebFetch", Filter{Tools: []string{"webfetch"}}, Page{}},
	{"since=1h", Filter{Since: t0.Add(benchRecords*3*time.Second - time.Hour)}, Page{}},
	{"window=1h,old", Filter{Since: t0.Add(24 * time.Hour), Until: t0.Add(25 * time.Hour)}, Page{}},
	{"until=old", Filter{Until: t0.Add(24 * time.Hour)}, Page{}},
	{"failures", Filter{Failures: true}, Page{}},
	{"combined", Filter{Agents: []string{"codex"}, Decisions: []call.Verdict{call.Ask}, Tools: []string{"shell"}, Since: t0.Add(24 * time.Hour)}, Page{}},
	{"combined,rare", Filter{Agents: []string{"windsurf"}, Decisions: []call.Verdict{call.Deny}, Tools: []string{"mcp:github/create_issue"}}, Page{}},
	{"text=common", Filter{Text: "git status"}, Page{}},
	{"text=rare", Filter{Text: "step 4242 "}, Page{}},
	{"text=absent", Filter{Text: "no such text anywhere"}, Page{}},
	{"text+decision", Filter{Text: "id_ed25519", Decisions: []call.Verdict{call.Deny}}, Page{}},
	{"text+agent", Filter{Text: "terraform", Agents: []string{"gemini-cli"}}, Page{}},
	{"before=deep", Filter{}, Page{Before: 1000}},
	{"decision,before=deep", Filter{Decisions: []call.Verdict{call.Deny}}, Page{Before: 10_000}},
}

// BenchmarkPageQuery measures one page (100 records) of each query the dashboard's live
// page makes, on 100,000 realistic records. The dashboard's budget is well under 100 ms.
func BenchmarkPageQuery(b *testing.B) {
	d := benchDB(b)
	ctx := context.Background()
	for _, q := range pageQueries {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := d.Query(ctx, q.f, q.p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}
