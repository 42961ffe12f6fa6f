package daemon

import (
	"github.com/moatdev/moat/internal/daemon/rundir"
	"github.com/moatdev/moat/internal/dirs"
)

// Paths are where one user's daemon listens and keeps its state while it runs (see
// package rundir, which the thin hook client shares).
type Paths = rundir.Paths

// Prepare returns the paths of the user's daemon, creating its private runtime directory
// when it does not exist (rundir.Prepare).
func Prepare(d dirs.Dirs) (Paths, error) { return rundir.Prepare(d) }

// Locate returns the paths of the user's daemon without creating anything
// (rundir.Locate).
func Locate(d dirs.Dirs) (Paths, error) { return rundir.Locate(d) }

func pathsIn(dir string) Paths { return rundir.In(dir) }
