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

// Read calls fn for every record of the log at path, oldest first: the rotated files from
// the highest number down to path.1, then path itself.
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
// error wraps fs.ErrNotExist.
func Read(path string, fn func(Record) error) error {
	files, err := snapshot(path)
	defer func() {
		for _, sf := range files {
			sf.f.Close()
		}
	}()
	if err != nil {
		return err
	}
	var bad []error
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

// snapFile is one file of the log, open, with the size that belongs to the snapshot.
type snapFile struct {
	name string
	f    *os.File
	size int64
}

// snapshot opens the log's files oldest first. It returns the files it opened even with
// an error, for the caller to close.
func snapshot(path string) ([]snapFile, error) {
	if lock, err := openShared(lockPath(path)); err == nil {
		// Without the lock file (a log copied elsewhere, a read-only directory) the read is
		// still correct for a log no one is writing.
		defer lock.Close()
		if err := lockFile(lock, false); err == nil {
			defer unlockFile(lock)
		}
	}
	nums, err := rotatedNumbers(path)
	if err != nil {
		return nil, fmt.Errorf("read audit log %s: %w", path, err)
	}
	slices.Reverse(nums)
	names := make([]string, 0, len(nums)+1)
	for _, n := range nums {
		names = append(names, rotatedPath(path, n))
	}
	names = append(names, path)

	var files []snapFile
	for _, name := range names {
		f, err := openShared(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // the active file before the first write; a file removed by hand
		}
		if err != nil {
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
		return nil, fmt.Errorf("read audit log %s: %w", path, fs.ErrNotExist)
	}
	return files, nil
}

// readFile delivers the records of one snapshot file to fn and malformed lines to bad.
func readFile(sf snapFile, fn func(Record) error, bad func(*LineError)) error {
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
			switch {
			case perr == nil:
				if err := fn(r); err != nil {
					return err
				}
			case complete:
				bad(&LineError{File: sf.name, Line: lineNo, Err: perr})
			}
			// An incomplete final line that does not parse was cut off by a crash: skip it.
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
	case !r.Decision.Valid():
		return Record{}, errors.New("record has no decision")
	}
	return r, nil
}
