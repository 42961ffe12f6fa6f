package audit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestHugeAllowsCannotRotateOutADeny: an agent that makes many huge allowed calls after
// a denied one rotates the log many times over; the denied record stays in the trail
// (carried into the kept file), chained, and Read still delivers it, first.
func TestHugeAllowsCannotRotateOutADeny(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 64 << 10, Keep: 2})
	denied := record(0)
	denied.Decision, denied.Rule, denied.Args["command"] = call.Deny, "deny-rm-home", "rm -rf ~"
	asked := record(1)
	asked.Decision = call.Ask
	failed := record(2)
	failed.Failure, failed.Rule = true, call.RuleFailClosed
	failed.Decision = call.Deny
	appendAll(t, l, denied, asked, failed)
	for i := 3; i < 203; i++ {
		r := record(i)
		r.Class, r.Tool = "file.write", "Write"
		// Two arguments under the 8 KiB clip of one argument: 14 KiB, under the record cap.
		r.Args["content"], r.Args["old"] = strings.Repeat("a", 7<<10), strings.Repeat("b", 7<<10)
		appendAll(t, l, r)
	}
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	s := seqs(t, got)
	if !slices.Equal(s[:3], []int{0, 1, 2}) || s[3] < 150 || len(s) > 20 {
		t.Errorf("records read: %v…; want the deny, ask and failure first, then the last allowed ones", s[:min(len(s), 6)])
	}
	if got[0].Decision != call.Deny || got[0].Args["command"] != "rm -rf ~" || got[0].Seq != 1 {
		t.Errorf("the denied record came back as %+v", got[0])
	}
	rep := verify(t, path)
	if !rep.OK {
		t.Errorf("Verify: %s %v", rep.Summary(), rep.Issues)
	}
	if !slices.Contains(rep.Files, keptPath(path)) {
		t.Errorf("no kept file among %v", rep.Files)
	}

	// The kept file is bounded too: once full, it moves to kept.1 and the chain goes on.
	for i := 203; i < 260; i++ {
		r := record(i)
		r.Decision = call.Deny
		r.Args["command"] = strings.Repeat("d", 7<<10)
		appendAll(t, l, r)
	}
	rep = verify(t, path)
	if !rep.OK || !slices.Contains(rep.Files, keptOldPath(path)) {
		t.Errorf("after the kept file filled: %s %v %v", rep.Summary(), rep.Files, rep.Issues)
	}
}

// TestKeptFileTampering: the kept file's own chain shows a kept record removed.
func TestKeptFileTampering(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 4 << 10, Keep: 1})
	for i := range 40 {
		r := record(i)
		if i%2 == 0 {
			r.Decision = call.Deny
		}
		appendAll(t, l, r)
	}
	tr := readTrail(t, filepath.Dir(path))
	kept := tr.files["audit.jsonl.kept"]
	if len(kept) < 3 {
		t.Fatalf("kept file holds %d records", len(kept))
	}
	tr.files["audit.jsonl.kept"] = slices.Delete(kept, 1, 2)
	tr.write(t)
	rep := verify(t, path)
	if rep.OK || len(rep.Issues) != 1 || rep.Issues[0].File != keptPath(path) {
		t.Errorf("a record removed from the kept file: %s %v", rep.Summary(), rep.Issues)
	}
}
