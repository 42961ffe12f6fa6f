package hookrelay

import "golang.org/x/sys/unix"

// growPipe asks for a pipe buffer of at least size bytes (F_SETPIPE_SZ); the system's
// bound (/proc/sys/fs/pipe-max-size) may refuse it, and the caller then finds out by
// writing.
func growPipe(fd, size int) {
	if size > 64<<10 {
		unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, size)
	}
}

// dupStdin makes fd the process's standard input.
func dupStdin(fd int) error { return unix.Dup3(fd, 0, 0) }
