//go:build aix || !(unix || windows)

package audit

import "os"

// openAppend opens the active log file for appending and reading, creating it if needed.
func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
}

// openShared opens a file for reading.
func openShared(path string) (*os.File, error) {
	return os.Open(path)
}

// lockFile does nothing: these platforms offer no file lock that moat uses, so only the
// Log's own mutex serializes writers (see Log).
func lockFile(f *os.File, exclusive bool) error { return nil }

// unlockFile does nothing, like lockFile.
func unlockFile(f *os.File) error { return nil }
