// Package rundir locates the private runtime directory of the user's moat daemon and the
// files in it (socket, lock, token), checking it is the user's own and 0700. Both the
// daemon and the thin hook client use it, so it imports nothing but the standard library
// and internal/dirs.
package rundir

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/moatdev/moat/internal/dirs"
)

// The files of the runtime directory.
const (
	socketName = "daemon.sock"
	lockName   = "daemon.lock"
	tokenName  = "token"
)

// Paths are where one user's daemon listens and keeps its state while it runs.
type Paths struct {
	// Dir is the private runtime directory (0700, the user's own).
	Dir string
	// Socket is the unix socket the daemon listens on.
	Socket string
	// Lock is held by the running daemon, so that only one serves a directory.
	Lock string
	// Token is the file holding the token that TCP clients present.
	Token string
}

// In returns the paths of a daemon whose runtime directory is dir, without checking it.
func In(dir string) Paths {
	return Paths{
		Dir:    dir,
		Socket: filepath.Join(dir, socketName),
		Lock:   filepath.Join(dir, lockName),
		Token:  filepath.Join(dir, tokenName),
	}
}

// Prepare returns the paths of the user's daemon, creating the runtime directory when it
// does not exist: the first of d.Runtime whose parent is safe, $XDG_RUNTIME_DIR/moat
// where that directory is the user's, else the per-user directory in the temporary
// directory. A directory that exists with another owner or mode, or as a link, is
// refused, never repaired: someone else may be waiting in it.
func Prepare(d dirs.Dirs) (Paths, error) {
	return find(d, true)
}

// Locate returns the paths of the user's daemon without creating anything; a client
// uses it. The directory is checked as Prepare checks it.
func Locate(d dirs.Dirs) (Paths, error) {
	return find(d, false)
}

func find(d dirs.Dirs, create bool) (Paths, error) {
	if len(d.Runtime) == 0 {
		return Paths{}, errors.New("no runtime directory for the daemon on this system")
	}
	var errs []error
	for _, dir := range d.Runtime {
		if err := privateDir(dir, create); err != nil {
			errs = append(errs, err)
			continue
		}
		return In(dir), nil
	}
	return Paths{}, fmt.Errorf("no safe runtime directory for the daemon: %w", errors.Join(errs...))
}
