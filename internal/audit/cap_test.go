package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/findings"
)

// hugeRecord is a denied call whose every part is large: what an agent can send to make
// one record crowd the others out of the log.
func hugeRecord(seq int) Record {
	r := record(seq)
	r.Decision, r.Rule = call.Deny, "deny-everything"
	big := strings.Repeat("z", 40<<10)
	r.Tool = "Tool" + big
	r.Reason = "because " + big
	r.Cwd = "/home/" + strings.Repeat("\x01", 10<<10) // control characters take six bytes in JSON
	r.Args["command"] = "rm -rf ~ " + big
	for i := range 300 {
		r.Args[fmt.Sprintf("k%03d", i)] = strings.Repeat("v", 200)
	}
	r.Args["nested"] = map[string]any{"deep": []any{big, big}}
	for i := range 400 {
		r.Findings = append(r.Findings, findings.New("destructive.fs.recursive-delete", fmt.Sprintf("evidence %d %s", i, strings.Repeat("e", 500))))
	}
	return r
}

// TestRecordCap: a record over MaxRecordBytes is summarised to fit, keeps what decided it
// and the call's own argument, and says what was cut.
func TestRecordCap(t *testing.T) {
	for _, limit := range []int{minRecordBytes, DefaultMaxRecordBytes, 64 << 10} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l := openLog(t, Options{Path: path, MaxRecordBytes: limit})
			in := hugeRecord(1)
			appendAll(t, l, in, record(2))
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			line, _, _ := strings.Cut(string(data), "\n")
			if len(line)+1 > limit {
				t.Errorf("the record's line is %d bytes, over the cap of %d", len(line)+1, limit)
			}
			got, err := readAll(t, path)
			if err != nil || len(got) != 2 {
				t.Fatalf("Read: %d records, %v", len(got), err)
			}
			r := got[0]
			if r.Decision != call.Deny || r.Rule != in.Rule || r.Agent != in.Agent || r.Class != in.Class || !r.Time.Equal(in.Time) {
				t.Errorf("what decided the record was lost: %+v", r)
			}
			if !strings.Contains(r.Clipped, "summarised") || !strings.Contains(r.Clipped, "sha256") {
				t.Errorf("Clipped = %q", r.Clipped)
			}
			if cmd, _ := r.Args["command"].(string); limit > minRecordBytes && !strings.HasPrefix(cmd, "rm -rf ~") {
				t.Errorf("the command was not kept first: %.40q", cmd)
			}
			if got[1].Clipped != "" || !reflect.DeepEqual(got[1].Args["command"], "ls -la") {
				t.Errorf("a small record was touched: %+v", got[1])
			}
			if rep := verify(t, path); !rep.OK {
				t.Errorf("Verify: %v", rep.Issues)
			}
		})
	}
}

func TestClipJSON(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("a", 5000), strings.Repeat("\x00", 5000), strings.Repeat("é", 3000),
		strings.Repeat("\"\\", 3000), string([]byte{0xff, 0xfe}) + strings.Repeat("\u2028", 2000), "short",
	} {
		for _, limit := range []int{64, 256, 1024} {
			got := clipJSON(s, limit)
			b, _ := json.Marshal(got)
			// Below the note's own length only the note is left.
			if got != s && len(b) > max(limit, 160) {
				t.Errorf("clipJSON(%.10q…, %d) encodes to %d bytes", s, limit, len(b))
			}
			if jsonStringLen(s) <= limit && got != s {
				t.Errorf("clipJSON clipped a string that fits")
			}
			enc, _ := json.Marshal(s)
			if n := jsonStringLen(s); n < len(enc) {
				t.Errorf("jsonStringLen(%.10q…) = %d, under the %d bytes encoding/json writes", s, n, len(enc))
			}
		}
	}
}

// FuzzRecordCap builds records of fuzzed sizes and contents; each must come out as one
// line within the cap that reads back.
func FuzzRecordCap(f *testing.F) {
	f.Add("rm -rf ~", 100, 10, 10, uint16(minRecordBytes))
	f.Add("\x00\"\\é\u2028", 9000, 500, 300, uint16(5000))
	f.Add(strings.Repeat("x", 100), 1, 2000, 0, uint16(0))
	l := &Log{redactor: identity{}}
	f.Fuzz(func(t *testing.T, s string, reps, nargs, nfindings int, limit uint16) {
		reps, nargs, nfindings = min(max(reps, 0), 2000), min(max(nargs, 0), 100), min(max(nfindings, 0), 100)
		l.maxRecord = max(int(limit), minRecordBytes)
		big := strings.Repeat(s, reps)
		big = big[:min(len(big), 20<<10)]
		r := record(1)
		r.Reason, r.Cwd, r.Tool = big, big, s
		for i := range nargs {
			r.Args[fmt.Sprint(s, i)] = big
		}
		for range nfindings {
			r.Findings = append(r.Findings, findings.New(s, big))
		}
		body, err := l.encode(r)
		if err != nil {
			t.Fatal(err)
		}
		line := seal(body, 1<<62, lineHash(body))
		if len(line) > l.maxRecord {
			t.Fatalf("line of %d bytes over the cap of %d", len(line), l.maxRecord)
		}
		if _, err := parseLine(line); err != nil {
			t.Fatalf("capped line does not parse: %v", err)
		}
	})
}
