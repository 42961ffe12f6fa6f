package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

func TestWriteFleet(t *testing.T) {
	b := NewBuilder(time.Time{}, 0)
	b.Add(audit.Record{Time: now, Agent: "codex", Class: "shell", Tool: "Bash", Decision: call.Deny})
	rep := b.Report(now)
	hostile := `<img src=x onerror=alert(1)>|x`
	rep.Fleet = &Fleet{
		Machines: 2, Known: 3, QuietAfter: "24h",
		TopMachines: []MachineCount{{Machine: hostile, MachineID: "aaaa", Deny: 3, Allow: 1, Total: 4}, {MachineID: "bbbb", Ask: 2, Total: 2}},
		Quiet:       []QuietMachine{{Machine: "old-box", MachineID: "cccc", OSUser: "dee", LastSeen: now.Add(-72 * time.Hour)}},
		Serials:     []SerialCount{{Serial: 7, Machines: 1, Decisions: 4}, {Serial: 0, Machines: 1, Decisions: 2}},
	}
	tests := []struct {
		format    string
		want, not []string
	}{
		{"md", []string{"## Fleet", "2 machines made decisions in the period, of 3 the fleet's database knows.",
			"| Machine | Deny | Ask | Audit | Allow | Total |\n|---|---:|---:|---:|---:|---:|",
			"| &lt;img src=x onerror=alert(1)&gt;\\|x | 3 | 0 | 0 | 1 | 4 |", "| bbbb | 0 | 2 | 0 | 0 | 2 |",
			"### Machines quiet for more than 24h", "| old-box | dee | 2026-11-22T12:00:00Z |",
			"| 7 | 1 | 4 |", "| none (no signed managed policy) | 1 | 2 |"}, []string{"<img"}},
		{"html", []string{"<h2>Fleet</h2>", "<td>&lt;img src=x onerror=alert(1)&gt;|x</td><td class=\"n\">3</td>",
			"<td>old-box</td><td>dee</td><td>2026-11-22T12:00:00Z</td>", "<td>none (no signed managed policy)</td>"}, []string{"<img"}},
		{"json", []string{`"fleet": {`, `"known_machines": 3`, `"quiet_machines": [`, `"managed_serials": [`}, nil},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Write(&buf, rep, tt.format, time.UTC); err != nil {
			t.Fatalf("%s: %v", tt.format, err)
		}
		out := buf.String()
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", tt.format, w, out)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: holds %q:\n%s", tt.format, n, out)
			}
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, "json", time.UTC); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || !reflect.DeepEqual(back, rep) {
		t.Errorf("json round trip: %v\n%+v\n%+v", err, back.Fleet, rep.Fleet)
	}
	// A report without a fleet has no fleet section.
	rep.Fleet = nil
	for _, format := range Formats() {
		buf.Reset()
		if err := Write(&buf, rep, format, time.UTC); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(buf.String()), "fleet") {
			t.Errorf("%s: a local report mentions the fleet:\n%s", format, buf.String())
		}
	}
}
