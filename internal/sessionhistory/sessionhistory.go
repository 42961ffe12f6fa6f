// Package sessionhistory keeps what the recorded calls of each agent session left behind
// (downloads, written files, credentials read) in one small state file per session, so
// that a later call of the session is judged with the earlier ones (cross-call
// correlation).
package sessionhistory

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/shell"
)

// Bounds of one session's file. A session that goes past them forgets its oldest facts
// first: the chains correlation completes are a few calls long.
const (
	// MaxFacts bounds the downloads, the written files and the credential reads kept,
	// each.
	MaxFacts = 128
	// MaxText bounds the text kept of one written file; a longer text is kept as
	// written with text moat could not read, as a line that wrote it through a program
	// would be.
	MaxText = 64 << 10
	// MaxBytes bounds the whole file: the oldest written texts go first past it.
	MaxBytes = 1 << 20
	// DefaultIdle is how long a session's history outlives its last recorded call.
	DefaultIdle = 12 * time.Hour
)

// Store keeps the histories of a user's sessions in a directory of the user's moat state
// (self-protection keeps agents from writing there). It is safe for concurrent use, and
// processes sharing the directory share the histories: every update holds the file's lock.
type Store struct {
	dir  string
	now  func() time.Time
	idle time.Duration

	// read keeps the histories last read, by file, with the identity of the file they
	// were read from: a file replaced since (every update renames a new one in) is
	// read again. A long-lived process (the daemon, a proxy) then decodes a session's
	// file once per change, not once per call.
	mu    sync.Mutex
	cache map[string]cached
}

// cached is a history read from a file, and that file's identity.
type cached struct {
	info fs.FileInfo
	f    *file
}

// maxCached bounds the histories kept read; past it, the cache starts over.
const maxCached = 64

// Options configure a Store.
type Options struct {
	// Dir is the directory of the state files (dirs.Dirs.Sessions()).
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Idle is how long a history is kept after its last update; 0 is DefaultIdle.
	Idle time.Duration
}

// Open returns the store in opts.Dir; nothing is read or created until it is used.
func Open(opts Options) *Store {
	s := &Store{dir: opts.Dir, now: opts.Now, idle: opts.Idle}
	if s.now == nil {
		s.now = time.Now
	}
	if s.idle <= 0 {
		s.idle = DefaultIdle
	}
	return s
}

// file is the on-disk form of one session's history.
type file struct {
	Agent     string       `json:"agent"`
	Session   string       `json:"session"`
	Updated   time.Time    `json:"time"` // of the last update
	Downloads []pathFact   `json:"downloads,omitempty"`
	Written   []writeFact  `json:"written,omitempty"`
	Secrets   []secretFact `json:"secrets,omitempty"`
}

type pathFact struct {
	Path string `json:"path"`
	Seq  uint64 `json:"seq,omitempty"` // the record of the call; 0 when it has none yet
}

type writeFact struct {
	Path    string `json:"path"`
	Text    string `json:"text,omitempty"`
	Known   bool   `json:"known,omitempty"`
	Partial bool   `json:"partial,omitempty"`
	Seq     uint64 `json:"seq,omitempty"`
}

type secretFact struct {
	What string `json:"what"`
	Seq  uint64 `json:"seq,omitempty"`
}

// path names the file of a session: a hash, since agents choose session ids.
func (s *Store) path(agent, session string) string {
	h := sha256.Sum256([]byte(agent + "\x00" + session))
	return filepath.Join(s.dir, hex.EncodeToString(h[:12])+".json")
}

// Earlier returns what the earlier recorded calls of the agent's session left behind,
// or nil when they left nothing (or the session is unnamed, or its history expired). An
// unreadable or corrupt file is an error: the caller reports it.
func (s *Store) Earlier(agent, session string) (*shell.Earlier, error) {
	if session == "" {
		return nil, nil
	}
	f, err := s.read(s.path(agent, session))
	if err != nil || f == nil || !s.current(f, agent, session) {
		return nil, err
	}
	return f.earlier(), nil
}

// read reads a state file; a missing one is nil, no error. The file returned may be
// shared with other readers: it is not to be changed (Add copies it).
func (s *Store) read(name string) (*file, error) {
	info, err := os.Stat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the session history: %w", err)
	}
	s.mu.Lock()
	c, ok := s.cache[name]
	s.mu.Unlock()
	if ok && os.SameFile(c.info, info) && c.info.ModTime().Equal(info.ModTime()) && c.info.Size() == info.Size() {
		return c.f, nil
	}
	data, err := atomicfile.ReadBounded(name, MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the session history: %w", err)
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("reading the session history %s: %w", name, err)
	}
	if int64(len(data)) == info.Size() {
		// Read from the file stat saw (a replaced one would differ, almost surely, in
		// size; if not, its next change is read).
		s.mu.Lock()
		if s.cache == nil || len(s.cache) >= maxCached {
			s.cache = make(map[string]cached)
		}
		s.cache[name] = cached{info: info, f: &f}
		s.mu.Unlock()
	}
	return &f, nil
}

// current reports whether f is the history of this session, and still kept.
func (s *Store) current(f *file, agent, session string) bool {
	return f.Agent == agent && f.Session == session && s.now().Sub(f.Updated) < s.idle
}

func (f *file) earlier() *shell.Earlier {
	if len(f.Downloads) == 0 && len(f.Written) == 0 && len(f.Secrets) == 0 {
		return nil
	}
	e := &shell.Earlier{}
	if len(f.Downloads) > 0 {
		e.Downloaded = make(map[string]shell.By, len(f.Downloads))
		for _, d := range f.Downloads {
			e.Downloaded[d.Path] = by(d.Seq)
		}
	}
	if len(f.Written) > 0 {
		e.Written = make(map[string]shell.WrittenBy, len(f.Written))
		for _, w := range f.Written {
			e.Written[w.Path] = shell.WrittenBy{Text: w.Text, Known: w.Known, Partial: w.Partial, By: by(w.Seq)}
		}
	}
	if n := len(f.Secrets); n > 0 {
		last := f.Secrets[n-1]
		e.Secret = &shell.SecretBy{What: last.What, By: by(last.Seq)}
	}
	return e
}

// by names a call by its record: "record 41", or "an earlier call" for one whose record
// has no number yet (spooled, or not written).
func by(seq uint64) shell.By {
	if seq == 0 {
		return shell.By{Call: "an earlier call"}
	}
	return shell.By{Call: "record " + strconv.FormatUint(seq, 10)}
}

// Add keeps what a call of the session, recorded as seq (0 when its record has no number
// yet), left behind. A call without a session id has no history: nothing is kept.
func (s *Store) Add(agent, session string, seq uint64, left shell.Left) error {
	if session == "" || left.Empty() {
		return nil
	}
	name := s.path(agent, session)
	unlock, err := atomicfile.Lock(name)
	if err != nil {
		return fmt.Errorf("keeping the session history: %w", err)
	}
	defer unlock()
	f, rerr := s.read(name)
	if f == nil && rerr == nil {
		// A new session: the time to forget those long idle.
		_, _ = s.Expire()
	}
	if f != nil {
		f = f.clone()
	}
	if f == nil || !s.current(f, agent, session) {
		// A corrupt file is replaced (rerr says it was, to the caller); an expired
		// history, or another session's under the same hash, starts over.
		f = &file{Agent: agent, Session: session}
	}
	f.add(seq, left)
	f.Updated = s.now().UTC()
	data, err := f.encode()
	if err != nil {
		return fmt.Errorf("keeping the session history: %w", err)
	}
	if err := atomicfile.WriteVolatile(name, data, 0o600); err != nil {
		return fmt.Errorf("keeping the session history: %w", err)
	}
	if rerr != nil {
		return fmt.Errorf("%w; it was started again", rerr)
	}
	return nil
}

func (f *file) clone() *file {
	c := *f
	c.Downloads = slices.Clone(f.Downloads)
	c.Written = slices.Clone(f.Written)
	c.Secrets = slices.Clone(f.Secrets)
	return &c
}

func (f *file) add(seq uint64, left shell.Left) {
	for _, p := range left.Downloads {
		f.Downloads = slices.DeleteFunc(f.Downloads, func(d pathFact) bool { return d.Path == p })
		f.Downloads = append(f.Downloads, pathFact{Path: p, Seq: seq})
	}
	for _, w := range left.Written {
		f.Written = slices.DeleteFunc(f.Written, func(x writeFact) bool { return x.Path == w.Path })
		fact := writeFact{Path: w.Path, Seq: seq, Known: w.Known, Partial: w.Partial, Text: w.Text}
		if len(w.Text) > MaxText {
			fact.Text, fact.Known, fact.Partial = "", false, false
		}
		f.Written = append(f.Written, fact)
	}
	for _, what := range left.Secrets {
		f.Secrets = slices.DeleteFunc(f.Secrets, func(x secretFact) bool { return x.What == what })
		f.Secrets = append(f.Secrets, secretFact{What: what, Seq: seq})
	}
	f.Downloads = lastN(f.Downloads, MaxFacts)
	f.Written = lastN(f.Written, MaxFacts)
	f.Secrets = lastN(f.Secrets, MaxFacts)
}

// encode renders f within MaxBytes, forgetting the oldest written texts first (the file
// is still known as written: with text moat cannot read).
func (f *file) encode() ([]byte, error) {
	for i := 0; ; i++ {
		data, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		if len(data) < MaxBytes {
			return append(data, '\n'), nil // a text file
		}
		if i >= len(f.Written) {
			return nil, fmt.Errorf("the history is larger than %d bytes", MaxBytes)
		}
		f.Written[i].Text, f.Written[i].Known, f.Written[i].Partial = "", false, false
	}
}

func lastN[T any](s []T, n int) []T {
	if len(s) > n {
		return slices.Clone(s[len(s)-n:])
	}
	return s
}

// End forgets the history of a session that ended.
func (s *Store) End(agent, session string) error {
	if session == "" {
		return nil
	}
	name := s.path(agent, session)
	unlock, err := atomicfile.Lock(name)
	if err != nil {
		return fmt.Errorf("ending the session history: %w", err)
	}
	defer unlock()
	// The lock file stays: a process waiting on it would otherwise hold a lock on a
	// removed file while another locks a new one.
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("ending the session history: %w", err)
	}
	return nil
}

// Expire removes the histories not updated for the idle time, and returns how many. It
// is cheap enough to run now and then (a daemon's tick, a new session's first call).
func (s *Store) Expire() (int, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("expiring session histories: %w", err)
	}
	n := 0
	for _, ent := range entries {
		name := ent.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		info, err := ent.Info()
		if err != nil || s.now().Sub(info.ModTime()) < s.idle {
			continue
		}
		if s.expire(filepath.Join(s.dir, name)) {
			n++
		}
	}
	return n, nil
}

// expire removes the history in name when it is still expired under its lock.
func (s *Store) expire(name string) bool {
	unlock, err := atomicfile.Lock(name)
	if err != nil {
		return false
	}
	defer unlock()
	info, err := os.Stat(name)
	if err != nil || s.now().Sub(info.ModTime()) < s.idle {
		return false
	}
	return os.Remove(name) == nil
}
