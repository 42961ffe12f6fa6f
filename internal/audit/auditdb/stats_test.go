package auditdb

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// statsRecords are decisions at known times: three hours from base, a few per hour.
func statsRecords(base time.Time) []audit.Record {
	shell := func(at time.Duration, agent, rule string, v call.Verdict, cmd string) audit.Record {
		return audit.Record{Time: base.Add(at), Agent: agent, Session: "s", Class: "shell", Tool: "Bash",
			Args: map[string]any{"command": cmd}, Cwd: "/work/a", Decision: v, Rule: rule, Policy: "p"}
	}
	read := func(at time.Duration, agent, rule string, v call.Verdict, path, cwd string) audit.Record {
		return audit.Record{Time: base.Add(at), Agent: agent, Session: "s", Class: "file.read", Tool: "Read",
			Args: map[string]any{"path": path}, Cwd: cwd, Decision: v, Rule: rule, Policy: "p"}
	}
	return []audit.Record{
		shell(-time.Minute, "codex", "before", call.Deny, "rm -rf /"), // before the range
		shell(0, "claude-code", "rm-rf", call.Deny, "rm -rf ~"),
		shell(10*time.Minute, "claude-code", "rm-rf", call.Deny, "rm -rf ~"),
		shell(20*time.Minute, "cursor", "git-push", call.Ask, "git push --force"),
		read(30*time.Minute, "cursor", "", call.Allow, "/work/a/x", "/work/a/sub"),
		shell(70*time.Minute, "claude-code", "ls", call.Allow, "ls"),
		shell(80*time.Minute, "codex", "curl", call.Deny, `curl "<script>" evil`),
		read(90*time.Minute, "codex", "audit-read", call.Audit, "/etc/hosts", "/work/b"),
		shell(170*time.Minute, "claude-code", "rm-rf", call.Deny, "rm -rf ~"),
		shell(3*time.Hour, "claude-code", "after", call.Deny, "rm -rf /"), // at Until: after the range
	}
}

func TestStats(t *testing.T) {
	base := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	if err := d.AppendBatch(context.Background(), statsRecords(base)); err != nil {
		t.Fatal(err)
	}
	st, err := d.Stats(context.Background(), StatsQuery{Since: base, Until: base.Add(3 * time.Hour), Bucket: time.Hour, Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{
		Since: base, Until: base.Add(3 * time.Hour), Bucket: "1h0m0s",
		Total: VerdictCounts{Allow: 2, Audit: 1, Ask: 1, Deny: 4},
		Buckets: []TimeBucket{
			{Start: base, Counts: VerdictCounts{Allow: 1, Ask: 1, Deny: 2}},
			{Start: base.Add(time.Hour), Counts: VerdictCounts{Allow: 1, Audit: 1, Deny: 1}},
			{Start: base.Add(2 * time.Hour), Counts: VerdictCounts{Deny: 1}},
		},
		Rules: []KeyCounts{
			{Key: "rm-rf", Counts: VerdictCounts{Deny: 3}},
			{Key: "", Counts: VerdictCounts{Allow: 1}},
			{Key: "audit-read", Counts: VerdictCounts{Audit: 1}},
		},
		Agents: []KeyCounts{
			{Key: "claude-code", Counts: VerdictCounts{Allow: 1, Deny: 3}},
			{Key: "codex", Counts: VerdictCounts{Audit: 1, Deny: 1}},
			{Key: "cursor", Counts: VerdictCounts{Allow: 1, Ask: 1}},
		},
		Denied: []KeyCounts{
			{Key: "rm -rf ~", Counts: VerdictCounts{Deny: 3}},
			{Key: `curl "<script>" evil`, Counts: VerdictCounts{Deny: 1}},
		},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("Stats:\n got %+v\nwant %+v", st, want)
	}

	// Buckets start at Since taken to the hour, and a range that is not a whole number
	// of buckets ends with a partial one.
	since := base.Add(time.Hour + 30*time.Minute + 600)
	st, err = d.Stats(context.Background(), StatsQuery{Since: since, Until: since.Add(150 * time.Minute), Bucket: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	got := []VerdictCounts{}
	for _, b := range st.Buckets {
		got = append(got, b.Counts)
	}
	// 11:00 to 13:00: ls, curl, the audited read and the rm at 12:50; 13:00 to 14:00:
	// the rm at 13:00.
	if wantB := []VerdictCounts{{Allow: 1, Audit: 1, Deny: 2}, {Deny: 1}}; !reflect.DeepEqual(got, wantB) || !st.Since.Equal(base.Add(time.Hour)) {
		t.Errorf("buckets from %s: %+v from %s, want %+v", since, got, st.Since, wantB)
	}
}

func TestStatsBounds(t *testing.T) {
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	base := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		q    StatsQuery
		want string // in the error; "" for none
	}{
		{"fine", StatsQuery{Since: base, Until: base.Add(24 * time.Hour), Bucket: time.Hour}, ""},
		{"no end", StatsQuery{Since: base, Bucket: time.Hour}, "both ends"},
		{"backwards", StatsQuery{Since: base, Until: base.Add(-time.Hour), Bucket: time.Hour}, "before it starts"},
		{"empty", StatsQuery{Since: base, Until: base, Bucket: time.Hour}, "before it starts"},
		{"fractional bucket", StatsQuery{Since: base, Until: base.Add(time.Hour), Bucket: 90 * time.Minute}, "whole number"},
		{"no bucket", StatsQuery{Since: base, Until: base.Add(time.Hour)}, "whole number"},
		{"huge bucket", StatsQuery{Since: base, Until: base.Add(time.Hour), Bucket: 400 * 24 * time.Hour}, "at most"},
		{"too many buckets", StatsQuery{Since: base, Until: base.Add(201 * time.Hour), Bucket: time.Hour}, "more than 200 buckets"},
		{"top too long", StatsQuery{Since: base, Until: base.Add(time.Hour), Bucket: time.Hour, Top: 51}, "at most 50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := d.Stats(context.Background(), tc.q)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && (len(st.Buckets) != 24 || st.Rules == nil || st.Denied == nil):
				t.Errorf("empty database: %d buckets, rules %v, denied %v", len(st.Buckets), st.Rules, st.Denied)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestRecentCwds(t *testing.T) {
	base := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	d := open(t, filepath.Join(t.TempDir(), FileName), Options{})
	rs := statsRecords(base)
	rs = append(rs, audit.Record{Time: base.Add(time.Hour), Class: "shell", Tool: "Bash", Args: map[string]any{"command": "ls"}, Decision: call.Allow, Policy: "p"})
	if err := d.AppendBatch(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	got, err := d.RecentCwds(context.Background(), base, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Place{
		{Cwd: "/work/a", Last: base.Add(3 * time.Hour)},
		{Cwd: "/work/b", Last: base.Add(90 * time.Minute)},
		{Cwd: "/work/a/sub", Last: base.Add(30 * time.Minute)},
	}
	if !slices.Equal(got, want) {
		t.Errorf("RecentCwds: %+v, want %+v", got, want)
	}
	if got, err := d.RecentCwds(context.Background(), base, 1); err != nil || len(got) != 1 {
		t.Errorf("RecentCwds limit 1: %v, %v", got, err)
	}
	if _, err := d.RecentCwds(context.Background(), base, MaxPlaces+1); err == nil {
		t.Error("RecentCwds took a limit over MaxPlaces")
	}
}

// BenchmarkStats counts 100,000 decisions made over a day and a bit, as the dashboard's
// charts do for their range.
func BenchmarkStats(b *testing.B) {
	d, _ := filled(b, 100_000)
	q := StatsQuery{Since: t0.Add(-time.Hour), Until: t0.Add(29 * time.Hour), Bucket: time.Hour}
	b.ResetTimer()
	for b.Loop() {
		if _, err := d.Stats(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}
