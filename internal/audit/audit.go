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
	"sync/atomic"
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
	// ManagedSerial is the serial of the signed managed policy in force (a policy bundle
	// the daemon fetched, or a signed managed.yaml), so that a fleet can tell which
	// machines decided with which version; 0 when the managed layer is unsigned or absent.
	ManagedSerial int64 `json:"managed_serial,omitempty"`

	// The fields below are the log's own: Append sets them and ignores what the caller
	// put there. They come last, so that sealing a line (see seal) only appends to it.

	// Clipped says how a record longer than Options.MaxRecordBytes was summarised to fit:
	// its length and digest before, and what was cut.
	Clipped string `json:"clipped,omitempty"`
	// Seq numbers the records of a log from 1, across rotations.
	Seq uint64 `json:"seq,omitempty"`
	// Chain is "sha256:" and the hex SHA-256 of the previous record's line (its bytes
	// without the newline), or "start" for the first record of a log. A record whose
	// chain does not match the line before it was edited, moved or had records removed
	// before it; Verify reports them.
	Chain string `json:"chain,omitempty"`
}

// Redactor masks the secrets a detector can find in a string. It must be safe for
// concurrent use when a Log is shared between goroutines.
type Redactor interface {
	RedactString(string) string
}

// Defaults for Options fields left zero.
const (
	DefaultMaxBytes       = 10 << 20
	DefaultKeep           = 5
	DefaultMaxRecordBytes = 16 << 10
	// DefaultLockWait bounds the wait for the log's lock: a hook records its decision
	// before it answers, and an agent takes a hook that does not answer for a yes.
	DefaultLockWait = 300 * time.Millisecond
)

// minRecordBytes is the smallest MaxRecordBytes: a record's fixed fields, each clipped,
// must fit.
const minRecordBytes = 4 << 10

// ErrSpooled is wrapped by Append's error when the record could not be written to the log
// (its lock was held, a file was refused, a write failed) but was kept in a spool file
// beside it, which the next writer that takes the lock merges into the log.
var ErrSpooled = errors.New("was spooled")

// errNotRotated says that a rotation was not begun, because the records it would have
// dropped could not be kept first.
var errNotRotated = errors.New("not rotated")

// Options configures a Log.
type Options struct {
	// Path is the active log file, typically $XDG_STATE_HOME/moat/audit.jsonl. Rotated
	// files are Path.1 (newest) to Path.Keep (oldest); Path.lock coordinates writers (and
	// holds the head, see head) and is never removed; Path.kept holds the deny, ask and
	// failure records of rotated files that were dropped; Path.spool.* hold records
	// waiting to be merged; Path.incidents lists what writers met.
	Path string
	// MaxBytes is the size the active file may reach before it is rotated; zero means
	// DefaultMaxBytes. A record larger than MaxBytes is still written, alone in a fresh file.
	MaxBytes int64
	// Keep is how many rotated files are kept; zero means DefaultKeep.
	Keep int
	// MaxRecordBytes caps one record's line: a longer record is summarised (see Clipped);
	// zero means DefaultMaxRecordBytes, and it may not be below 4 KiB.
	MaxRecordBytes int
	// LockWait bounds the wait for the lock; zero means DefaultLockWait. A record whose
	// writer cannot take the lock in time is spooled.
	LockWait time.Duration
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
// Append never waits on the lock for longer than Options.LockWait, and never writes
// through a link or to anything but a regular file of the user's: a record it cannot
// write goes to a spool file that the next writer merges (see ErrSpooled).
//
// Where the platform has no file locking (anything but unix and Windows) writers are
// serialized only within one Log, and concurrent processes may interleave lines.
type Log struct {
	path      string
	maxBytes  int64
	keep      int
	maxRecord int
	lockWait  time.Duration
	redactor  Redactor
	now       func() time.Time

	mu      sync.Mutex // serializes this Log's appends; the lock file serializes processes
	closed  bool
	lastSeq uint64      // the number the last record appended got, under mu (AppendSeq)
	waiting atomic.Bool // a blocking wait for the lock is under way (see takeLock)
	lock    *os.File    // the lock file, opened by the first Append; nil until then
	f       *os.File    // the active file as this Log last opened it; nil until then
	spoolF  *os.File    // this Log's spool file, once it needed one
}

// Open prepares the log at opts.Path, creating its directory (mode 0700) and its files
// (mode 0600) when they are missing. Open fails only on bad options or a directory it
// cannot create: the files are checked again by each Append, where a file that is refused
// costs the record nothing but a spool.
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
	case opts.MaxRecordBytes != 0 && opts.MaxRecordBytes < minRecordBytes:
		return nil, fmt.Errorf("open audit log %s: MaxRecordBytes %d is below %d", opts.Path, opts.MaxRecordBytes, minRecordBytes)
	case opts.LockWait < 0:
		return nil, fmt.Errorf("open audit log %s: negative LockWait %v", opts.Path, opts.LockWait)
	}
	l := &Log{
		path:      opts.Path,
		maxBytes:  cmp.Or(opts.MaxBytes, DefaultMaxBytes),
		keep:      cmp.Or(opts.Keep, DefaultKeep),
		maxRecord: cmp.Or(opts.MaxRecordBytes, DefaultMaxRecordBytes),
		lockWait:  cmp.Or(opts.LockWait, DefaultLockWait),
		redactor:  opts.Redactor,
		now:       opts.Now,
	}
	if l.now == nil {
		l.now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	// Create the files now, so that they exist (mode 0600) from the start; a file that
	// is refused is refused again, and reported, by Append, which spools the record.
	if checkDir(filepath.Dir(l.path)) == nil && l.openLock() == nil {
		_, _ = l.active()
	}
	return l, nil
}

func lockPath(path string) string { return path + ".lock" }

// LockPath names the lock file of the log at path, which writers flock.
func LockPath(path string) string { return lockPath(path) }

// WriterFiles are the files a writer of the log at path opens for writing when no
// rotation is due: the active file, the shared spool (see sharedSpoolPath) and, last,
// the lock file. A sandbox that lets moat's hooks record grants exactly these, and
// creates them beforehand: inside, no other file can be created.
func WriterFiles(path string) []string {
	return []string{path, sharedSpoolPath(path), lockPath(path)}
}

// rotatedPath names the n-th rotated file, 1 being the newest.
func rotatedPath(path string, n int) string { return path + "." + strconv.Itoa(n) }

// Append redacts r and appends it to the log as one line, numbered and chained to the
// line before it. r itself is not modified.
//
// Append returns nil once the record is in the log. When it could not be written there
// in time (the lock was held longer than Options.LockWait, a file of the log was refused,
// a write failed), it is kept in a spool file and the error wraps ErrSpooled, and the
// cause: ErrLockBusy, ErrRefused or the I/O error; the caller should tell the user. Any
// other error means the record is lost: it could not be encoded (an invalid decision or
// finding severity), or neither the log nor a spool file could be written.
func (l *Log) Append(r Record) error {
	_, err := l.AppendSeq(r)
	return err
}

// AppendSeq is Append, returning the number (Seq) the record got in the log, which moat
// logs shows and later decisions name it by. A record that is not in the log (spooled or
// lost) has no number yet: 0, with Append's error.
func (l *Log) AppendSeq(r Record) (uint64, error) {
	body, err := l.encode(r)
	if err != nil {
		return 0, fmt.Errorf("append to audit log %s: %w", l.path, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, fmt.Errorf("append to audit log %s: %w", l.path, fs.ErrClosed)
	}
	l.lastSeq = 0
	werr := l.write(body)
	if werr == nil {
		return l.lastSeq, nil
	}
	name, serr := l.spool(body)
	if serr != nil {
		l.incident(incidentLost, fmt.Sprintf("%v; spooling it failed too: %v", werr, serr))
		return 0, fmt.Errorf("append to audit log %s: %w; the record is lost: it could not be spooled either: %v", l.path, werr, serr)
	}
	kind := incidentSpooled
	if errors.Is(werr, ErrRefused) {
		kind = incidentRefused
	}
	l.incident(kind, werr.Error())
	return 0, fmt.Errorf("append to audit log %s: %w; the record %w to %s, for the next writer to merge", l.path, werr, ErrSpooled, name)
}

// write appends body to the log under the lock, merging the spooled records first.
func (l *Log) write(body []byte) error {
	err := checkDir(filepath.Dir(l.path))
	if errors.Is(err, fs.ErrNotExist) {
		// Removed since Open (a long-lived writer): made again, as Open makes it.
		if err = os.MkdirAll(filepath.Dir(l.path), 0o700); err == nil {
			err = checkDir(filepath.Dir(l.path))
		}
	}
	if err != nil {
		return err
	}
	if err := l.openLock(); err != nil {
		return err
	}
	if err := l.takeLock(); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer func() {
		if err := unlockFile(l.lock); err != nil {
			// Closing the file releases the lock; the next Append opens it again.
			l.lock.Close()
			l.lock = nil
		}
	}()
	// The lock file is read once: its head and spool flag. Spooled records are older
	// than this one: they go first. A spool that cannot be merged now stays for the
	// next writer, and Inspect shows it. Merging appends records, so the head is read
	// again after a merge.
	state := l.readLockState()
	if state.spoolsPending() {
		l.mergeSpools()
		state = l.readLockState()
	}
	return l.appendLocked(body, state)
}

// openLock opens the lock file, or checks that the one open is still the one at its name:
// a lock on a file that was replaced would exclude no one.
func (l *Log) openLock() error {
	name := lockPath(l.path)
	if l.lock != nil {
		held, herr := l.lock.Stat()
		named, nerr := os.Lstat(name)
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return nil
		}
		l.lock.Close()
		l.lock = nil
	}
	f, err := openChecked(name, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("open lock: %w", err)
	}
	l.lock = f
	return nil
}

// encode renders the redacted record, summarised when it is too long, as a JSON line
// ending in a newline, without its seq and chain: those are added under the lock (seal).
func (l *Log) encode(r Record) ([]byte, error) {
	r.Clipped, r.Seq, r.Chain = "", 0, ""
	r = redactRecord(r, l.redactor)
	if r.Time.IsZero() {
		r.Time = l.now()
	}
	r.Time = r.Time.UTC()
	return l.body(r)
}

// body renders r, already redacted, as a line without seq and chain, summarised to fit
// the record cap.
func (l *Log) body(r Record) ([]byte, error) {
	r.Seq, r.Chain = 0, ""
	line, err := marshalLine(r)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(l.maxRecord, DefaultMaxRecordBytes) - maxSealLen
	if len(line) <= limit {
		return line, nil
	}
	return summarise(r, line, limit)
}

// marshalLine encodes r as one JSON line.
func marshalLine(r Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // shell commands are full of & < >; keep them readable
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return buf.Bytes(), nil
}

// appendLocked writes body, sealed, to the active file; the caller holds the lock file.
// state is what the lock file said once the lock was taken (readLockState).
func (l *Log) appendLocked(body []byte, state lockState) error {
	fi, err := l.active()
	if err != nil {
		return err
	}
	size := fi.Size()
	if size > 0 && size+int64(len(body)+maxSealLen) > l.maxBytes {
		switch err := l.rotate(); {
		case errors.Is(err, fs.ErrPermission), errors.Is(err, errNotRotated):
			// A writer that may append but not rename (one inside moat's sandbox, where
			// the directory is protected), or one that cannot keep the records rotation
			// would drop, keeps the record in the active file, past the size: a writer
			// outside rotates it later. Losing the record would be worse.
			if !errors.Is(err, fs.ErrPermission) {
				l.incident(incidentNotRotated, err.Error())
			}
			if fi, err = l.active(); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			if fi, err = l.f.Stat(); err != nil {
				return fmt.Errorf("stat: %w", err)
			}
		}
		size = fi.Size()
	}
	seq, chain, asLeft := l.next(fi, state)
	line := seal(body, seq, chain)
	if size > 0 && !asLeft {
		// A writer that died in the middle of a write leaves a line without its newline.
		// End that line first, so that this record is not glued onto it and lost. A file
		// as the head left it ends with the newline of the head's record: its writer
		// writes the head only after writing the whole line.
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
	l.writeHead(fi, size+int64(len(line)), seq, line)
	l.lastSeq = seq
	return nil
}

// active makes l.f the file now at l.path, opening it when this Log has none yet or when
// another writer has rotated or removed the one it holds, and returns its stat. The file
// is checked each time: a hard link added since it was opened is refused too.
func (l *Log) active() (fs.FileInfo, error) {
	if l.f != nil {
		held, err := l.f.Stat()
		if err != nil {
			return nil, fmt.Errorf("stat: %w", err)
		}
		named, err := os.Lstat(l.path)
		switch {
		case err == nil && os.SameFile(held, named):
			if err := checkFile(l.path, held); err != nil {
				return nil, err
			}
			return held, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("stat: %w", err)
		}
		l.f.Close() // the rotated file was only read from and appended to; nothing to flush
		l.f = nil
	}
	f, err := openChecked(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	l.f = f
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	return fi, nil
}

// rotate shifts Path.1 … Path.(Keep-1) up by one, dropping the oldest once its deny, ask
// and failure records are kept (see carry), moves the active file to Path.1 and opens a
// fresh active file. The caller holds the lock file.
func (l *Log) rotate() error {
	if err := l.carry(rotatedPath(l.path, l.keep)); err != nil {
		return fmt.Errorf("rotate: %w: %w", errNotRotated, err)
	}
	for n := l.keep - 1; n >= 1; n-- {
		err := os.Rename(rotatedPath(l.path, n), rotatedPath(l.path, n+1))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotate: %w", err)
		}
	}
	if err := os.Rename(l.path, rotatedPath(l.path, 1)); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	f, err := openChecked(l.path, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err != nil {
		// l.f now holds Path.1; the next Append notices and tries to reopen again.
		return fmt.Errorf("rotate: %w", err)
	}
	l.f.Close()
	l.f = f
	return nil
}

// Close releases the log's files. Appending after Close is an error. Records this Log
// spooled stay in its spool file for the next writer to merge.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	var errs []error
	for _, f := range []*os.File{l.f, l.lock, l.spoolF} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	l.f, l.lock, l.spoolF = nil, nil, nil
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close audit log %s: %w", l.path, err)
	}
	return nil
}
