//go:build windows

package audit

import (
	"errors"
	"io/fs"
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// shareAll lets other handles read, write, rename and delete a file this process holds
// open: without FILE_SHARE_DELETE a reader or a long-lived writer would stop every other
// writer from rotating the log.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// openChecked opens a file of the log for reading and appending (os.O_CREATE in flag
// creates it), without following a link or junction at path, and refuses anything but a
// regular file. FILE_FLAG_OPEN_REPARSE_POINT opens a link itself rather than its target,
// so the check after opening sees what is really there.
func openChecked(path string, flag int) (*os.File, error) {
	disposition := uint32(windows.OPEN_EXISTING)
	if flag&os.O_CREATE != 0 {
		disposition = windows.OPEN_ALWAYS
	}
	var access uint32
	switch {
	case flag&(os.O_WRONLY|os.O_RDWR) == 0:
		access = windows.GENERIC_READ
	case flag&os.O_APPEND != 0:
		// FILE_APPEND_DATA without FILE_WRITE_DATA, as os.OpenFile does for O_APPEND.
		access = windows.GENERIC_READ | windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.SYNCHRONIZE
	default:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE // the lock file, whose head is rewritten in place
	}
	f, err := create(path, access, disposition, windows.FILE_FLAG_OPEN_REPARSE_POINT)
	if err != nil {
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

// createExclusive creates a new file at path, failing when anything is there already.
func createExclusive(path string) (*os.File, error) {
	return create(path, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.CREATE_NEW, windows.FILE_FLAG_OPEN_REPARSE_POINT)
}

// openShared opens a file for reading without stopping others from renaming it, and
// refuses what is not a regular file.
func openShared(path string) (*os.File, error) {
	f, err := create(path, windows.GENERIC_READ, windows.OPEN_EXISTING, 0)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, path)
}

func create(path string, access, disposition, flags uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, access, shareAll, nil, disposition, windows.FILE_ATTRIBUTE_NORMAL|flags, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_EXISTS) {
			err = fs.ErrExist
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// checkFile refuses a file of the log that is a link or not a regular file. Windows has
// no owner check here: the state directory's ACL is what keeps other users out.
func checkFile(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return refused(path, "it is a "+kindOf(fi.Mode())+", not a regular file")
	}
	return nil
}

// checkDir refuses a log directory that is not a directory.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return refused(dir, "it is not a directory")
	}
	return nil
}

// dirWritable reports nothing on Windows: creating the spool file says it.
func dirWritable(dir string) error { return nil }

// fileID is not used on Windows: the head is always checked against the file's content.
func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// tryLock takes a lock on all of f, exclusive or shared, without waiting.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, math.MaxUint32, math.MaxUint32, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	if err != nil {
		return false, &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
	return true, nil
}

// lockFile blocks until it holds a lock on all of f, exclusive or shared.
func lockFile(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	var ol windows.Overlapped
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, math.MaxUint32, math.MaxUint32, &ol); err != nil {
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}

// unlockFile releases the lock tryLock or lockFile took.
func unlockFile(f *os.File) error {
	var ol windows.Overlapped
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, math.MaxUint32, math.MaxUint32, &ol); err != nil {
		return &os.PathError{Op: "UnlockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}
