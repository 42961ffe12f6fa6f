package audit

import (
	"bytes"
	"path/filepath"
	"slices"
	"testing"
)

// A Tail delivers every line once, in order, across rotations, as the log holds it: each
// line's hash is the chain of the next.
func TestTail(t *testing.T) {
	line := int64(len(goodLine(t, 10)))
	for _, tc := range []struct {
		name  string
		steps []int // records appended before each Next
	}{
		{"a step per record", []int{1, 1, 1, 1, 1, 1, 1}},
		{"several rotations between steps", []int{5, 0, 9, 1, 14, 3}},
		{"a log created after the first step", []int{0, 4, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			l := openLog(t, Options{Path: path, MaxBytes: 3*line + 1, Keep: 50})
			tail := NewTail(path)
			defer tail.Close()
			var lines [][]byte
			var got []int
			next := 0
			for _, n := range tc.steps {
				appendSeqs(t, l, next, next+n)
				next += n
				err := tail.Next(func(line []byte, r Record) error {
					lines = append(lines, bytes.Clone(line))
					got = append(got, seqOf(t, r))
					return nil
				}, func(err error) { t.Errorf("malformed: %v", err) })
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
			}
			if want := seqRange(0, next); !slices.Equal(got, want) {
				t.Fatalf("delivered %v\nwant      %v", got, want)
			}
			for i := 1; i < len(lines); i++ {
				r, err := ParseLine(lines[i])
				if err != nil {
					t.Fatal(err)
				}
				if r.Chain != ChainOf(lines[i-1]) || r.Seq != uint64(i+1) {
					t.Fatalf("line %d (seq %d) does not chain to the line delivered before it", i, r.Seq)
				}
			}
			last, r, err := LastLine(path)
			if next == 0 {
				if last != nil || err != nil {
					t.Fatalf("LastLine of an empty log = %q, %v", last, err)
				}
				return
			}
			if err != nil || r.Seq != uint64(next) || !bytes.Equal(append(last, '\n'), lines[len(lines)-1]) {
				t.Fatalf("LastLine = %q (seq %d), %v; want the last line delivered", last, r.Seq, err)
			}
		})
	}
}

// Right after a rotation the active file is empty: the newest line is the rotated one's.
func TestLastLineAfterRotation(t *testing.T) {
	line := int64(len(goodLine(t, 10)))
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 3*line + 1})
	appendSeqs(t, l, 0, 3)
	if err := l.rotate(); err != nil {
		t.Fatal(err)
	}
	_, r, err := LastLine(path)
	if err != nil || r.Seq != 3 {
		t.Fatalf("LastLine after a rotation: seq %d, %v; want 3", r.Seq, err)
	}
}
