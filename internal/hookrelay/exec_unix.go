//go:build unix

package hookrelay

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// execMoat replaces this process with moat, its standard input a pipe that holds the
// payload, so that moat answers the agent as if it had been started by it. A payload the
// pipe cannot hold goes to moat as a child's input instead (runMoat).
func execMoat(path string, args []string, payload []byte) error {
	r, w, err := os.Pipe()
	if err != nil {
		return runMoat(path, args, payload)
	}
	fits := fillPipe(w, payload)
	w.Close()
	if !fits {
		r.Close()
		return runMoat(path, args, payload)
	}
	if err := dupStdin(int(r.Fd())); err != nil {
		r.Close()
		return runMoat(path, args, payload)
	}
	argv := append([]string{path}, args...)
	err = unix.Exec(path, argv, os.Environ())
	// The exec failed and stdin is the pipe: the child reads the payload from memory.
	return errors.Join(fmt.Errorf("exec %s: %w", path, err), runMoat(path, args, payload))
}

// fillPipe writes payload into the pipe w without blocking, enlarging the pipe where the
// system allows it, and reports whether all of it went in.
func fillPipe(w *os.File, payload []byte) bool {
	fd := int(w.Fd())
	growPipe(fd, len(payload))
	if err := unix.SetNonblock(fd, true); err != nil {
		return false
	}
	for len(payload) > 0 {
		n, err := unix.Write(fd, payload)
		if err != nil || n <= 0 {
			return false
		}
		payload = payload[n:]
	}
	return true
}
