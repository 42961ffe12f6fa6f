package bundle

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policysign"
)

// Updater checks the fleet's source for a newer bundle and keeps it when it passes
// Verify. It is safe for concurrent use; checks run one at a time.
type Updater struct {
	dirs    dirs.Dirs
	keyPath string
	fetch   Fetcher
	compile Compile
	now     func() time.Time

	mu sync.Mutex
}

// NewUpdater checks f for the bundles of the installation whose directories are d,
// verifying them with the key pinned in keyPath (read at every check, so that a key
// replaced by the administrator applies at the next one).
func NewUpdater(d dirs.Dirs, keyPath string, f Fetcher, compile Compile, now func() time.Time) *Updater {
	if now == nil {
		now = time.Now
	}
	return &Updater{dirs: d, keyPath: keyPath, fetch: f, compile: compile, now: now}
}

// Result is what one check did.
type Result struct {
	// Changed says a new bundle was put in force; Serial is the one in force after the
	// check (0 when none).
	Changed bool
	Serial  int64
}

// Check asks the source once. A bundle that is new and passes Verify replaces the kept
// one; anything else leaves the kept bundle in force and returns why (a *RefusedError).
// The state file records the outcome either way.
func (u *Updater) Check(ctx context.Context) (Result, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	st, err := ReadState(u.dirs)
	if err != nil {
		st = State{} // the state only informs; a broken one is rewritten
	}
	st.Source, st.LastCheck = u.fetch.Source(), u.now().UTC()
	res, err := u.check(ctx, &st)
	st.LastError, st.LastReason = "", ""
	if err != nil {
		st.LastError, st.LastReason = err.Error(), ReasonOf(err)
	}
	if werr := writeState(u.dirs, st); werr != nil && err == nil {
		err = werr
	}
	res.Serial = st.Serial
	return res, err
}

func (u *Updater) check(ctx context.Context, st *State) (Result, error) {
	pub, err := policysign.ReadPublic(u.keyPath)
	if err != nil {
		return Result{}, refused(ReasonKeep, fmt.Errorf("the pinned key: %w", err))
	}
	kept, err := ReadKept(u.dirs)
	if err != nil {
		return Result{}, refused(ReasonKeep, err)
	}
	prev := *st
	if kept == nil || st.KeyID != pub.KeyID() {
		// Without a kept bundle (or with a new key) the validators name nothing this
		// machine holds: fetch the bundle whole.
		prev.ETag, prev.LastModified = "", ""
	}
	f, err := u.fetch.Fetch(ctx, prev)
	if err != nil {
		return Result{}, refused(ReasonFetch, err)
	}
	if f.NotModified {
		return Result{}, nil
	}
	if kept != nil && bytes.Equal(kept, f.Doc) && st.KeyID == pub.KeyID() {
		st.ETag, st.LastModified = f.ETag, f.LastModified
		return Result{}, nil
	}
	store := policysign.NewSerialStore(u.dirs.ManagedSerials())
	v, err := Verify(u.fetch.Source(), f.Doc, pub, store, u.compile)
	if err != nil {
		return Result{}, err
	}
	if err := Keep(u.dirs, v, store); err != nil {
		return Result{}, err
	}
	st.Serial, st.KeyID, st.FetchedAt = v.Serial, v.KeyID, u.now().UTC()
	st.ETag, st.LastModified = f.ETag, f.LastModified
	return Result{Changed: true}, nil
}

// Source names where the updater fetches from.
func (u *Updater) Source() string { return u.fetch.Source() }
