//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrRunning says another daemon serves the runtime directory.
var ErrRunning = errors.New("a daemon is already running")

// lock takes the daemon's lock file without waiting; the lock lasts as long as the
// returned file is open (the kernel drops it when the process ends, however it ends).
func lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the daemon's lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("taking the daemon's lock: %w", err)
	}
	return f, nil
}
