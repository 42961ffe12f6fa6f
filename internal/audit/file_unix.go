//go:build unix && !aix

package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openFlags are added to every open of a file of the log. O_NOFOLLOW: a link planted at
// the log's name must not send the records elsewhere (or to /dev/null). O_NONBLOCK: a
// FIFO planted there must not hang the opener; the fstat that follows refuses it.
const openFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openChecked opens a file of the log at path with flag (os.O_* flags; mode 0600 when it
// creates the file), without following a link at path, and refuses anything but a
// regular file of the user's with no other name (see checkFile).
func openChecked(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|openFlags, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) {
			return nil, refused(path, "it is a symbolic link"+linkTarget(path))
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := checkFile(path, fi); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// createExclusive creates a new file at path, failing when anything is there already,
// a link included.
func createExclusive(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|openFlags, 0o600)
}

// openShared opens a file for reading. It follows links (a reader may be pointed at a
// copy through one), but refuses what is not a regular file: a FIFO or a device would
// hang or flood the reader.
func openShared(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, path)
}

// checkFile refuses a file of the log that is not a regular file, belongs to another
// user, or has another name too (a hard link would let records be appended to, say, a
// shell start-up file of the user's).
func checkFile(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return refused(path, "it is a "+kindOf(fi.Mode())+", not a regular file")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Geteuid() {
		return refused(path, fmt.Sprintf("it belongs to user %d, not to you", st.Uid))
	}
	if st.Nlink > 1 {
		return refused(path, fmt.Sprintf("it has %d names (hard links): records written to it would land in another file too", st.Nlink))
	}
	return nil
}

// checkDir refuses a directory for the log that another user owns or may write to: they
// could replace or remove the log's files.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return refused(dir, "it is not a directory")
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return refused(dir, fmt.Sprintf("the directory belongs to user %d, not to you", st.Uid))
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return refused(dir, fmt.Sprintf("the directory has mode %04o: other users can replace its files", perm))
	}
	return nil
}

// dirWritable reports whether the user may create files in dir.
func dirWritable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// fileID identifies the file fi describes, to recognise it in the head.
func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// tryLock takes an flock on f, exclusive or shared, without waiting; it reports false
// when another open file holds a conflicting lock. The lock belongs to the open file, so
// two Logs in one process exclude each other too.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	err := flock(f, how|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// unlockFile releases the lock tryLock took.
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

// lockFile blocks until it holds an flock on f, exclusive or shared.
func lockFile(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	return flock(f, how)
}
