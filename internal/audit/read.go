package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"time"
)

// maxLineErrors bounds how many malformed lines Read reports one by one.
const maxLineErrors = 10

// LineError reports a line of an audit file that does not hold a well-formed record.
type LineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Read calls fn for every record of the log at path, oldest first: the kept files
// (path.kept.1, path.kept: the deny, ask and failure records of rotated files since
// dropped), the rotated files from the highest number down to path.1, then path itself.
//
// Read sees the log as it was at one instant: it opens every file and notes the active
// file's size while holding a shared lock on the lock file (when it can open it), then
// reads without the lock, so writers wait only for the files to be opened and records
// appended during the read are not delivered.
//
// A malformed line does not stop Read: every well-formed record is delivered, and once all
// files are read Read returns an error joining a *LineError (file and line number) for each
// of the first ten malformed lines and a count of any more. The last line of a file is
// different when it lacks its newline: that is a record a writer was cut off in the middle
// of, and it is skipped silently (delivered if it is nonetheless complete). Once another
// record has been appended after such a line, it is a malformed line like any other. Blank
// lines are skipped. A line is malformed when it is not one JSON object, or it has no time
// or no valid decision.
//
// Read stops at once and returns fn's error as it is when fn fails, and returns an I/O
// error wrapped with the file's name. When neither path nor any rotated file exists, the
// error wraps fs.ErrNotExist. A file of the log that is not a regular file (a FIFO, a
// device) is skipped, and its *RefusedError joined to the error like a malformed line.
func Read(path string, fn func(Record) error) error {
	var bad []error
	files, err := snapshot(path, func(err error) { bad = append(bad, err) }, nil)
	defer func() {
		for _, sf := range files {
			sf.f.Close()
		}
	}()
	if err != nil {
		return err // with the refusals, when there was nothing else
	}
	malformed := 0
	for _, sf := range files {
		err := readFile(sf, fn, func(le *LineError) {
			malformed++
			if malformed <= maxLineErrors {
				bad = append(bad, le)
			}
		})
		if err != nil {
			return err
		}
	}
	if more := malformed - maxLineErrors; more > 0 {
		bad = append(bad, fmt.Errorf("and %d more malformed lines", more))
	}
	return errors.Join(bad...)
}

// readLockWait bounds a reader's wait for the lock.
const readLockWait = time.Second

// logFiles names the files of the log at path, oldest first: the kept files, the rotated
// files from the highest number down, and path itself.
func logFiles(path string) ([]string, error) {
	nums, err := rotatedNumbers(path)
	if err != nil {
		return nil, err
	}
	slices.Reverse(nums)
	names := make([]string, 0, len(nums)+3)
	names = append(names, keptOldPath(path), keptPath(path))
	for _, n := range nums {
		names = append(names, rotatedPath(path, n))
	}
	return append(names, path), nil
}

// snapFile is one file of the log, open, with the size that belongs to the snapshot.
type snapFile struct {
	name string
	f    *os.File
	size int64
}

// snapshot opens the log's files oldest first. It returns the files it opened even with
// an error, for the caller to close. A file that is not a regular file is skipped, and
// passed to refusedFn; locked, when set, is called with the lock file while the shared lock
// is held (not at all when there is no lock file).
func snapshot(path string, refusedFn func(error), locked func(*os.File)) ([]snapFile, error) {
	if lock, err := openShared(lockPath(path)); err == nil {
		// Without the lock file (a log copied elsewhere, a read-only directory) the read is
		// still correct for a log no one is writing. Nor without the lock: a reader that
		// someone keeps waiting reads what is there, at the risk of meeting a rotation.
		defer lock.Close()
		if err := lockWithin(lock, false, readLockWait); err == nil {
			defer unlockFile(lock)
		}
		if locked != nil {
			locked(lock)
		}
	}
	names, err := logFiles(path)
	if err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}

	var files []snapFile
	var refusals []error
	for _, name := range names {
		f, err := openShared(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // the active file before the first write; a file removed by hand
		case errors.Is(err, ErrRefused):
			refusals = append(refusals, err)
			if refusedFn != nil {
				refusedFn(err)
			}
			continue
		case err != nil:
			return files, fmt.Errorf("read audit log: %w", err)
		}
		files = append(files, snapFile{name: name, f: f})
		fi, err := f.Stat()
		if err != nil {
			return files, fmt.Errorf("read audit log: %w", err)
		}
		files[len(files)-1].size = fi.Size()
	}
	if len(files) == 0 {
		if len(refusals) > 0 {
			// Something is there, and it is not a log: that is not "no log yet".
			return nil, fmt.Errorf("read audit log %s: %w", path, errors.Join(refusals...))
		}
		return nil, fmt.Errorf("read audit log %s: %w", path, fs.ErrNotExist)
	}
	return files, nil
}

// readFile delivers the records of one snapshot file to fn and malformed lines to bad.
func readFile(sf snapFile, fn func(Record) error, bad func(*LineError)) error {
	return scanFile(sf, func(line []byte, lineNo int, r Record, perr error) error {
		switch {
		case perr == nil:
			return fn(r)
		case line[len(line)-1] == '\n':
			bad(&LineError{File: sf.name, Line: lineNo, Err: perr})
		}
		// An incomplete final line that does not parse was cut off by a crash: skip it.
		return nil
	})
}

// scanFile calls fn with each non-blank line of one snapshot file (with its newline,
// when it has one: only the last line may lack it), its number, and the record it holds
// or why it holds none. fn's error stops the scan and is returned as it is.
func scanFile(sf snapFile, fn func(line []byte, lineNo int, r Record, perr error) error) error {
	br := bufio.NewReaderSize(io.LimitReader(sf.f, sf.size), 64<<10)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read audit log %s: %w", sf.name, err)
		}
		complete := err == nil
		if !complete && len(line) == 0 {
			return nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			r, perr := parseLine(line)
			if err := fn(line, lineNo, r, perr); err != nil {
				return err
			}
		}
		if !complete {
			return nil
		}
	}
}

// parseLine decodes one line into a record and checks that it is one.
func parseLine(line []byte) (Record, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return Record{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Record{}, errors.New("data after the record")
	}
	switch {
	case r.Time.IsZero():
		return Record{}, errors.New("record has no time")
	case r.Time.UTC().Year() < 0 || r.Time.UTC().Year() > 9999:
		return Record{}, errors.New("record's time is out of range")
	case !r.Decision.Valid():
		return Record{}, errors.New("record has no decision")
	}
	for i, f := range r.Findings {
		// A record is only what Append could have written: every finding is graded.
		if _, err := f.Severity.MarshalText(); err != nil {
			return Record{}, fmt.Errorf("finding %d (%q) has no valid severity", i+1, f.ID)
		}
	}
	return r, nil
}
