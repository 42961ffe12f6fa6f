//go:build unix

package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// privateDir checks that dir is a directory of this user's, mode 0700, reached without
// a link, and that its parent is a directory of this user's or a sticky one (/tmp);
// with create, it makes dir when it is absent.
func privateDir(dir string, create bool) error {
	uid := os.Getuid()
	parent := filepath.Dir(dir)
	pfi, err := os.Lstat(parent)
	if err != nil {
		return fmt.Errorf("runtime directory %s: %w", parent, err)
	}
	pst, ok := pfi.Sys().(*syscall.Stat_t)
	if !ok || !pfi.IsDir() {
		return fmt.Errorf("runtime directory %s: not a directory", parent)
	}
	// $XDG_RUNTIME_DIR is the user's own; the temporary directory is shared but sticky,
	// so that nobody else can remove or rename what the user makes in it.
	if int(pst.Uid) != uid && pfi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("runtime directory %s: owned by uid %d and not sticky", parent, pst.Uid)
	}
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating the runtime directory: %w", err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return fmt.Errorf("runtime directory: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("runtime directory %s is a link: refused", dir)
	case !fi.IsDir() || !ok:
		return fmt.Errorf("runtime directory %s is not a directory: refused", dir)
	case int(st.Uid) != uid:
		return fmt.Errorf("runtime directory %s belongs to uid %d, not %d: refused", dir, st.Uid, uid)
	case fi.Mode().Perm() != 0o700:
		return fmt.Errorf("runtime directory %s has mode %04o, not 0700: refused", dir, fi.Mode().Perm())
	}
	return nil
}
