package auditdb

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/logview"
)

// filled returns a database holding record(0, n) for n below count, and those records as
// they were stored.
func filled(t testing.TB, count int) (*DB, []audit.Record) {
	t.Helper()
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	rs := make([]audit.Record, count)
	for n := range rs {
		rs[n] = record(0, n)
	}
	for chunk := range slices.Chunk(rs, 5000) {
		if err := d.AppendBatch(context.Background(), chunk); err != nil {
			t.Fatal(err)
		}
	}
	return d, readAll(t, d)
}

// Query and Read select what `moat logs` selects (logview.Filter.Match) and, for the
// conditions logs has no flag for, what the condition says.
func TestQueryFilters(t *testing.T) {
	d, all := filled(t, 300)
	tests := []struct {
		name  string
		f     Filter
		match func(audit.Record) bool
	}{
		{"none", Filter{}, nil},
		{"decision", Filter{Decisions: []call.Verdict{call.Deny, call.Ask}}, nil},
		{"agent", Filter{Agents: []string{"cursor"}}, nil},
		{"session", Filter{Sessions: []string{"s1", "s3"}}, nil},
		{"since", Filter{Since: t0.Add(250 * time.Second)}, nil},
		{"failures", Filter{Failures: true}, nil},
		{"tool by native name, any case", Filter{Tools: []string{"bash"}}, nil},
		{"tool by class", Filter{Tools: []string{"FILE.READ"}}, nil},
		{"tool by MCP name", Filter{Tools: []string{"mcp:GitHub/create_issue"}}, nil},
		{"combined", Filter{Agents: []string{"claude-code", "codex"}, Decisions: []call.Verdict{call.Deny}, Tools: []string{"shell"}}, nil},
		{"until", Filter{Until: t0.Add(10 * time.Second)}, func(r audit.Record) bool { return r.Time.Before(t0.Add(10 * time.Second)) }},
		{"rule", Filter{Rules: []string{"rule-2"}}, func(r audit.Record) bool { return r.Rule == "rule-2" }},
		{"event", Filter{Events: []string{"nope"}}, func(audit.Record) bool { return false }},
		{"text", Filter{Text: "/etc/passwd"}, func(r audit.Record) bool { return r.Args["path"] == "/etc/passwd" }},
		{"text, short", Filter{Text: "s1"}, nil},
		{"text, case", Filter{Text: "BASH"}, nil},
		{"text, quote", Filter{Text: `"tool":"Read"`}, nil},
		{"text with others", Filter{Text: "ls -la", Agents: []string{"cursor"}, Until: t0.Add(200 * time.Second)}, nil},
	}
	for _, tt := range tests {
		if tt.match == nil && tt.f.Text != "" {
			// Text is what the stored line contains.
			text, rest := tt.f.Text, tt.f
			rest.Text = ""
			tt.match = func(r audit.Record) bool {
				line, err := json.Marshal(r)
				return err == nil && strings.Contains(string(line), text) && filterMatch(rest, r)
			}
		}
		for _, window := range []int{0, 1, 10} {
			d.pageWindow = window
			t.Run(fmt.Sprintf("%s/window=%d", tt.name, window), func(t *testing.T) {
				match := tt.match
				if match == nil {
					lf := logview.Filter{Since: tt.f.Since, Decisions: tt.f.Decisions, Agents: tt.f.Agents, Sessions: tt.f.Sessions, Tools: tt.f.Tools, Failures: tt.f.Failures}
					match = lf.Match
				}
				var want []audit.Record
				for _, r := range all {
					if match(r) {
						want = append(want, r)
					}
				}
				var got []audit.Record
				if _, err := d.Read(context.Background(), tt.f, 0, func(r audit.Record) error { got = append(got, r); return nil }); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("Read selected %d records, want %d", len(got), len(want))
				}
				// Query: the same records, newest first, in pages of 7.
				var paged []audit.Record
				p := Page{Limit: 7}
				for {
					res, err := d.Query(context.Background(), tt.f, p)
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Records) > 7 {
						t.Fatalf("a page of %d records", len(res.Records))
					}
					paged = append(paged, res.Records...)
					if res.Next == 0 {
						break
					}
					p.Before = res.Next
				}
				slices.Reverse(paged)
				if !reflect.DeepEqual(paged, want) {
					t.Fatalf("Query selected %d records, want %d", len(paged), len(want))
				}
			})
		}
	}
}

// filterMatch is what f selects, for the conditions both f and logview.Filter have, and
// Until.
func filterMatch(f Filter, r audit.Record) bool {
	lf := logview.Filter{Since: f.Since, Decisions: f.Decisions, Agents: f.Agents, Sessions: f.Sessions, Tools: f.Tools, Failures: f.Failures}
	return lf.Match(r) && (f.Until.IsZero() || r.Time.Before(f.Until))
}

// The --tool filter folds case as strings.EqualFold does, beyond ASCII too.
func TestFoldKey(t *testing.T) {
	pairs := [][2]string{{"Bash", "bASH"}, {"K", "\u212a"}, {"ſ", "S"}, {"Straße", "STRASSE"}, {"mcp:GitHub/x", "MCP:github/X"}}
	for _, p := range pairs {
		if got, want := foldKey(p[0]) == foldKey(p[1]), strings.EqualFold(p[0], p[1]); got != want {
			t.Errorf("foldKey(%q) == foldKey(%q) is %v, EqualFold says %v", p[0], p[1], got, want)
		}
	}
}

// BenchmarkQueryFiltered measures one page of a filtered query (deny decisions of one
// agent, by tool) on 100,000 records.
func BenchmarkQueryFiltered(b *testing.B) {
	d, _ := filled(b, 100_000)
	f := Filter{Decisions: []call.Verdict{call.Deny}, Agents: []string{"codex"}, Tools: []string{"shell"}, Since: t0.Add(time.Hour)}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		res, err := d.Query(ctx, f, Page{Limit: 50})
		if err != nil || len(res.Records) != 50 {
			b.Fatalf("%d records, %v", len(res.Records), err)
		}
	}
}

// BenchmarkAppend measures storing one record, a transaction of its own.
func BenchmarkAppend(b *testing.B) {
	d := open(b, filepath.Join(b.TempDir(), FileName), Options{})
	ctx := context.Background()
	n := 0
	for b.Loop() {
		if err := d.Append(ctx, record(0, n)); err != nil {
			b.Fatal(err)
		}
		n++
	}
}

// BenchmarkAppendBatch measures storing one record within batches of 100.
func BenchmarkAppendBatch(b *testing.B) {
	d := open(b, filepath.Join(b.TempDir(), FileName), Options{})
	ctx := context.Background()
	batch := make([]audit.Record, 100)
	for i := range batch {
		batch[i] = record(0, i)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := d.AppendBatch(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/record")
}
