// Package ratelimit counts calls in sliding windows, in one small locked file that every
// moat process of a user shares, so that a limit holds across hooks, proxies and the daemon.
package ratelimit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/atomicfile"
)

// FileName is the counters' file in moat's state directory.
const FileName = "ratelimit.json"

// File is the counters' file in the state directory dir.
func File(dir string) string { return filepath.Join(dir, FileName) }

// Bounds on the file. A counter needs at most its limit's count of calls (10,000 at most,
// policy.MaxLimitCount), and is dropped once its window has passed; the bounds below
// keep a file that many sessions share small enough to read and rewrite on each counted
// call. Past them the counters used longest ago are forgotten first.
const (
	maxKeys      = 4096
	maxCalls     = 50000
	maxKeyBytes  = 1024
	maxFileBytes = 8 << 20
	fileVersion  = 1
)

// Count is where one call stands against a limit.
type Count struct {
	// Used is the calls counted in the window, this one included when it was counted.
	Used   int
	Max    int
	Window time.Duration
	// Exceeded means Max calls were counted in the window already: the call is over the
	// limit, and is not counted.
	Exceeded bool
	// Counted means the call was under the limit and Take counted it, at At (the time
	// Refund takes back).
	Counted bool
	At      time.Time
	// Next, when Exceeded, is when the first call would be under the limit again.
	Next time.Time
}

// Store is the counters in one file. Its methods are safe for concurrent use by
// goroutines and processes alike: each Take holds the file's lock from its read to its
// write.
type Store struct {
	path string
	now  func() time.Time
}

// New returns the store of the counters in the file path; now is its clock (nil:
// time.Now).
func New(path string, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{path: path, now: now}
}

// Take reports where a call under key stands against max calls per window, and counts it
// when it is under the limit. A call over the limit is not counted: refusing calls does not
// push the end of the lock-out further away.
func (s *Store) Take(key string, max int, window time.Duration) (Count, error) {
	if err := checkLimit(key, max, window); err != nil {
		return Count{}, err
	}
	unlock, err := atomicfile.Lock(s.path)
	if err != nil {
		return Count{}, fmt.Errorf("rate-limit counters: %w", err)
	}
	defer unlock()
	st, err := s.read()
	if err != nil {
		return Count{}, err
	}
	now := s.now()
	c := st.count(key, max, window, now)
	if c.Exceeded {
		return c, nil
	}
	at := st.add(key, max, window, now)
	st.prune(now, key)
	if err := s.write(st); err != nil {
		return Count{}, err
	}
	c.Used++
	c.Counted, c.At = true, at
	return c, nil
}

// Refund takes back a call Take counted at at, for a call that was then refused for
// another reason and so never ran. Nothing is taken back when the call is no longer
// counted (its window passed, or the counter was forgotten).
func (s *Store) Refund(key string, at time.Time) error {
	unlock, err := atomicfile.Lock(s.path)
	if err != nil {
		return fmt.Errorf("rate-limit counters: %w", err)
	}
	defer unlock()
	st, err := s.read()
	if err != nil {
		return err
	}
	ctr := st.Keys[key]
	if ctr == nil {
		return nil
	}
	i, found := slices.BinarySearch(ctr.Calls, at.UnixMilli())
	if !found {
		return nil
	}
	ctr.Calls = slices.Delete(ctr.Calls, i, i+1)
	if len(ctr.Calls) == 0 {
		delete(st.Keys, key)
	}
	return s.write(st)
}

// Peek reports where a call under key stands, as Take would, without counting it: for
// calls that are only being looked at (`moat check`, `--explain`).
func (s *Store) Peek(key string, max int, window time.Duration) (Count, error) {
	if err := checkLimit(key, max, window); err != nil {
		return Count{}, err
	}
	st, err := s.read()
	if err != nil {
		return Count{}, err
	}
	return st.count(key, max, window, s.now()), nil
}

func checkLimit(key string, max int, window time.Duration) error {
	switch {
	case max < 1:
		return fmt.Errorf("rate limit %q: the count must be positive, not %d", key, max)
	case window < time.Millisecond:
		return fmt.Errorf("rate limit %q: the window must be at least a millisecond, not %s", key, window)
	case len(key) > maxKeyBytes:
		return fmt.Errorf("rate limit key of %d bytes: at most %d", len(key), maxKeyBytes)
	}
	return nil
}

// state is the file's content.
type state struct {
	Version int                 `json:"version"`
	Keys    map[string]*counter `json:"keys"`
}

// counter is one key's counted calls, as Unix milliseconds, oldest first, within its
// window (in milliseconds). Calls are stored rounded up to the millisecond, so that
// rounding can only keep a call in its window longer, never let it leave early.
type counter struct {
	Window int64   `json:"window_ms"`
	Calls  []int64 `json:"calls"`
}

// read reads the file; a missing file is no counted call. A file that cannot be read or
// understood is an error, never an empty state: counters that are lost must not open a
// limit.
func (s *Store) read() (*state, error) {
	data, err := atomicfile.ReadBounded(s.path, maxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &state{Version: fileVersion, Keys: map[string]*counter{}}, nil
	case errors.Is(err, atomicfile.ErrTooLarge):
		return nil, s.corrupt(fmt.Errorf("larger than %d bytes", maxFileBytes))
	case err != nil:
		return nil, fmt.Errorf("reading rate-limit counters: %w", err)
	}
	var st state
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, s.corrupt(err)
	}
	if err := st.check(); err != nil {
		return nil, s.corrupt(err)
	}
	return &st, nil
}

// corrupt is the error for a file that is no counters' file. The limited rules then apply
// to every call they match, which is the safe reading, until the user removes the file.
func (s *Store) corrupt(err error) error {
	return fmt.Errorf("rate-limit counters %s are unreadable (%v): limited rules apply to every call they match until it is removed", s.path, err)
}

func (st *state) check() error {
	if st.Version != fileVersion {
		return fmt.Errorf("version %d, not %d", st.Version, fileVersion)
	}
	if st.Keys == nil {
		st.Keys = map[string]*counter{}
	}
	for k, c := range st.Keys {
		if c == nil || c.Window <= 0 {
			return fmt.Errorf("counter %q has no window", k)
		}
		if !slices.IsSorted(c.Calls) {
			return fmt.Errorf("counter %q is out of order", k)
		}
	}
	return nil
}

func (s *Store) write(st *state) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("writing rate-limit counters: %w", err)
	}
	if err := atomicfile.WriteVolatile(s.path, data, 0o600); err != nil {
		return fmt.Errorf("writing rate-limit counters: %w", err)
	}
	return nil
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func millisUp(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Sub(time.UnixMilli(ms)) > 0 {
		ms++
	}
	return ms
}

// inWindow returns the calls of c still in a window of w milliseconds at now. Calls
// in the future (a clock set back) are in it: forgetting them would open the limit.
func inWindow(calls []int64, w, now int64) []int64 {
	i, _ := slices.BinarySearch(calls, now-w+1)
	return calls[i:]
}

func (st *state) count(key string, max int, window time.Duration, at time.Time) Count {
	c := Count{Max: max, Window: window}
	ctr := st.Keys[key]
	if ctr == nil {
		return c
	}
	w, now := window.Milliseconds(), millis(at)
	calls := inWindow(ctr.Calls, w, now)
	c.Used = len(calls)
	if c.Used >= max {
		c.Exceeded = true
		// The limit opens again when the oldest of the last max calls leaves the window.
		c.Next = time.UnixMilli(calls[len(calls)-max] + w)
	}
	return c
}

// add counts a call under key at at, keeping only the calls the limit can still need: those
// in the window, at most max of them.
func (st *state) add(key string, max int, window time.Duration, at time.Time) time.Time {
	w := window.Milliseconds()
	ctr := st.Keys[key]
	if ctr == nil {
		ctr = &counter{}
		st.Keys[key] = ctr
	}
	ctr.Window = w
	stamp := millisUp(at)
	calls := append(inWindow(ctr.Calls, w, millis(at)), stamp)
	slices.Sort(calls)
	if len(calls) > max {
		calls = calls[len(calls)-max:]
	}
	ctr.Calls = slices.Clip(calls)
	return time.UnixMilli(stamp)
}

// prune drops the calls whose window has passed and the counters left empty, then the
// counters used longest ago while the file is over its bounds; keep is never dropped.
func (st *state) prune(at time.Time, keep string) {
	now := millis(at)
	total := 0
	for k, c := range st.Keys {
		c.Calls = inWindow(c.Calls, c.Window, now)
		if len(c.Calls) == 0 {
			delete(st.Keys, k)
			continue
		}
		total += len(c.Calls)
	}
	if len(st.Keys) <= maxKeys && total <= maxCalls {
		return
	}
	keys := make([]string, 0, len(st.Keys))
	for k := range st.Keys {
		if k != keep {
			keys = append(keys, k)
		}
	}
	last := func(k string) int64 { c := st.Keys[k].Calls; return c[len(c)-1] }
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(last(a), last(b)), cmp.Compare(a, b)) })
	for _, k := range keys {
		if len(st.Keys) <= maxKeys && total <= maxCalls {
			break
		}
		total -= len(st.Keys[k].Calls)
		delete(st.Keys, k)
	}
}

// Files keeps counters in the state directory each call names: the daemon decides for
// several users' environments, each with its own directory.
type Files struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Take is Store.Take in the counters' file of stateDir.
func (f Files) Take(stateDir, key string, max int, window time.Duration) (Count, error) {
	if !filepath.IsAbs(stateDir) {
		return Count{}, fmt.Errorf("rate-limit counters: the state directory %q is not an absolute path", stateDir)
	}
	return New(File(stateDir), f.Now).Take(key, max, window)
}

// Refund is Store.Refund in the counters' file of stateDir.
func (f Files) Refund(stateDir, key string, at time.Time) error {
	if !filepath.IsAbs(stateDir) {
		return fmt.Errorf("rate-limit counters: the state directory %q is not an absolute path", stateDir)
	}
	return New(File(stateDir), f.Now).Refund(key, at)
}

// Peek is Store.Peek in the counters' file of stateDir.
func (f Files) Peek(stateDir, key string, max int, window time.Duration) (Count, error) {
	if !filepath.IsAbs(stateDir) {
		return Count{}, fmt.Errorf("rate-limit counters: the state directory %q is not an absolute path", stateDir)
	}
	return New(File(stateDir), f.Now).Peek(key, max, window)
}
