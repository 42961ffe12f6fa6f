//go:build unix

package regfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading without waiting: a FIFO opened this way returns
// at once (and is then refused by its mode) instead of waiting for a writer.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
