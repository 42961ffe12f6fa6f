//go:build !unix

package regfile

import "os"

// openNonBlocking opens path for reading. Outside unix there are no FIFOs in the file
// system to wait on; the mode checks before and after opening refuse other kinds.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
