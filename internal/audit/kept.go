package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/moatdev/moat/internal/call"
)

// Retention. Rotation drops the oldest file whole; were every record equal, a burst of
// large allowed calls could push an earlier denied attempt out of the trail. So before the
// oldest file is dropped, its deny, ask and failure records are copied to Path.kept, in
// order and chained among themselves (each to the line before it in the kept file). When
// the kept file would pass MaxBytes it becomes Path.kept.1 (dropping the one before) and a
// fresh kept file chains on from it. Those records therefore outlive the allowed ones by
// at least MaxBytes of other such records.

// keptPath names the file holding the records kept from dropped rotations.
func keptPath(path string) string { return path + ".kept" }

// keptOldPath names the kept file before the current one.
func keptOldPath(path string) string { return keptPath(path) + ".1" }

// keepLonger reports whether r is kept when its file is rotated away: what was refused,
// what needed approval, and what moat could not decide.
func keepLonger(r Record) bool {
	return r.Decision == call.Deny || r.Decision == call.Ask || r.Failure
}

// mayKeepLonger is a cheap test that a line may hold such a record: the JSON of a
// record's own fields. Strings inside a record escape their quotes, so an argument cannot
// fake it; a line it passes is parsed before it is kept.
func mayKeepLonger(line []byte) bool {
	for _, s := range [...]string{`"decision":"deny"`, `"decision":"ask"`, `"failure":true`} {
		if bytes.Contains(line, []byte(s)) {
			return true
		}
	}
	return false
}

// carry copies the records of the rotated file at dropping that keepLonger keeps into the
// kept file, before rotation drops it. The caller holds the lock.
func (l *Log) carry(dropping string) error {
	src, err := openChecked(dropping, os.O_RDONLY)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrRefused):
		// Nothing to drop; or something planted at the name, not a file of the log's:
		// the rotation replaces the name and nothing of it is the log's to keep.
		return nil
	case err != nil:
		return fmt.Errorf("keep records of %s: %w", dropping, err)
	}
	defer src.Close()
	var bodies [][]byte
	var seqs []uint64
	br := bufio.NewReaderSize(src, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' && mayKeepLonger(line) {
			if r, perr := parseLine(line); perr == nil && keepLonger(r) {
				if body, berr := l.body(r); berr == nil {
					bodies, seqs = append(bodies, body), append(seqs, r.Seq)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("keep records of %s: %w", dropping, err)
		}
	}
	if len(bodies) == 0 {
		return nil
	}
	if err := l.appendKept(bodies, seqs); err != nil {
		return fmt.Errorf("keep records of %s: %w", dropping, err)
	}
	return nil
}

// appendKept appends the record bodies, numbered seqs, to the kept file, chained.
func (l *Log) appendKept(bodies [][]byte, seqs []uint64) error {
	name := keptPath(l.path)
	f, err := openChecked(name, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	total := int64(0)
	for _, b := range bodies {
		total += int64(len(b) + maxSealLen)
	}
	if fi.Size() > 0 && fi.Size()+total > l.maxBytes {
		if err := os.Rename(name, keptOldPath(l.path)); err != nil {
			return err
		}
		f.Close()
		if f, err = openChecked(name, os.O_RDWR|os.O_APPEND|os.O_CREATE); err != nil {
			return err
		}
		if fi, err = f.Stat(); err != nil {
			return err
		}
	}
	size := fi.Size()
	prev := chainStart
	last := lastLine(f, size)
	if last == nil && size == 0 {
		last = lastLineOf(keptOldPath(l.path))
	}
	if last != nil {
		prev = lineHash(last)
	}
	var out []byte
	if size > 0 && !endsLine(f, size) {
		out = append(out, '\n')
	}
	for i, b := range bodies {
		line := seal(b, seqs[i], prev)
		out = append(out, line...)
		prev = lineHash(line)
	}
	if n, err := f.Write(out); err != nil {
		if n > 0 {
			_ = f.Truncate(size)
		}
		return err
	}
	return nil
}
