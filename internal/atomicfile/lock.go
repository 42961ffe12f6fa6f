package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/lockedfile"
)

// Lock takes the exclusive lock that serialises read-modify-write updates of name, among
// the goroutines of one process and among processes alike, and returns its release.
// A store that rereads its file, changes it and writes it back with WriteFile holds the
// lock from the read to the write, so that two writers cannot both start from the same
// old content and one lose the other's change.
//
// The lock is held on a file beside name (name + ".lock", mode 0600), not on name: WriteFile
// renames a new file over name, and a lock on the replaced file would not exclude a writer
// that opened the new one. Readers take no lock, since WriteFile shows them the old content
// or the new. The directory is created (mode 0700) if missing: moat's stores live in its
// private state directories.
func Lock(name string) (unlock func(), err error) {
	lockName := name + ".lock"
	if err := os.MkdirAll(filepath.Dir(lockName), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	// As WriteFile refuses to replace one, the lock refuses to open a planted link (which
	// would lock, and create, a file of the link's choosing) or a special file.
	fi, err := os.Lstat(lockName)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return nil, fmt.Errorf("lock %s: refusing to open %s, a symbolic link", name, lockName)
	case err == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("lock %s: refusing to open %s, a %s, not a regular file", name, lockName, kind(fi.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	f, err := lockedfile.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	return func() { f.Close() }, nil
}

// ErrTooLarge is returned by ReadBounded for a file larger than its bound.
var ErrTooLarge = errors.New("file too large")

// ReadBounded reads the small state file name, at most max bytes of it: a larger file is
// an error wrapping ErrTooLarge, read no further, so that a file grown by a bug or by
// hand cannot make every reader hold it whole. A missing file is an error wrapping
// fs.ErrNotExist, which stores read as empty.
func ReadBounded(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", name, ErrTooLarge, max)
	}
	return data, nil
}
