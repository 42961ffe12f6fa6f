package approval

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
)

// State is where an approval stands.
type State string

// States of an approval. The zero value is no state: an entry without one is corrupt.
const (
	// Pending waits for the user's answer; the call it is bound to is denied meanwhile.
	Pending State = "pending"
	// Once lets the next identical recorded call through, and is then used up.
	Once State = "once"
	// Session lets every identical call of the session through until it expires.
	Session State = "session"
	// Denied is the user's no: identical calls are denied without asking again until it
	// expires.
	Denied State = "denied"
)

// Granted reports whether s lets its call through.
func (s State) Granted() bool { return s == Once || s == Session }

func (s State) valid() bool { return s == Pending || s.Granted() || s == Denied }

// Defaults and bounds of a Store.
const (
	// DefaultExpire is how long a pending approval waits and a grant lasts when the
	// policy does not say.
	DefaultExpire = time.Hour
	// DefaultMaxEntries bounds the approvals kept: the oldest go first.
	DefaultMaxEntries = 200
	// maxFileBytes bounds the file read: a larger one is treated as corrupt.
	maxFileBytes = 1 << 20
	// MinID is the least number of hex digits of an approval's ID.
	MinID = 4
	// maxField bounds each text field kept of a call.
	maxField = 1000
)

// Entry is one approval: the call it is bound to (by Hash), what the user is shown of
// it, and where it stands.
type Entry struct {
	Hash  string `json:"hash"`
	State State  `json:"state"`
	// Created is when the call was first refused for want of approval.
	Created time.Time `json:"created"`
	// Expires is when a pending approval lapses, or a grant or denial ends.
	Expires time.Time `json:"expires"`
	// TTL is how long a grant or denial lasts from the answer (the policy's
	// approvals.expire when the call was queued).
	TTL     time.Duration `json:"ttl"`
	Agent   string        `json:"agent,omitempty"`
	Session string        `json:"session,omitempty"`
	Cwd     string        `json:"cwd,omitempty"`
	// Calls show the calls of the event, redacted and bounded (see Render).
	Calls []string `json:"calls"`
	// Detail holds the event's calls themselves, their arguments redacted as the audit
	// log holds them, for `moat approve --always` to write a rule that matches them; nil
	// when they were too large to keep (see DetailOf).
	Detail []call.Call `json:"detail,omitempty"`
	Rule   string      `json:"rule,omitempty"`
	Reason string      `json:"reason,omitempty"`
	Policy string      `json:"policy,omitempty"`
	// By says who answered and how, once answered.
	By       string    `json:"by,omitempty"`
	Answered time.Time `json:"answered,omitzero"`
}

// maxDetail bounds the JSON of an entry's Detail: a larger event (a file written whole)
// keeps only its rendering, and cannot become a rule through --always.
const maxDetail = 64 << 10

// DetailOf returns an event's calls for Entry.Detail: their arguments redacted by red as
// the audit log would hold them, or nil when they are too large to keep.
func DetailOf(calls []call.Call, red audit.Redactor) []call.Call {
	out := make([]call.Call, len(calls))
	for i, c := range calls {
		c.Args = audit.RedactArgs(c.Args, red)
		out[i] = c
	}
	b, err := json.Marshal(out)
	if err != nil || len(b) > maxDetail {
		return nil
	}
	return out
}

// file is the store's format on disk.
type file struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

const fileVersion = 1

// Errors of a Store's commands.
var (
	ErrNotFound  = errors.New("no such approval")
	ErrAmbiguous = errors.New("approval ID is ambiguous")
)

// Store is the approvals file of one user (under moat's state directory, which
// self-protection keeps agents from writing). Every change holds the file's lock from
// the read to the write, so processes deciding in parallel, with or without the daemon,
// share one queue. The zero value is not usable: Path is required.
type Store struct {
	Path string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MaxEntries bounds the entries kept; 0 is DefaultMaxEntries.
	MaxEntries int
}

func (s *Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// read reads the entries still in force. A missing file is an empty queue; a file that
// cannot be read or parsed is an error, which callers treat the safe way (no grant, and
// no queueing: the call stays denied).
func (s *Store) read() ([]Entry, error) {
	data, err := atomicfile.ReadBounded(s.Path, maxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, atomicfile.ErrTooLarge):
		return nil, fmt.Errorf("reading approvals: %w; remove it to start an empty queue", err)
	case err != nil:
		return nil, fmt.Errorf("reading approvals: %w", err)
	}
	var ff file
	if err := json.Unmarshal(data, &ff); err != nil {
		return nil, fmt.Errorf("reading approvals: %s: %w; remove it to start an empty queue", s.Path, err)
	}
	if ff.Version != fileVersion {
		return nil, fmt.Errorf("reading approvals: %s has version %d, this moat reads %d; remove it to start an empty queue", s.Path, ff.Version, fileVersion)
	}
	now := s.now()
	live := ff.Entries[:0]
	for _, e := range ff.Entries {
		if !e.State.valid() || len(e.Hash) != 64 {
			return nil, fmt.Errorf("reading approvals: %s holds an entry with state %q and hash %q; remove it to start an empty queue", s.Path, e.State, e.Hash)
		}
		if now.Before(e.Expires) {
			live = append(live, e)
		}
	}
	return live, nil
}

// update reads the entries, lets change edit them, and writes them back, all under the
// file's lock; change returning an error leaves the file as it was.
func (s *Store) update(change func([]Entry) ([]Entry, error)) error {
	unlock, err := atomicfile.Lock(s.Path)
	if err != nil {
		return fmt.Errorf("locking approvals: %w", err)
	}
	defer unlock()
	entries, err := s.read()
	if err != nil {
		return err
	}
	entries, err = change(entries)
	if err != nil {
		return err
	}
	// The oldest go first: a pending one dropped is queued again by its retry.
	slices.SortStableFunc(entries, func(a, b Entry) int { return a.Created.Compare(b.Created) })
	if limit := cmp.Or(s.MaxEntries, DefaultMaxEntries); len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	var data []byte
	for {
		data, err = json.MarshalIndent(file{Version: fileVersion, Entries: entries}, "", "  ")
		if err != nil {
			return fmt.Errorf("writing approvals: %w", err)
		}
		// A file the next read would refuse as too large would stop every approval.
		if len(data) < maxFileBytes || len(entries) == 0 {
			break
		}
		entries = entries[max(1, len(entries)/8):]
	}
	if err := atomicfile.WriteFile(s.Path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing approvals: %w", err)
	}
	return nil
}

// Find returns the entry in force for the call whose key is hash, if any, with its ID
// among the entries now held (the ID `moat approvals` shows), changing nothing.
func (s *Store) Find(hash string) (Listed, bool, error) {
	entries, err := s.read()
	if err != nil {
		return Listed{}, false, err
	}
	return find(entries, hash)
}

func find(entries []Entry, hash string) (Listed, bool, error) {
	for _, e := range entries {
		if e.Hash == hash {
			return Listed{Entry: e, ID: IDs(entries)[hash]}, true, nil
		}
	}
	return Listed{}, false, nil
}

// Use returns the entry in force for the call whose key is hash, as Find does, and uses
// up a Once grant: the call it lets through is about to run.
func (s *Store) Use(hash string) (Listed, bool, error) {
	l, ok, err := s.Find(hash)
	if err != nil || !ok || l.State != Once {
		return l, ok, err
	}
	// Found without the lock; taken under it, so that two processes cannot both use it.
	ok = false
	err = s.update(func(entries []Entry) ([]Entry, error) {
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Hash == hash })
		if i < 0 {
			return nil, errUnchanged
		}
		l, ok, _ = find(entries, hash)
		if l.State != Once {
			return nil, errUnchanged
		}
		return slices.Delete(entries, i, i+1), nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return l, ok, err
}

// errUnchanged ends an update that has nothing to write.
var errUnchanged = errors.New("unchanged")

// Queue adds a pending approval for the call of e.Hash, waiting e.TTL (DefaultExpire
// when zero), unless an entry for the call is in force: that one is returned, and added
// is false. The entry's ID is returned with it.
func (s *Store) Queue(e Entry) (queued Listed, added bool, err error) {
	if len(e.Hash) != 64 {
		return Listed{}, false, fmt.Errorf("queueing an approval: bad key %q", e.Hash)
	}
	now := s.now()
	e.State, e.Created = Pending, now
	e.TTL = cmp.Or(e.TTL, DefaultExpire)
	e.Expires = now.Add(e.TTL)
	e.Agent, e.Session, e.Cwd = bound(e.Agent), bound(e.Session), bound(e.Cwd)
	e.Rule, e.Reason, e.Policy = bound(e.Rule), bound(e.Reason), bound(e.Policy)
	if len(e.Calls) > 8 {
		e.Calls = append(e.Calls[:7:7], fmt.Sprintf("… and %d more", len(e.Calls)-7))
	}
	e.Calls = slices.Clone(e.Calls)
	for i, c := range e.Calls {
		e.Calls[i] = bound(c)
	}
	err = s.update(func(entries []Entry) ([]Entry, error) {
		if i := slices.IndexFunc(entries, func(old Entry) bool { return old.Hash == e.Hash }); i >= 0 {
			queued = Listed{Entry: entries[i], ID: IDs(entries)[e.Hash]}
			return nil, errUnchanged
		}
		entries = append(entries, e)
		queued, added = Listed{Entry: e, ID: IDs(entries)[e.Hash]}, true
		return entries, nil
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	if err != nil {
		return Listed{}, false, fmt.Errorf("queueing an approval: %w", err)
	}
	return queued, added, nil
}

func bound(s string) string {
	if len(s) <= maxField {
		return s
	}
	return strings.ToValidUTF8(s[:maxField], "") + "…"
}

// Listed is an entry with its ID: the shortest prefix of its hash, of at least MinID
// digits, that no other entry in force shares.
type Listed struct {
	Entry
	ID string `json:"id"`
}

// List returns the entries in force, oldest first, with their IDs.
func (s *Store) List() ([]Listed, error) {
	entries, err := s.read()
	if err != nil {
		return nil, err
	}
	ids := IDs(entries)
	out := make([]Listed, len(entries))
	for i, e := range entries {
		out[i] = Listed{Entry: e, ID: ids[e.Hash]}
	}
	slices.SortStableFunc(out, func(a, b Listed) int { return a.Created.Compare(b.Created) })
	return out, nil
}

// IDs maps each entry's hash to its ID: the shortest prefix of at least MinID digits
// that is the prefix of no other entry's hash.
func IDs(entries []Entry) map[string]string {
	sorted := make([]string, len(entries))
	for i, e := range entries {
		sorted[i] = e.Hash
	}
	slices.Sort(sorted)
	ids := make(map[string]string, len(entries))
	for i, h := range sorted {
		n := MinID
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < len(sorted) && sorted[j] != h {
				n = max(n, commonPrefix(h, sorted[j])+1)
			}
		}
		ids[h] = h[:min(n, len(h))]
	}
	return ids
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Get returns the approval whose ID (or any unique prefix of its hash of at least MinID
// digits) is id, changing nothing.
func (s *Store) Get(id string) (Listed, error) {
	id, err := checkID(id)
	if err != nil {
		return Listed{}, err
	}
	entries, err := s.read()
	if err != nil {
		return Listed{}, err
	}
	i, err := lookup(entries, id)
	if err != nil {
		return Listed{}, err
	}
	return Listed{Entry: entries[i], ID: IDs(entries)[entries[i].Hash]}, nil
}

// checkID returns id as IDs are written (lower case, no spaces), or why it is none.
func checkID(id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < MinID || strings.Trim(id, "0123456789abcdef") != "" {
		return "", fmt.Errorf("%w %q: an approval ID is at least %d hex digits, as moat approvals lists it", ErrNotFound, id, MinID)
	}
	return id, nil
}

// lookup returns the index of the one entry whose hash starts with id.
func lookup(entries []Entry, id string) (int, error) {
	match := -1
	for i, e := range entries {
		if !strings.HasPrefix(e.Hash, id) {
			continue
		}
		if match >= 0 {
			return -1, fmt.Errorf("%w: %q is the start of more than one; use the ID moat approvals shows", ErrAmbiguous, id)
		}
		match = i
	}
	if match < 0 {
		return -1, fmt.Errorf("%w %q: it may have expired or been used; retry the call to queue it again, and see moat approvals", ErrNotFound, id)
	}
	return match, nil
}

// Answer sets the approval whose ID (or any unique prefix of its hash of at least MinID
// digits) is id to state: Once or Session grant it, Denied refuses it, for the entry's
// TTL from now; by says who answered and how. A pending, denied or granted approval may
// be answered again (a grant revoked by a denial, a denial changed to a grant).
func (s *Store) Answer(id string, state State, by string) (Listed, error) {
	id, err := checkID(id)
	if err != nil {
		return Listed{}, err
	}
	if !state.valid() || state == Pending {
		return Listed{}, fmt.Errorf("answering approval %s: %q is not an answer", id, state)
	}
	var out Listed
	err = s.update(func(entries []Entry) ([]Entry, error) {
		match, err := lookup(entries, id)
		if err != nil {
			return nil, err
		}
		now := s.now()
		e := &entries[match]
		e.State, e.By, e.Answered = state, bound(by), now
		e.Expires = now.Add(cmp.Or(e.TTL, DefaultExpire))
		out = Listed{Entry: *e, ID: IDs(entries)[e.Hash]}
		return entries, nil
	})
	if err != nil {
		return Listed{}, err
	}
	return out, nil
}
