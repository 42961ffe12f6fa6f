//go:build unix && !aix

package audit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRefusedFiles plants, at a file of the log, what an agent could to make the records
// go elsewhere or nowhere. Each time Append must not write through it: the record is
// spooled, ErrRefused says why, Inspect and Verify report the file, and once the plant is
// removed the next Append merges the spooled record.
func TestRefusedFiles(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, dir, path string) (victim string)
		why   string
	}{
		{
			name: "log is a link to another file",
			plant: func(t *testing.T, dir, path string) string {
				victim := filepath.Join(dir, "bashrc")
				write(t, victim, "export PATH\n")
				symlink(t, victim, path)
				return victim
			},
			why: "symbolic link",
		},
		{
			name: "log is a link to /dev/null",
			plant: func(t *testing.T, dir, path string) string {
				symlink(t, "/dev/null", path)
				return ""
			},
			why: "symbolic link (to /dev/null)",
		},
		{
			name: "log is a dangling link",
			plant: func(t *testing.T, dir, path string) string {
				symlink(t, filepath.Join(dir, "elsewhere"), path)
				return filepath.Join(dir, "elsewhere")
			},
			why: "symbolic link",
		},
		{
			name: "log is a FIFO",
			plant: func(t *testing.T, dir, path string) string {
				if err := unix.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			why: "FIFO",
		},
		{
			name: "log is a hard link",
			plant: func(t *testing.T, dir, path string) string {
				victim := filepath.Join(dir, "profile")
				write(t, victim, "umask 022\n")
				if err := os.Link(victim, path); err != nil {
					t.Fatal(err)
				}
				return victim
			},
			why: "hard links",
		},
		{
			name: "lock file is a link",
			plant: func(t *testing.T, dir, path string) string {
				victim := filepath.Join(dir, "lockvictim")
				write(t, victim, "")
				symlink(t, victim, lockPath(path))
				return victim
			},
			why: "audit.jsonl.lock: it is a symbolic link",
		},
		{
			name: "directory writable by others",
			plant: func(t *testing.T, dir, path string) string {
				if err := os.Chmod(dir, 0o777); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			why: "mode 0777",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "audit.jsonl")
			victim := tt.plant(t, dir, path)
			var before []byte
			if victim != "" {
				before, _ = os.ReadFile(victim)
			}
			l := openLog(t, Options{Path: path})
			done := make(chan error, 1)
			go func() { done <- l.Append(record(1)) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Append hangs")
			}
			if !errors.Is(err, ErrSpooled) || !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.why) {
				t.Fatalf("Append = %v, want ErrSpooled, ErrRefused and %q", err, tt.why)
			}
			if victim != "" {
				after, _ := os.ReadFile(victim)
				if !reflect.DeepEqual(before, after) {
					t.Errorf("the record was written through to %s: %q", victim, after)
				}
			}
			h, err := Inspect(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Refused) == 0 || !strings.Contains(fmt.Sprint(h.Refused), tt.why) || h.Waiting != 1 || h.Incidents[incidentRefused] != 1 {
				t.Errorf("Inspect = %+v", h)
			}

			// Undo the plant; the next record brings the spooled one in first.
			os.Chmod(dir, 0o700)
			for _, p := range []string{path, lockPath(path)} {
				if fi, err := os.Lstat(p); err == nil && (!fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0 || p == path) {
					os.Remove(p)
				}
			}
			appendAll(t, l, record(2))
			got, err := readAll(t, path)
			if err != nil {
				t.Fatal(err)
			}
			if s := seqs(t, got); !reflect.DeepEqual(s, []int{1, 2}) {
				t.Errorf("log after the repair = %v, want [1 2]", s)
			}
			if h, _ := Inspect(path); !h.Sound() {
				t.Errorf("Inspect after the repair = %+v", h)
			}
		})
	}
}

// TestLinkSwappedUnderALongLivedWriter: a Log that holds the active file open notices a
// link put in its place and does not write to the file it held either.
func TestLinkSwappedUnderALongLivedWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(1))
	if err := os.Rename(path, filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "/dev/null", path)
	if err := l.Append(record(2)); !errors.Is(err, ErrRefused) || !errors.Is(err, ErrSpooled) {
		t.Fatalf("Append = %v", err)
	}
	moved, _ := os.ReadFile(filepath.Join(dir, "moved"))
	if strings.Count(string(moved), "\n") != 1 {
		t.Errorf("the writer kept writing to the file it held: %s", moved)
	}
}

// TestUnwritableDirectory: a directory nothing can be written to loses the record, and
// Append says so, not ErrSpooled.
func TestUnwritableDirectory(t *testing.T) {
	if asUnprivileged(t) {
		return // root writes anywhere: the test ran as another user
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "audit.jsonl")
	l := openLog(t, Options{Path: path})
	appendAll(t, l, record(1))
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	l2 := openLog(t, Options{Path: path})
	err := l2.Append(record(2))
	if err == nil || errors.Is(err, ErrSpooled) || !strings.Contains(err.Error(), "lost") {
		t.Errorf("Append into a read-only directory = %v, want the record reported lost", err)
	}
	if h, _ := Inspect(path); h.Unwritable == "" {
		t.Errorf("Inspect does not see the directory is unwritable: %+v", h)
	}
}

func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestReadersRefuseAFIFO: a FIFO at a file of the log would hang a reader (moat logs,
// moat doctor) opening it; it is skipped and reported instead, the other files read.
func TestReadersRefuseAFIFO(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		recs []Record
		err  error
		rep  *Report
		verr error
	}
	run := func() result {
		done := make(chan result, 1)
		go func() {
			var r result
			r.recs, r.err = readAll(t, path)
			r.rep, r.verr = Verify(path)
			done <- r
		}()
		select {
		case r := <-done:
			return r
		case <-time.After(5 * time.Second):
			t.Fatal("a reader hangs on a FIFO")
			return result{}
		}
	}
	r := run()
	if !errors.Is(r.err, ErrRefused) || errors.Is(r.err, os.ErrNotExist) || len(r.recs) != 0 {
		t.Errorf("Read with only a FIFO = %d records, %v; want it refused", len(r.recs), r.err)
	}
	if r.verr != nil || r.rep.OK || len(r.rep.Issues) != 1 || r.rep.Issues[0].Kind != IssueRefused {
		t.Errorf("Verify with only a FIFO = %+v, %v", r.rep, r.verr)
	}

	write(t, rotatedPath(path, 1), goodLine(t, 1))
	r = run()
	if s := seqs(t, r.recs); !reflect.DeepEqual(s, []int{1}) || !errors.Is(r.err, ErrRefused) {
		t.Errorf("Read with a FIFO and a rotated file = %v, %v", s, r.err)
	}
}
