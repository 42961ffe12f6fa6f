//go:build unix && !aix

package audit

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openAppend opens the active log file for appending, creating it with mode 0600. It is
// also readable, so that Append can look at the last byte.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
}

// openShared opens a file for reading.
func openShared(path string) (*os.File, error) {
	return os.Open(path)
}

// lockFile blocks until it holds an flock on f, exclusive or shared. The lock belongs to
// the open file, so two Logs in one process exclude each other too.
func lockFile(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	return flock(f, how)
}

// unlockFile releases the lock lockFile took.
func unlockFile(f *os.File) error {
	return flock(f, unix.LOCK_UN)
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if !errors.Is(ferr, unix.EINTR) {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return &os.PathError{Op: "flock", Path: f.Name(), Err: ferr}
	}
	return nil
}
