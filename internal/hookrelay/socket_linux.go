package hookrelay

import "golang.org/x/sys/unix"

// newSocket opens a unix stream socket, non-blocking and closed on exec (the fallback
// execs moat, which must not inherit it), in one call.
func newSocket() (int, error) {
	return unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
}
