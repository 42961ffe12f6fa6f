//go:build !unix

package daemon

import (
	"errors"
	"os"
)

// ErrRunning says another daemon serves the runtime directory.
var ErrRunning = errors.New("a daemon is already running")

func lock(string) (*os.File, error) {
	return nil, errors.New("the daemon runs on Linux and macOS only")
}
