package audit

import (
	"errors"
	"fmt"
	"os"
)

// Tail reads the lines of a log as the log holds them, from its oldest record on, one
// step at a time: each Next delivers the complete lines appended since the step before,
// across rotations, as Follow does, but without waiting. It is for a store that mirrors
// the log (the daemon's audit database), which needs each line's bytes to keep the
// log's chain. A Tail is not safe for concurrent use.
type Tail struct {
	fl      follower
	started bool
}

// NewTail returns a Tail of the log at path; its first Next delivers the whole log.
func NewTail(path string) *Tail {
	return &Tail{fl: follower{path: path}}
}

// Next calls fn, oldest first, with each line appended since the last call (the whole
// log on the first call, kept and rotated files included) and the record it holds; line
// ends with its newline, except the cut-off last line of a rotated file. Malformed lines
// go to bad (nil ignores them). A log that does not exist yet delivers nothing. fn's
// error stops Next and is returned as it is; the lines delivered before it are not
// delivered again.
func (t *Tail) Next(fn func(line []byte, r Record) error, bad func(error)) error {
	t.fl.fn, t.fl.bad = fn, bad
	if t.fl.bad == nil {
		t.fl.bad = func(error) {}
	}
	if !t.started {
		if err := t.fl.start(true); err != nil {
			return err
		}
		t.started = true
	}
	for {
		if err := t.fl.drain(); err != nil {
			return err
		}
		moved, err := t.fl.followRotation()
		if err != nil || !moved {
			return err
		}
	}
}

// Close releases the file the Tail holds open.
func (t *Tail) Close() { t.fl.close() }

// LastLine returns the log's newest complete line (without its newline) and the record
// it holds: the last line of the active file, or of the newest rotated file when the
// active one is empty or missing. It returns a nil line when the log holds no record.
func LastLine(path string) ([]byte, Record, error) {
	for _, name := range []string{path, rotatedPath(path, 1)} {
		fi, err := os.Lstat(name)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, Record{}, fmt.Errorf("read audit log %s: %w", name, err)
		}
		if fi.Size() == 0 {
			continue
		}
		line := lastLineOf(name)
		if line == nil {
			continue
		}
		r, err := parseLine(line)
		if err != nil {
			return nil, Record{}, fmt.Errorf("read audit log %s: last line: %w", name, err)
		}
		return line, r, nil
	}
	return nil, Record{}, nil
}
