package audit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// look does what one turn of Follow's loop does, without waiting: read what is new,
// then follow any rotation, until the active file stays put.
func look(t *testing.T, fl *follower) {
	t.Helper()
	for {
		if err := fl.drain(); err != nil {
			t.Fatalf("drain: %v", err)
		}
		moved, err := fl.followRotation()
		if err != nil {
			t.Fatalf("followRotation: %v", err)
		}
		if !moved {
			return
		}
	}
}

// newFollower starts a follower of path that collects what it delivers.
func newFollower(t *testing.T, path string, history bool) (*follower, *[]Record, *[]error) {
	t.Helper()
	var got []Record
	var bad []error
	fl := &follower{path: path,
		fn:  func(_ []byte, r Record) error { got = append(got, r); return nil },
		bad: func(err error) { bad = append(bad, err) },
	}
	t.Cleanup(fl.close)
	if err := fl.start(history); err != nil {
		t.Fatalf("start: %v", err)
	}
	return fl, &got, &bad
}

func seqRange(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func appendSeqs(t *testing.T, l *Log, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		appendAll(t, l, record(i))
	}
}

func TestFollowThroughRotations(t *testing.T) {
	line := int64(len(goodLine(t, 10)))
	tests := []struct {
		name    string
		history bool
		keep    int
		// each step appends this many records, then looks
		steps []int
	}{
		{"a look after every record", true, 50, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{"several rotations between looks", true, 50, []int{2, 9, 1, 14, 3}},
		{"no history", false, 50, []int{3, 7, 1, 12}},
		{"a rotation right at the start", true, 50, []int{3, 0, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.jsonl")
			// Three records per file: every few appends rotate.
			l := openLog(t, Options{Path: path, MaxBytes: 3*line + 1, Keep: tt.keep})
			appendSeqs(t, l, 0, 5)
			fl, got, bad := newFollower(t, path, tt.history)
			want := seqRange(5, 5)
			if tt.history {
				want = seqRange(0, 5)
			}
			next := 5
			for _, n := range tt.steps {
				appendSeqs(t, l, next, next+n)
				next += n
				look(t, fl)
			}
			want = append(want, seqRange(5, next)...)
			if s := seqs(t, *got); !slices.Equal(s, want) {
				t.Errorf("delivered %v\nwant      %v", s, want)
			}
			if len(*bad) > 0 {
				t.Errorf("malformed lines reported: %v", *bad)
			}
		})
	}
}

// TestFollowOldestDropped rotates so often between two looks that the file Follow was
// reading is dropped: what it still holds open and every file left are delivered, in
// order and once each.
func TestFollowOldestDropped(t *testing.T) {
	line := int64(len(goodLine(t, 10)) + maxSealLen)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 2*line + 1, Keep: 2})
	appendSeqs(t, l, 0, 1)
	fl, got, _ := newFollower(t, path, true)
	appendSeqs(t, l, 1, 20)
	look(t, fl)
	s := seqs(t, *got)
	left, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	// The held file had 0 and 1; the log now holds the last five or so.
	want := append([]int{0, 1}, seqs(t, left)...)
	if !slices.Equal(s, want) {
		t.Errorf("delivered %v, want %v", s, want)
	}
}

func TestFollowPartialLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	full := goodLine(t, 1)
	// Follow starts in the middle of a line: that line is not delivered in pieces.
	if err := os.WriteFile(path, []byte(goodLine(t, 0)+full[:10]), 0o600); err != nil {
		t.Fatal(err)
	}
	fl, got, bad := newFollower(t, path, false)
	appendRaw(t, path, full[10:])
	look(t, fl)
	if len(*got) != 0 {
		t.Fatalf("delivered %v, want nothing", seqs(t, *got))
	}
	// A line is delivered once its newline is written, not before.
	line2 := goodLine(t, 2)
	appendRaw(t, path, line2[:20])
	look(t, fl)
	if len(*got) != 0 {
		t.Fatalf("delivered a partial line: %v", seqs(t, *got))
	}
	appendRaw(t, path, line2[20:]+"not json\n"+goodLine(t, 3))
	look(t, fl)
	if s := seqs(t, *got); !slices.Equal(s, []int{2, 3}) {
		t.Errorf("delivered %v, want [2 3]", s)
	}
	if len(*bad) != 1 || !strings.Contains((*bad)[0].Error(), "audit.jsonl:4:") {
		t.Errorf("malformed lines: %v, want one at line 4", *bad)
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestFollowLogCreatedLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "audit.jsonl")
	fl, got, _ := newFollower(t, path, false)
	look(t, fl)
	l := openLog(t, Options{Path: path})
	appendSeqs(t, l, 0, 3)
	look(t, fl)
	if s := seqs(t, *got); !slices.Equal(s, []int{0, 1, 2}) {
		t.Errorf("delivered %v, want [0 1 2]", s)
	}
}

// TestFollowRuns runs Follow itself with a writer in another goroutine, and stops it with
// its context.
func TestFollowRuns(t *testing.T) {
	line := int64(len(goodLine(t, 10)))
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path, MaxBytes: 4*line + 1, Keep: 100})
	appendSeqs(t, l, 0, 2)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []Record
	caughtAt := -1
	done := make(chan error, 1)
	caught := func() error {
		mu.Lock()
		caughtAt = len(got)
		mu.Unlock()
		return nil
	}
	go func() {
		done <- Follow(ctx, path, FollowOptions{History: true, Poll: time.Millisecond, Caught: caught}, func(r Record) error {
			mu.Lock()
			got = append(got, r)
			mu.Unlock()
			return nil
		})
	}()
	appendSeqs(t, l, 2, 30)
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 30 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Follow: %v", err)
	}
	if s := seqs(t, got); !slices.Equal(s, seqRange(0, 30)) {
		t.Errorf("delivered %v", s)
	}
	if caughtAt < 2 {
		t.Errorf("Caught was called after %d records, want at least the 2 of the history", caughtAt)
	}
}

func TestFollowStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendSeqs(t, l, 0, 3)
	stop := errors.New("enough")
	n := 0
	err := Follow(context.Background(), path, FollowOptions{History: true}, func(Record) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Errorf("Follow = %v after %d records, want %v after 1", err, n, stop)
	}
}

// FuzzFollowChunks writes a log in pieces cut at arbitrary places, looking after each,
// and checks that the follower delivers exactly what Read delivers from the whole.
func FuzzFollowChunks(f *testing.F) {
	f.Add([]byte{1, 50, 7, 200, 3}, "")
	f.Add([]byte{0, 0, 255}, "not json\n")
	f.Add([]byte{13}, `{"time":"2026-01-02T03:04:05Z","decision":"deny"}`+"\n")
	f.Fuzz(func(t *testing.T, cuts []byte, extra string) {
		var text strings.Builder
		for i := range 4 {
			text.WriteString(goodLine(t, i))
			if i == 1 {
				text.WriteString(extra)
			}
		}
		all := text.String()
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		fl, got, _ := newFollower(t, path, false)
		rest := all
		for _, c := range cuts {
			if rest == "" {
				break
			}
			n := min(int(c), len(rest))
			appendRaw(t, path, rest[:n])
			rest = rest[n:]
			look(t, fl)
		}
		appendRaw(t, path, rest)
		look(t, fl)
		want, _ := readAll(t, path)
		if len(*got) != len(want) {
			t.Fatalf("followed %d records, Read gives %d", len(*got), len(want))
		}
		for i := range want {
			if !(*got)[i].Time.Equal(want[i].Time) || (*got)[i].Decision != want[i].Decision {
				t.Errorf("record %d: %+v, want %+v", i, (*got)[i], want[i])
			}
		}
	})
}
