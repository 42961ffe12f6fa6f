// Package atomicfile writes files so that readers see either the old content or the new,
// never a mix, and serialises the writers that update them.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces name with data. It writes a temporary file in the same directory,
// syncs it, renames it over name and then syncs the directory (on unix), so a crash leaves
// either the old file or the new one. The temporary file is removed on every error.
//
// perm is applied exactly, not filtered through the umask. WriteFile refuses to replace a
// name that is a symbolic link or anything else that is not a regular file: moat writes
// policy and trust files, and an attacker who planted a link there would otherwise choose
// what gets replaced.
func WriteFile(name string, data []byte, perm os.FileMode) error {
	if err := checkReplaceable(name); err != nil {
		return err
	}
	return write(name, data, perm, true, os.Rename)
}

// checkReplaceable refuses a name that exists and is not a regular file.
func checkReplaceable(name string) error {
	fi, err := os.Lstat(name)
	switch {
	case err == nil:
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("write %s: refusing to replace a symbolic link", name)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("write %s: refusing to replace a %s, not a regular file", name, kind(fi.Mode()))
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// WriteVolatile replaces name with data as WriteFile does, readers seeing the old content
// or the new, but without syncing: a crash may lose the change, or leave the old content.
// It is for state that is rebuilt or expires anyway (rate-limit counters, a session's
// history) and is written on the path of every decision, where a sync costs milliseconds.
func WriteVolatile(name string, data []byte, perm os.FileMode) error {
	if err := checkReplaceable(name); err != nil {
		return err
	}
	return write(name, data, perm, false, os.Rename)
}

// WriteNew creates name holding data, and fails with an error wrapping fs.ErrExist when
// something of that name already exists (a dangling symbolic link included). The content is
// written and synced under a temporary name first and then hard-linked to name, so the file
// appears complete or not at all and there is no window between checking for name and
// creating it. The directory's file system must support hard links.
func WriteNew(name string, data []byte, perm os.FileMode) error {
	return write(name, data, perm, true, func(tmp, name string) error {
		if err := os.Link(tmp, name); err != nil {
			return err
		}
		if err := os.Remove(tmp); err != nil {
			return fmt.Errorf("remove temporary link: %w", err)
		}
		return nil
	})
}

// write puts data in a temporary file beside name (synced, with sync) and hands it to
// install, which moves it into place. The temporary file never outlives an error.
func write(name string, data []byte, perm os.FileMode, sync bool, install func(tmp, name string) error) (err error) {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close() // already closed on most paths; the second close only reports an error
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("write %s: sync: %w", name, err)
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := install(tmp, name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if !sync {
		return nil
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", name, err)
	}
	return nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}
