// Package audit records every decision moat makes as one redacted JSON line in a rotated log file.
package audit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/call"
)

// Record is one decision as the audit log stores it, one JSON object per line.
type Record struct {
	// Time is when the decision was made; Append writes it in UTC, RFC 3339 with
	// nanoseconds, and stamps a zero Time with the Log's clock.
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	Event   string    `json:"event,omitempty"` // the agent's event name, e.g. "pre_tool_use"
	Class   string    `json:"class"`
	Tool    string    `json:"tool"` // the tool's native name
	// MCP names the server and tool of an MCP call ("mcp:server/tool"), which the native
	// name of some agents' events does not (Cursor's beforeMCPExecution, Windsurf's
	// pre_mcp_tool_use).
	MCP      string         `json:"mcp,omitempty"`
	Args     map[string]any `json:"args,omitempty"`
	Cwd      string         `json:"cwd,omitempty"`
	Decision call.Verdict   `json:"decision"`
	// Answer is what the agent was told, when that is not the decision itself: "defer"
	// (moat expressed no opinion, so the agent's own permission system decided), or
	// "deny" (an ask the agent could not have shown to anyone).
	Answer string `json:"answer,omitempty"`
	// Failure marks a decision moat could not make (an unreadable event, a policy that
	// would not load, an internal error): Decision is then what the fail mode answered.
	Failure  bool           `json:"failure,omitempty"`
	Rule     string         `json:"rule,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Findings []call.Finding `json:"findings,omitempty"`
	// LatencyMS is how long the evaluation took, in milliseconds.
	LatencyMS float64 `json:"latency_ms"`
	// Policy names the policy that decided: a path, or "embedded:recommended".
	Policy string `json:"policy,omitempty"`
}

// Redactor masks the secrets a detector can find in a string. It must be safe for
// concurrent use when a Log is shared between goroutines.
type Redactor interface {
	RedactString(string) string
}

// Defaults for Options fields left zero.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 5
)

// Options configures a Log.
type Options struct {
	// Path is the active log file, typically $XDG_STATE_HOME/moat/audit.jsonl. Rotated
	// files are Path.1 (newest) to Path.Keep (oldest); Path.lock coordinates writers and
	// is never removed.
	Path string
	// MaxBytes is the size the active file may reach before it is rotated; zero means
	// DefaultMaxBytes. A record larger than MaxBytes is still written, alone in a fresh file.
	MaxBytes int64
	// Keep is how many rotated files are kept; zero means DefaultKeep.
	Keep int
	// Redactor masks secrets before anything is written. It is required.
	Redactor Redactor
	// Now stamps records whose Time is zero; nil means time.Now.
	Now func() time.Time
}

// Log appends records to an audit log shared by any number of processes. Each Append
// takes an exclusive lock on the sibling lock file around checking the size, rotating when
// needed and writing the record as a single line, so concurrent writers never interleave,
// never write partial lines and never write to a file that another writer has rotated
// away. A Log is safe for concurrent use.
//
// Where the platform has no file locking (anything but unix and Windows) writers are
// serialized only within one Log, and concurrent processes may interleave lines.
type Log struct {
	path     string
	maxBytes int64
	keep     int
	redactor Redactor
	now      func() time.Time

	mu   sync.Mutex // serializes this Log's appends; the lock file serializes processes
	lock *os.File
	f    *os.File // the active file as this Log last opened it; nil once closed
}

// Open prepares the log at opts.Path, creating its directory (mode 0700) and the file
// (mode 0600) when they are missing.
func Open(opts Options) (*Log, error) {
	switch {
	case opts.Path == "":
		return nil, errors.New("open audit log: no path")
	case opts.Redactor == nil:
		return nil, fmt.Errorf("open audit log %s: a Redactor is required", opts.Path)
	case opts.MaxBytes < 0:
		return nil, fmt.Errorf("open audit log %s: negative MaxBytes %d", opts.Path, opts.MaxBytes)
	case opts.Keep < 0:
		return nil, fmt.Errorf("open audit log %s: negative Keep %d", opts.Path, opts.Keep)
	}
	l := &Log{
		path:     opts.Path,
		maxBytes: cmp.Or(opts.MaxBytes, DefaultMaxBytes),
		keep:     cmp.Or(opts.Keep, DefaultKeep),
		redactor: opts.Redactor,
		now:      opts.Now,
	}
	if l.now == nil {
		l.now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	lock, err := os.OpenFile(lockPath(l.path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	f, err := openAppend(l.path)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l.lock, l.f = lock, f
	return l, nil
}

func lockPath(path string) string { return path + ".lock" }

// WriterFiles are the files a writer of the log at path opens for writing when no
// rotation is due: the active file and the lock file. A sandbox that lets moat's hooks
// record grants exactly these.
func WriterFiles(path string) []string { return []string{path, lockPath(path)} }

// rotatedPath names the n-th rotated file, 1 being the newest.
func rotatedPath(path string, n int) string { return path + "." + strconv.Itoa(n) }

// Append redacts r and appends it to the log as one line. r itself is not modified. A
// record that cannot be encoded (an invalid decision or finding severity) is an error and
// nothing is written.
func (l *Log) Append(r Record) error {
	line, err := l.encode(r)
	if err != nil {
		return fmt.Errorf("append to audit log %s: %w", l.path, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("append to audit log %s: %w", l.path, fs.ErrClosed)
	}
	if err := lockFile(l.lock, true); err != nil {
		return fmt.Errorf("append to audit log %s: lock: %w", l.path, err)
	}
	err = l.appendLocked(line)
	if uerr := unlockFile(l.lock); uerr != nil && err == nil {
		err = fmt.Errorf("unlock: %w", uerr)
	}
	if err != nil {
		return fmt.Errorf("append to audit log %s: %w", l.path, err)
	}
	return nil
}

// encode renders the redacted record as a JSON line ending in a newline.
func (l *Log) encode(r Record) ([]byte, error) {
	r = redactRecord(r, l.redactor)
	if r.Time.IsZero() {
		r.Time = l.now()
	}
	r.Time = r.Time.UTC()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // shell commands are full of & < >; keep them readable
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return buf.Bytes(), nil
}

// appendLocked writes line to the active file; the caller holds the lock file.
func (l *Log) appendLocked(line []byte) error {
	size, err := l.reopenIfRotated()
	if err != nil {
		return err
	}
	if size > 0 && size+int64(len(line)) > l.maxBytes {
		switch err := l.rotate(); {
		case errors.Is(err, fs.ErrPermission):
			// A writer that may append but not rename (one inside moat's sandbox, where
			// the directory is protected) keeps the record in the active file, past the
			// size: a writer outside rotates it later. Losing the record would be worse.
			if size, err = l.reopenIfRotated(); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			size = 0
		}
	}
	if size > 0 {
		// A writer that died in the middle of a write leaves a line without its newline.
		// End that line first, so that this record is not glued onto it and lost.
		var last [1]byte
		if _, err := l.f.ReadAt(last[:], size-1); err != nil {
			return fmt.Errorf("read last byte: %w", err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if n, err := l.f.Write(line); err != nil {
		if n > 0 {
			// Take back the partial line (best effort: the write already failed).
			_ = l.f.Truncate(size)
		}
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// reopenIfRotated makes l.f the file currently at l.path, reopening it when another writer
// has rotated or removed the one l.f holds, and returns its size.
func (l *Log) reopenIfRotated() (int64, error) {
	held, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	named, err := os.Stat(l.path)
	switch {
	case err == nil && os.SameFile(held, named):
		return held.Size(), nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("stat: %w", err)
	}
	f, err := openAppend(l.path)
	if err != nil {
		return 0, fmt.Errorf("reopen after rotation: %w", err)
	}
	l.f.Close() // the rotated file was only read from and appended to; nothing to flush
	l.f = f
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return fi.Size(), nil
}

// rotate shifts Path.1 … Path.(Keep-1) up by one, dropping the oldest, moves the active
// file to Path.1 and opens a fresh active file. The caller holds the lock file.
func (l *Log) rotate() error {
	for n := l.keep - 1; n >= 1; n-- {
		err := os.Rename(rotatedPath(l.path, n), rotatedPath(l.path, n+1))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	if err := os.Rename(l.path, rotatedPath(l.path, 1)); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	f, err := openAppend(l.path)
	if err != nil {
		// l.f now holds Path.1; the next Append notices and tries to reopen again.
		return fmt.Errorf("rotate: %w", err)
	}
	l.f.Close()
	l.f = f
	return nil
}

// Close releases the log's files. Appending after Close is an error.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := errors.Join(l.f.Close(), l.lock.Close())
	l.f, l.lock = nil, nil
	if err != nil {
		return fmt.Errorf("close audit log %s: %w", l.path, err)
	}
	return nil
}
