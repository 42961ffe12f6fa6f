//go:build !unix

package fileid

import "io/fs"

// identify knows no identities where the file system does not give them through
// os.FileInfo: only links by path are then resolved.
func identify(fs.FileInfo) (ID, uint64, bool) { return ID{}, 0, false }
