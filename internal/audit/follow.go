package audit

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultPoll is how often Follow looks for new records when FollowOptions.Poll is zero.
const DefaultPoll = 250 * time.Millisecond

// FollowOptions configures Follow.
type FollowOptions struct {
	// History delivers the records already in the log, rotated files included, before
	// the new ones. Without it Follow delivers only records appended after it starts.
	History bool
	// Poll is how often the log is looked at for new records; zero means DefaultPoll.
	Poll time.Duration
	// Bad receives each malformed line (a *LineError); nil ignores them.
	Bad func(error)
	// Caught, when set, is called once the history (if any) has been delivered, before
	// the first new record; its error stops Follow and is returned as it is.
	Caught func() error
}

// Follow calls fn, in order, for the records appended to the log at path, until ctx is
// done (then it returns nil) or fn fails (then it returns fn's error as it is).
//
// Follow survives rotation by the writers: when the active file has been moved away, it
// reads the moved file to its end, then every file rotated after it, then the new active
// file, so that no record is lost or delivered twice, however many rotations happened
// between two looks. A log that does not exist yet is waited for. A line still being
// written (no newline yet) is delivered once it is complete; malformed lines go to
// opts.Bad and do not stop Follow.
//
// Follow polls rather than subscribing to file system events: it works the same on every
// platform and file system, and a record is seen at most Poll after it is written.
func Follow(ctx context.Context, path string, opts FollowOptions, fn func(Record) error) error {
	fl := &follower{path: path, fn: func(_ []byte, r Record) error { return fn(r) }, bad: opts.Bad}
	if fl.bad == nil {
		fl.bad = func(error) {}
	}
	defer fl.close()
	if err := fl.start(opts.History); err != nil {
		return err
	}
	if opts.History {
		// start delivered the rotated files; the active file's records are history too,
		// and must come before Caught.
		if err := fl.drain(); err != nil {
			return err
		}
	}
	if opts.Caught != nil {
		if err := opts.Caught(); err != nil {
			return err
		}
	}
	tick := time.NewTicker(cmp.Or(opts.Poll, DefaultPoll))
	defer tick.Stop()
	for {
		if err := fl.drain(); err != nil {
			return err
		}
		moved, err := fl.followRotation()
		if err != nil {
			return err
		}
		if moved {
			continue // read what the new active file already holds at once
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// follower is the state of one Follow: the file being read and how far.
type follower struct {
	path string
	fn   func(line []byte, r Record) error // the line as the log holds it, and its record
	bad  func(error)

	f       *os.File // the file last seen at path; nil when there was none
	name    string   // f's name when opened, for errors
	pos     int64    // how far f has been read
	line    int      // complete lines read from f
	partial []byte   // the start of a line whose newline has not been written yet
	// skipLine drops the first line read: Follow started in its middle.
	skipLine bool
}

func (fl *follower) close() {
	if fl.f != nil {
		fl.f.Close()
		fl.f = nil
	}
}

// start takes a snapshot of the log, delivers it when history is wanted, and keeps the
// active file open to read on from where the snapshot ends.
func (fl *follower) start(history bool) error {
	files, err := snapshot(fl.path, fl.bad, nil)
	defer func() {
		for _, sf := range files {
			if sf.f != fl.f {
				sf.f.Close()
			}
		}
	}()
	if errors.Is(err, fs.ErrNotExist) {
		return nil // wait for the first writer
	}
	if err != nil {
		return err
	}
	last := files[len(files)-1]
	rotated := files
	if last.name == fl.path {
		rotated = files[:len(files)-1]
		fl.f, fl.name = last.f, last.name
		if !history {
			fl.pos = last.size
			fl.skipLine = last.size > 0 && !endsLine(last.f, last.size)
			// Number lines from the top of the file, for the errors about them.
			if fl.line, err = countLines(last); err != nil {
				return err
			}
		}
	}
	if !history {
		return nil
	}
	return fl.readWhole(rotated)
}

// endsLine reports whether the byte before size in f is a newline.
func endsLine(f *os.File, size int64) bool {
	var b [1]byte
	_, err := f.ReadAt(b[:], size-1)
	return err == nil && b[0] == '\n'
}

// countLines counts the newlines in the snapshot's part of sf.
func countLines(sf snapFile) (int, error) {
	buf := make([]byte, 64<<10)
	n := 0
	for off := int64(0); off < sf.size; {
		m, err := sf.f.ReadAt(buf[:min(int64(len(buf)), sf.size-off)], off)
		n += bytes.Count(buf[:m], []byte{'\n'})
		off += int64(m)
		if errors.Is(err, io.EOF) {
			break // the file was cut short since the snapshot
		}
		if err != nil {
			return 0, fmt.Errorf("follow audit log %s: %w", sf.name, err)
		}
	}
	return n, nil
}

// readWhole delivers every record of files, which no writer appends to any more.
func (fl *follower) readWhole(files []snapFile) error {
	for _, sf := range files {
		err := scanFile(sf, func(line []byte, lineNo int, r Record, perr error) error {
			switch {
			case perr == nil:
				return fl.fn(line, r)
			case line[len(line)-1] == '\n':
				fl.bad(&LineError{File: sf.name, Line: lineNo, Err: perr})
			}
			return nil // a cut-off last line, as Read skips it
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// drain delivers the complete lines appended to f since the last look.
func (fl *follower) drain() error {
	if fl.f == nil {
		return nil
	}
	fi, err := fl.f.Stat()
	if err != nil {
		return fmt.Errorf("follow audit log %s: %w", fl.name, err)
	}
	if fi.Size() < fl.pos {
		// A writer took back a line it could not finish (Append truncates after a failed
		// write): what was read of it is gone.
		fl.pos, fl.partial, fl.skipLine = fi.Size(), nil, false
	}
	buf := make([]byte, 64<<10)
	for fl.pos < fi.Size() {
		n, err := fl.f.ReadAt(buf[:min(int64(len(buf)), fi.Size()-fl.pos)], fl.pos)
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return fmt.Errorf("follow audit log %s: %w", fl.name, err)
		}
		fl.pos += int64(n)
		if err := fl.lines(buf[:n]); err != nil {
			return err
		}
	}
	return nil
}

// lines delivers the complete lines of chunk, joined to the partial line before it.
func (fl *follower) lines(chunk []byte) error {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			fl.partial = append(fl.partial, chunk...)
			return nil
		}
		line := chunk[:i+1]
		if len(fl.partial) > 0 {
			line = append(fl.partial, line...)
			fl.partial = nil
		}
		chunk = chunk[i+1:]
		fl.line++
		if fl.skipLine {
			fl.skipLine = false
			continue
		}
		if err := fl.deliver(line, true); err != nil {
			return err
		}
	}
	return nil
}

// deliver parses one line and passes it on; an incomplete line (the end of a file that
// will grow no more) is dropped silently when it does not parse, as Read does.
func (fl *follower) deliver(line []byte, complete bool) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	r, err := parseLine(line)
	switch {
	case err == nil:
		return fl.fn(line, r)
	case complete:
		fl.bad(&LineError{File: fl.name, Line: fl.line, Err: err})
	}
	return nil
}

// followRotation looks at what path names now. When it is still f, nothing happened.
// Otherwise f has been rotated (or removed): it is read to its end, then the files rotated
// after it, and the new active file becomes f. It reports whether f changed.
func (fl *follower) followRotation() (bool, error) {
	if fl.f != nil {
		named, err := os.Stat(fl.path)
		held, herr := fl.f.Stat()
		if herr != nil {
			return false, fmt.Errorf("follow audit log %s: %w", fl.name, herr)
		}
		if err == nil && os.SameFile(held, named) {
			return false, nil
		}
	} else if _, err := os.Stat(fl.path); err != nil {
		return false, nil
	}

	newer, active, err := fl.successors()
	defer func() {
		for _, sf := range newer {
			sf.f.Close()
		}
	}()
	if err != nil {
		if active != nil {
			active.Close()
		}
		return false, err
	}
	// f was rotated while the shared lock was not held; writers rotate under the exclusive
	// lock and never write to a rotated file, so its end is final now.
	if fl.f != nil {
		if err := fl.drain(); err != nil {
			active.Close()
			return false, err
		}
		if len(fl.partial) > 0 {
			err := fl.deliver(fl.partial, false)
			fl.partial = nil
			if err != nil {
				active.Close()
				return false, err
			}
		}
		fl.f.Close()
	}
	fl.f, fl.pos, fl.line, fl.partial, fl.skipLine = nil, 0, 0, nil, false
	if err := fl.readWhole(newer); err != nil {
		if active != nil {
			active.Close()
		}
		return false, err
	}
	if active != nil {
		fl.f, fl.name = active, fl.path
	}
	return true, nil
}

// successors opens, under the writers' lock, the rotated files newer than f (oldest first,
// whole) and the active file. When f is not among the rotated files any more (it was
// the oldest and has been dropped), every rotated file is newer than it.
func (fl *follower) successors() (newer []snapFile, active *os.File, err error) {
	if lock, err := openShared(lockPath(fl.path)); err == nil {
		defer lock.Close()
		if err := lockWithin(lock, false, readLockWait); err == nil {
			defer unlockFile(lock)
		}
	}
	var held os.FileInfo
	if fl.f != nil {
		if held, err = fl.f.Stat(); err != nil {
			return nil, nil, fmt.Errorf("follow audit log %s: %w", fl.name, err)
		}
	}
	nums, err := rotatedNumbers(fl.path)
	if err != nil {
		return nil, nil, fmt.Errorf("follow audit log %s: %w", fl.path, err)
	}
	// nums is newest first; keep those before f's own.
	if held != nil {
		for i, n := range nums {
			if fi, err := os.Stat(rotatedPath(fl.path, n)); err == nil && os.SameFile(held, fi) {
				nums = nums[:i]
				break
			}
		}
	} else {
		nums = nil // the log did not exist when Follow started: all of it is new
	}
	for _, n := range slices.Backward(nums) {
		name := rotatedPath(fl.path, n)
		f, err := openShared(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return newer, nil, fmt.Errorf("follow audit log: %w", err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return newer, nil, fmt.Errorf("follow audit log: %w", err)
		}
		newer = append(newer, snapFile{name: name, f: f, size: fi.Size()})
	}
	active, err = openShared(fl.path)
	if errors.Is(err, fs.ErrNotExist) {
		return newer, nil, nil // removed, not yet recreated: wait for it
	}
	if err != nil {
		return newer, nil, fmt.Errorf("follow audit log: %w", err)
	}
	return newer, active, nil
}

// rotatedNumbers returns the numbers of path's rotated files, newest (1) first.
func rotatedNumbers(path string) ([]int, error) {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(cmp.Or(dir, "."))
	if err != nil {
		return nil, err
	}
	var nums []int
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(suffix); err == nil && n > 0 && strconv.Itoa(n) == suffix {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}
