package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Spooling. A record that cannot be written to the log in time goes to a spool file of
// the writing Log's own beside the log: Path.spool.<nanoseconds>-<pid>, created with
// O_EXCL, mode 0600, never through a link. Its lines are records without seq and chain.
// The next writer that holds the log's lock merges every spool file, oldest first, into
// the log, then removes it.
//
// A spool file is locked by whoever writes or merges it: the merger takes it only when
// no one is writing it, and a Log that finds its spool file gone (merged) or full starts
// another one.
const (
	spoolInfix = ".spool."
	// maxSpoolBytes is how large a spool file grows before its Log starts another.
	maxSpoolBytes = 256 << 10
	// maxMergeBytes bounds how much one Append merges: spools merge under the log's lock,
	// which other writers wait for. The rest is merged by the appends after it.
	maxMergeBytes = 512 << 10
	// spoolLockWait bounds the wait for a spool file that a merger holds.
	spoolLockWait = 50 * time.Millisecond
)

// spoolPrefix is the start of the names of path's spool files.
func spoolPrefix(path string) string { return path + spoolInfix }

// sharedSpoolPath names the spool file of writers that cannot create one of their own:
// those inside moat's sandbox, where the state directory is closed but the files of
// WriterFiles, created before, are open to them. They append to it under its lock; a
// merger empties it rather than removing it, since they could not create it again.
func sharedSpoolPath(path string) string { return spoolPrefix(path) + "shared" }

// spoolFiles lists path's spool files, oldest first (their names sort by creation).
func spoolFiles(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), base+spoolInfix) {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(names)
	return names, nil
}

// spool keeps body in this Log's spool file and returns the file's name.
func (l *Log) spool(body []byte) (string, error) {
	var errs []error
	for range 3 {
		if l.spoolF == nil {
			name := fmt.Sprintf("%s%020d-%d", spoolPrefix(l.path), time.Now().UnixNano(), os.Getpid())
			f, err := createExclusive(name)
			if errors.Is(err, fs.ErrPermission) {
				// A directory closed to this writer (moat's sandbox): the shared spool.
				name, serr := l.spoolShared(body)
				if serr == nil {
					return name, nil
				}
				return "", fmt.Errorf("spool: %w", errors.Join(err, serr))
			}
			if err != nil {
				errs = append(errs, err)
				if errors.Is(err, fs.ErrExist) {
					continue
				}
				break
			}
			l.spoolF = f
		}
		f := l.spoolF
		if err := lockWithin(f, true, spoolLockWait); err != nil {
			errs = append(errs, err)
			f.Close() // held by someone else: start another
			l.spoolF = nil
			continue
		}
		ok, err := l.spoolUsable(f, len(body))
		if err == nil && ok {
			_, err = f.WriteAt(body, sizeOf(f))
			if err == nil {
				unlockFile(f)
				l.markSpooled()
				return f.Name(), nil
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
		unlockFile(f)
		f.Close()
		l.spoolF = nil
	}
	return "", fmt.Errorf("spool: %w", errors.Join(errs...))
}

// spoolShared appends body to the shared spool file, which must exist.
func (l *Log) spoolShared(body []byte) (string, error) {
	name := sharedSpoolPath(l.path)
	f, err := openChecked(name, os.O_RDWR)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := lockWithin(f, true, spoolLockWait); err != nil {
		return "", err
	}
	defer unlockFile(f)
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if fi.Size()+int64(len(body)) > maxSpoolBytes {
		return "", fmt.Errorf("%s is full", name)
	}
	if _, err := f.WriteAt(body, fi.Size()); err != nil {
		return "", err
	}
	l.markSpooled()
	return name, nil
}

// spoolUsable reports whether f, locked, is still this Log's spool file (a merger has not
// removed it) and has room for n more bytes.
func (l *Log) spoolUsable(f *os.File, n int) (bool, error) {
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	named, err := os.Lstat(f.Name())
	if err != nil || !os.SameFile(held, named) {
		return false, nil
	}
	return held.Size() == 0 || held.Size()+int64(n) <= maxSpoolBytes, nil
}

func sizeOf(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// The spool flag is one byte of the lock file, after the head: a writer that spools a
// record sets it, so that the writers after it need not list the directory at every
// append to find out that there is nothing to merge. A merger clears it before listing:
// a record spooled after the listing sets it again.
const (
	spoolFlagAt  = headLen
	spoolPending = '1'
	spoolNone    = '0'
)

// markSpooled sets the spool flag, best effort: without it the spool is merged when a
// writer finds no head (a lock file made afresh), and Inspect shows it all along.
func (l *Log) markSpooled() {
	f := l.lock
	if f == nil {
		var err error
		if f, err = openChecked(lockPath(l.path), os.O_RDWR); err != nil {
			return
		}
		defer f.Close()
	}
	_, _ = f.WriteAt([]byte{spoolPending}, spoolFlagAt)
}

// lockState is what the lock file holds, read in one read: the head and the spool flag.
type lockState struct {
	head     head
	haveHead bool
	// flagged says the spool flag is set, or could not be read.
	flagged bool
}

// readLockState reads the lock file's head and spool flag; the caller holds the lock.
func (l *Log) readLockState() lockState {
	buf := make([]byte, spoolFlagAt+1)
	n, err := l.lock.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return lockState{flagged: true}
	}
	var st lockState
	st.head, st.haveHead = parseHead(buf[:min(n, headLen)])
	st.flagged = n < len(buf) || buf[spoolFlagAt] == spoolPending
	return st
}

// spoolsPending reports whether the spool flag is set, or cannot be trusted: a lock file
// without a head was made afresh, and spools from before it went unflagged.
func (st lockState) spoolsPending() bool { return st.flagged || !st.haveHead }

// mergeSpools appends the records of the spool files, oldest file first and each file in
// order, to the log, and removes each file merged; the caller holds the lock and found
// spools pending (lockState.spoolsPending). It stops after maxMergeBytes, and at the
// first record it cannot write (which stays spooled, with the records after it). Lines
// that are not records are dropped, and recorded as an incident.
func (l *Log) mergeSpools() {
	_, _ = l.lock.WriteAt([]byte{spoolNone}, spoolFlagAt)
	names, err := spoolFiles(l.path)
	if err != nil {
		return // a directory moat may not list (inside the sandbox): nothing to merge
	}
	budget := maxMergeBytes
	for _, name := range names {
		if budget <= 0 {
			l.markSpooled() // the rest is for the writers after this one
			return
		}
		n, err := l.mergeSpool(name)
		if err != nil {
			l.incident(incidentSpooled, fmt.Sprintf("merging %s: %v", name, err))
			l.markSpooled()
			return
		}
		if n < 0 {
			l.markSpooled() // held by its writer: merged later
			continue
		}
		budget -= n
	}
}

// mergeSpool merges one spool file and returns how many bytes it held. A file another
// writer holds is left for later, and reported as -1 bytes.
func (l *Log) mergeSpool(name string) (int, error) {
	f, err := openChecked(name, os.O_RDWR)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // merged by another writer since the listing
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	ok, err := tryLock(f, true)
	if err != nil {
		return 0, err
	}
	if !ok {
		return -1, nil // its writer holds it
	}
	defer unlockFile(f)
	if named, err := os.Lstat(name); err != nil || !sameFile(f, named) {
		return 0, nil // merged and removed between the open and the lock
	}
	data, err := io.ReadAll(io.LimitReader(f, 4*maxSpoolBytes))
	if err != nil {
		return 0, err
	}
	rest := data
	dropped := 0
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			dropped++ // its writer died in the middle of it
			break
		}
		line := rest[:i+1]
		r, perr := parseLine(line)
		if perr != nil {
			dropped++
			rest = rest[i+1:]
			continue
		}
		body, berr := l.body(r)
		if berr != nil {
			dropped++
			rest = rest[i+1:]
			continue
		}
		if err := l.appendLocked(body, l.readLockState()); err != nil {
			// Keep what is left for the next writer, without what was merged.
			if terr := rewrite(f, rest); terr != nil {
				return len(data), errors.Join(err, terr)
			}
			return len(data), err
		}
		rest = rest[i+1:]
	}
	if dropped > 0 {
		l.incident(incidentDropped, fmt.Sprintf("%s: %d lines that were not records were dropped", name, dropped))
	}
	if name == sharedSpoolPath(l.path) {
		if len(data) == 0 {
			return 0, nil
		}
		return len(data), rewrite(f, nil)
	}
	if err := os.Remove(name); err != nil {
		// Merged but not removed: empty it, so that its records are not merged twice.
		return len(data), errors.Join(err, rewrite(f, nil))
	}
	return len(data), nil
}

func sameFile(f *os.File, named fs.FileInfo) bool {
	held, err := f.Stat()
	return err == nil && os.SameFile(held, named)
}

// rewrite makes data the whole content of f.
func rewrite(f *os.File, data []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(data, 0)
	return err
}
