package audit

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// goodLine is a well-formed record line numbered seq.
func goodLine(t *testing.T, seq int) string {
	t.Helper()
	b, err := (&Log{redactor: identity{}}).encode(record(seq))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadMalformed(t *testing.T) {
	tests := []struct {
		name     string
		lines    []string // joined as they are; good lines end in "\n"
		wantSeqs []int
		wantErrs []string // substrings, one per reported line, in order
	}{
		{
			name:     "garbage in the middle",
			lines:    []string{"0", "not json\n", "2"},
			wantSeqs: []int{0, 2},
			wantErrs: []string{"audit.jsonl:2: invalid character"},
		},
		{
			name:     "two records glued on one line",
			lines:    []string{"0", "1", "2"},
			wantSeqs: []int{0, 2},
			wantErrs: []string{"audit.jsonl:2: data after the record"},
		},
		{
			name:     "no decision",
			lines:    []string{`{"time":"2026-01-02T03:04:05Z","class":"shell","tool":"Bash"}` + "\n", "1"},
			wantSeqs: []int{1},
			wantErrs: []string{"audit.jsonl:1: record has no decision"},
		},
		{
			name:     "unknown decision",
			lines:    []string{"0", `{"time":"2026-01-02T03:04:05Z","decision":"maybe"}` + "\n"},
			wantSeqs: []int{0},
			wantErrs: []string{`audit.jsonl:2: unknown decision "maybe"`},
		},
		{
			// Found by FuzzParseLine: a record Append could not have written, which
			// `moat logs --json` then failed to print.
			name:     "finding without severity",
			lines:    []string{"0", `{"time":"2026-01-02T03:04:05Z","decision":"ask","findings":[{}]}` + "\n", "2"},
			wantSeqs: []int{0, 2},
			wantErrs: []string{"audit.jsonl:2: finding 1 (\"\") has no valid severity"},
		},
		{
			name:     "time out of range",
			lines:    []string{`{"time":"0000-01-01T00:00:00+01:00","decision":"deny"}` + "\n", "1"},
			wantSeqs: []int{1},
			wantErrs: []string{"audit.jsonl:1: record's time is out of range"},
		},
		{
			name:     "no time",
			lines:    []string{`{"decision":"deny"}` + "\n", "1"},
			wantSeqs: []int{1},
			wantErrs: []string{"audit.jsonl:1: record has no time"},
		},
		{
			name:     "null and array",
			lines:    []string{"null\n", "[]\n", "2"},
			wantSeqs: []int{2},
			wantErrs: []string{"audit.jsonl:1: record has no time", "audit.jsonl:2: json: cannot unmarshal array"},
		},
		{
			name:     "blank lines skipped",
			lines:    []string{"\n", "0", "  \r\n", "1"},
			wantSeqs: []int{0, 1},
		},
		{
			name:     "truncated final line skipped",
			lines:    []string{"0", "1", `{"time":"2026-01-02T03:0`},
			wantSeqs: []int{0, 1},
		},
		{
			name:     "complete final line without newline delivered",
			lines:    []string{"0", "1"},
			wantSeqs: []int{0, 1},
		},
		{
			name:  "many malformed lines summarized",
			lines: append(repeat("junk\n", 12), "0"),
			wantErrs: []string{
				"audit.jsonl:1:", "audit.jsonl:2:", "audit.jsonl:3:", "audit.jsonl:4:", "audit.jsonl:5:",
				"audit.jsonl:6:", "audit.jsonl:7:", "audit.jsonl:8:", "audit.jsonl:9:", "audit.jsonl:10:",
				"and 2 more malformed lines",
			},
			wantSeqs: []int{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			var b strings.Builder
			for _, l := range tt.lines {
				b.WriteString(expand(t, tt.name, l))
			}
			if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readAll(t, path)
			if s := seqs(t, got); !reflect.DeepEqual(s, tt.wantSeqs) {
				t.Errorf("records = %v, want %v", s, tt.wantSeqs)
			}
			var msgs []string
			if err != nil {
				msgs = strings.Split(err.Error(), "\n")
			}
			if len(msgs) != len(tt.wantErrs) {
				t.Fatalf("error = %v, want %d lines reported", err, len(tt.wantErrs))
			}
			for i, want := range tt.wantErrs {
				if !strings.Contains(msgs[i], want) {
					t.Errorf("error line %d = %q, want it to contain %q", i, msgs[i], want)
				}
			}
			if len(tt.wantErrs) > 0 {
				var le *LineError
				if !errors.As(err, &le) || le.File != path {
					t.Errorf("error %v carries no *LineError for %s", err, path)
				}
			}
		})
	}
}

// expand turns a table entry into file content: a decimal number stands for that record's
// line; "two records glued" and "without newline" cases use the record without its newline.
func expand(t *testing.T, name, l string) string {
	t.Helper()
	seq := 0
	for _, c := range l {
		if c < '0' || c > '9' {
			return l
		}
		seq = seq*10 + int(c-'0')
	}
	line := goodLine(t, seq)
	switch {
	case strings.Contains(name, "glued") && seq == 1:
		return strings.TrimSuffix(line, "\n") + line
	case strings.Contains(name, "without newline") && seq == 1:
		return strings.TrimSuffix(line, "\n")
	}
	return line
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestCrashedWriterThenAppend has a writer die mid-line; the truncated line is skipped
// while it is last, and a later Append starts a fresh line so that its record survives and
// the truncated one is reported where it lies.
func TestCrashedWriterThenAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0), record(1))
	partial := goodLine(t, 99)[:40]
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(partial); err != nil {
		t.Fatal(err)
	}
	f.Close()

	got, err := readAll(t, path)
	if err != nil {
		t.Errorf("Read with a truncated final line: %v, want no error", err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{0, 1}) {
		t.Errorf("records = %v, want [0 1]", s)
	}

	appendAll(t, l, record(2))
	got, err = readAll(t, path)
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{0, 1, 2}) {
		t.Errorf("records = %v, want [0 1 2]", s)
	}
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 || le.File != path {
		t.Errorf("Read error = %v, want a LineError at %s:3", err, path)
	}
}

func TestReadOrderAndGaps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	// .7 is the oldest; .2 is missing, as after a crash in the middle of a rotation; .03
	// and .x are not rotated files.
	content := map[string][]int{
		"audit.jsonl.7":    {0, 1},
		"audit.jsonl.3":    {2},
		"audit.jsonl.1":    {3, 4},
		"audit.jsonl":      {5},
		"audit.jsonl.03":   {100},
		"audit.jsonl.x":    {101},
		"other.jsonl.1":    {102},
		"audit.jsonl.lock": nil,
	}
	for name, recs := range content {
		var b strings.Builder
		for _, s := range recs {
			b.WriteString(goodLine(t, s))
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := readAll(t, path)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("records = %v, want 0…5", s)
	}
}

func TestReadActiveMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if err := Read(path, func(Record) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing log = %v, want fs.ErrNotExist", err)
	}
	if err := Read(filepath.Join(dir, "nodir", "audit.jsonl"), func(Record) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read in a missing directory = %v, want fs.ErrNotExist", err)
	}
	// Rotated files without an active one are still read.
	if err := os.WriteFile(path+".1", []byte(goodLine(t, 4)), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, path)
	if err != nil || !reflect.DeepEqual(seqs(t, got), []int{4}) {
		t.Errorf("Read = %v, %v; want [4]", seqs(t, got), err)
	}
}

func TestReadStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(0), record(1), record(2))
	stop := errors.New("stop")
	n := 0
	err := Read(path, func(Record) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("Read = %v, want the callback's error as it is", err)
	}
	if n != 2 {
		t.Errorf("callback called %d times, want 2", n)
	}
}

// TestReadSnapshot checks that records appended while Read delivers are not delivered.
func TestReadSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 600, Keep: 100})
	appendAll(t, l, record(0), record(1), record(2))
	var got []int
	err := Read(path, func(r Record) error {
		got = append(got, seqOf(t, r))
		return l.Append(record(100 + len(got))) // rotates now and then
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !reflect.DeepEqual(got, []int{0, 1, 2}) {
		t.Errorf("records = %v, want [0 1 2]", got)
	}
}
