//go:build unix && !linux

package hookrelay

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// newSocket opens a unix stream socket, non-blocking and closed on exec (the fallback
// execs moat, which must not inherit it). The system has no SOCK_CLOEXEC: the fork lock
// keeps a child started meanwhile from inheriting it.
func newSocket() (int, error) {
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return -1, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
