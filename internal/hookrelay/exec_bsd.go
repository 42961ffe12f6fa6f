//go:build unix && !linux

package hookrelay

import "golang.org/x/sys/unix"

// growPipe does nothing: the pipe's buffer is the system's.
func growPipe(fd, size int) {}

// dupStdin makes fd the process's standard input.
func dupStdin(fd int) error { return unix.Dup2(fd, 0) }
