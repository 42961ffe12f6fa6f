//go:build windows

package audit

import (
	"math"
	"os"

	"golang.org/x/sys/windows"
)

// shareAll lets other handles read, write, rename and delete a file this process holds
// open: without FILE_SHARE_DELETE a reader or a long-lived writer would stop every other
// writer from rotating the log.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// openAppend opens the active log file for appending (FILE_APPEND_DATA without
// FILE_WRITE_DATA, as os.OpenFile does for O_APPEND) and reading, creating it if needed.
func openAppend(path string) (*os.File, error) {
	access := uint32(windows.GENERIC_READ | windows.FILE_APPEND_DATA | windows.FILE_WRITE_ATTRIBUTES | windows.SYNCHRONIZE)
	return create(path, access, windows.OPEN_ALWAYS)
}

// openShared opens a file for reading without stopping others from renaming it.
func openShared(path string) (*os.File, error) {
	return create(path, windows.GENERIC_READ, windows.OPEN_EXISTING)
}

func create(path string, access, disposition uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, access, shareAll, nil, disposition, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
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

// unlockFile releases the lock lockFile took.
func unlockFile(f *os.File) error {
	var ol windows.Overlapped
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, math.MaxUint32, math.MaxUint32, &ol); err != nil {
		return &os.PathError{Op: "UnlockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}
