//go:build aix || !(unix || windows)

package audit

import (
	"io/fs"
	"os"
)

// openChecked opens a file of the log, refusing a link or anything but a regular file.
// These platforms offer no O_NOFOLLOW to moat, so the link check is made before opening
// and a link swapped in between is not caught.
func openChecked(path string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil {
		if err := checkFile(path, fi); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, flag, 0o600)
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
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// openShared opens a file for reading, refusing what is not a regular file.
func openShared(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return regularOnly(f, path)
}

// checkFile refuses what is not a regular file.
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

func dirWritable(dir string) error { return nil }

func fileID(fi fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

// tryLock always succeeds: these platforms offer no file lock that moat uses, so only the
// Log's own mutex serializes writers (see Log).
func tryLock(f *os.File, exclusive bool) (bool, error) { return true, nil }

// unlockFile does nothing, like tryLock.
func unlockFile(f *os.File) error { return nil }

// lockFile does nothing, like tryLock.
func lockFile(f *os.File, exclusive bool) error { return nil }
