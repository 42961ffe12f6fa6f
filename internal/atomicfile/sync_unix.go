//go:build unix

package atomicfile

import "os"

// syncDir flushes dir's entries, so a rename or link in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
