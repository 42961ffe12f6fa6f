package approval

import (
	"path/filepath"
	"time"

	"github.com/moatdev/moat/internal/dirs"
)

// File is the name of the approvals file in moat's state directory.
const File = "approvals.json"

// Path is the approvals file of the user whose directories are d.
func Path(d dirs.Dirs) string { return filepath.Join(d.State, File) }

// Queue is the approval queue of whichever user a decision is for: the decision service
// (decide.Options.Approvals) reaches each user's Store through it, in the hook's own
// process and in the daemon alike, so both share one file.
type Queue struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Notify, when set, is told of each approval newly queued with notification on. It
	// must not block: the decision waits for it.
	Notify func(Listed)
}

// Store is the store of the user whose directories are d.
func (q *Queue) Store(d dirs.Dirs) *Store { return &Store{Path: Path(d), Now: q.Now} }

// Find returns the approval in force for the call whose key is hash, changing nothing.
func (q *Queue) Find(d dirs.Dirs, hash string) (Listed, bool, error) { return q.Store(d).Find(hash) }

// Use returns the approval in force for the call whose key is hash, and uses up a once
// grant: the call is about to run.
func (q *Queue) Use(d dirs.Dirs, hash string) (Listed, bool, error) { return q.Store(d).Use(hash) }

// Add queues e unless an approval for its call is in force, and notifies of a new one
// when notify is set.
func (q *Queue) Add(d dirs.Dirs, e Entry, notify bool) (Listed, bool, error) {
	l, added, err := q.Store(d).Queue(e)
	if err == nil && added && notify && q.Notify != nil {
		q.Notify(l)
	}
	return l, added, err
}
