//go:build !unix

package atomicfile

// syncDir does nothing: Windows cannot flush a directory, and renames there are already
// journaled by NTFS.
func syncDir(dir string) error { return nil }
