//go:build unix && !aix

package audit

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// holdLock takes the log's lock as another process would, through its own open of the
// lock file, and returns the function that releases it.
func holdLock(t *testing.T, path string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(lockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			unix.Flock(int(f.Fd()), unix.LOCK_UN)
			f.Close()
		}
	}
	t.Cleanup(release)
	return release
}

// TestHeldLockSpoolsWithinBudget: with the lock held by someone else, Append gives up
// after LockWait with the record spooled (a private file, not a link), says so through
// ErrSpooled, and the next writer that gets the lock merges it before its own record,
// with the chain intact.
func TestHeldLockSpoolsWithinBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	first := openLog(t, Options{Path: path})
	appendAll(t, first, record(0))

	release := holdLock(t, path)
	const budget = 150 * time.Millisecond
	l := openLog(t, Options{Path: path, LockWait: budget})
	for _, seq := range []int{1, 2} {
		start := time.Now()
		err := l.Append(record(seq))
		took := time.Since(start)
		if !errors.Is(err, ErrSpooled) || !errors.Is(err, ErrLockBusy) {
			t.Fatalf("Append with the lock held = %v, want ErrSpooled and ErrLockBusy", err)
		}
		if took > budget+time.Second {
			t.Errorf("Append took %v with a budget of %v", took, budget)
		}
	}
	// Another Log of this process is another writer: it spools to a file of its own.
	other := openLog(t, Options{Path: path, LockWait: budget})
	if err := other.Append(record(3)); !errors.Is(err, ErrSpooled) {
		t.Fatalf("second writer: %v", err)
	}
	spools, err := spoolFiles(path)
	if err != nil || len(spools) != 2 {
		t.Fatalf("spool files = %v, %v; want two", spools, err)
	}
	for _, s := range spools {
		fi, err := os.Lstat(s)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("spool file %s: %v, %v", s, fi.Mode(), err)
		}
	}
	h, err := Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Waiting != 3 || h.Incidents[incidentSpooled] != 3 || h.Sound() {
		t.Errorf("Inspect with records spooled = %+v", h)
	}
	if got, _ := readAll(t, path); !reflect.DeepEqual(seqs(t, got), []int{0}) {
		t.Errorf("the log holds %v before the merge", seqs(t, got))
	}

	release()
	appendAll(t, first, record(4))
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{0, 1, 2, 3, 4}) {
		t.Errorf("after the merge the log holds %v, want [0 1 2 3 4]", s)
	}
	for i, r := range got {
		if r.Seq != uint64(i+1) {
			t.Errorf("record %d numbered %d", i, r.Seq)
		}
	}
	if spools, _ := spoolFiles(path); len(spools) != 0 {
		t.Errorf("spool files left after the merge: %v", spools)
	}
	rep := verify(t, path)
	if !rep.OK || rep.LastSeq != 5 || !rep.FromStart {
		t.Errorf("Verify after the merge: %s %v", rep.Summary(), rep.Issues)
	}
	if h, _ := Inspect(path); h.Waiting != 0 || !h.Sound() {
		t.Errorf("Inspect after the merge = %+v", h)
	}
	// The spooling Logs keep working once the lock is free.
	appendAll(t, l, record(5))
	appendAll(t, other, record(6))
	if got, _ := readAll(t, path); len(got) != 7 {
		t.Errorf("the log holds %d records, want 7", len(got))
	}
}

// TestMergeLeavesABusySpool: a spool file its writer holds is not merged from under it.
func TestMergeLeavesABusySpool(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	release := holdLock(t, path)
	l := openLog(t, Options{Path: path, LockWait: 10 * time.Millisecond})
	if err := l.Append(record(1)); !errors.Is(err, ErrSpooled) {
		t.Fatal(err)
	}
	release()
	if err := lockWithin(l.spoolF, true, time.Second); err != nil {
		t.Fatal(err)
	}
	w := openLog(t, Options{Path: path})
	appendAll(t, w, record(2))
	if got, _ := readAll(t, path); !reflect.DeepEqual(seqs(t, got), []int{2}) {
		t.Errorf("merged a spool file its writer held: %v", seqs(t, got))
	}
	unlockFile(l.spoolF)
	appendAll(t, w, record(3))
	if got, _ := readAll(t, path); !reflect.DeepEqual(seqs(t, got), []int{2, 1, 3}) {
		t.Errorf("log = %v, want [2 1 3]", seqs(t, got))
	}
	if rep := verify(t, path); !rep.OK {
		t.Errorf("Verify: %v", rep.Issues)
	}
}

// TestSpoolDropsWhatIsNotARecord: a line in a spool file that is not a record (a planted
// file, a writer cut off) is dropped and noted, the others merged.
func TestSpoolDropsWhatIsNotARecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	spool := spoolPrefix(path) + "00000000000000000001-1"
	text := goodLine(t, 1) + "not a record\n" + `{"time":"2026-01-02T03:04:05Z","decision":"ask","findings":[{}]}` + "\n" + goodLine(t, 2) + `{"time":`
	if err := os.WriteFile(spool, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(3))
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{1, 2, 3}) {
		t.Errorf("log = %v, want [1 2 3]", s)
	}
	h, _ := Inspect(path)
	if h.Incidents[incidentDropped] != 1 || !strings.Contains(h.Last.Detail, "3 lines") {
		t.Errorf("incidents = %v, last %+v", h.Incidents, h.Last)
	}
}

// TestSharedSpool: a writer that may not create files beside the log (inside moat's
// sandbox, which grants only WriterFiles, made beforehand) spools to the shared spool;
// the merger empties it, and leaves it for the next time.
func TestSharedSpool(t *testing.T) {
	if asUnprivileged(t) {
		return // root creates files anywhere: the test ran as another user
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	for _, name := range WriterFiles(path) {
		write(t, name, "")
	}
	release := holdLock(t, path)
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	l := openLog(t, Options{Path: path, LockWait: 20 * time.Millisecond})
	for _, seq := range []int{1, 2} {
		if err := l.Append(record(seq)); !errors.Is(err, ErrSpooled) || !strings.Contains(err.Error(), sharedSpoolPath(path)) {
			t.Fatalf("Append in a closed directory = %v, want it spooled to the shared spool", err)
		}
	}
	if h, _ := Inspect(path); h.Waiting != 2 {
		t.Errorf("Inspect: %+v", h)
	}
	release()
	appendAll(t, l, record(3)) // still in the closed directory: merges without removing
	got, err := readAll(t, path)
	if err != nil {
		t.Fatal(err)
	}
	if s := seqs(t, got); !reflect.DeepEqual(s, []int{1, 2, 3}) {
		t.Errorf("log = %v, want [1 2 3]", s)
	}
	if fi, err := os.Stat(sharedSpoolPath(path)); err != nil || fi.Size() != 0 {
		t.Errorf("shared spool after the merge: %v, %v", fi, err)
	}
	if h, _ := Inspect(path); h.Waiting != 0 || len(h.Spools) != 0 {
		t.Errorf("Inspect after the merge: %+v", h)
	}
}

// TestStateDirectoryRemoved: a long-lived writer whose directory was removed makes it
// again rather than losing the record.
func TestStateDirectoryRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(1))
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, record(2))
	if got, _ := readAll(t, path); !reflect.DeepEqual(seqs(t, got), []int{2}) {
		t.Errorf("log = %v", seqs(t, got))
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory made again as %v, %v", fi, err)
	}
}
