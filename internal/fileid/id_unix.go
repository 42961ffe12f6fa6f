//go:build unix

package fileid

import (
	"io/fs"
	"syscall"
)

// identify returns the device and inode of fi and its number of links.
func identify(fi fs.FileInfo) (ID, uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}, 0, false
	}
	return ID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, uint64(st.Nlink), true //nolint:unconvert // the field types differ between systems
}
