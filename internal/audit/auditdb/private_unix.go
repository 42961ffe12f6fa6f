//go:build unix

package auditdb

import "io/fs"

// notPrivate says why fi may not hold the database: a directory others may write (they
// could swap the file), or a file others may read or write.
func notPrivate(fi fs.FileInfo, dir bool) string {
	perm := fi.Mode().Perm()
	switch {
	case dir && perm&0o022 != 0:
		return "others may write to it"
	case !dir && perm&0o077 != 0:
		return "others may read or write it"
	}
	return ""
}
