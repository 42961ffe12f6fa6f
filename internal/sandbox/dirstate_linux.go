package sandbox

import (
	"os"
	"syscall"
	"time"
)

// dirState is what proves a directory's listing unchanged: its identity (device and
// inode) and its modification and change times. Adding, removing or renaming an entry
// sets both times; the change time cannot be set back from user space, so a process
// that sets the modification time back (utimensat) still moves it.
type dirState struct {
	valid        bool
	dev, ino     uint64
	mtime, ctime int64 // nanoseconds
	// racy is set when the directory changed within racyWindow of being looked at: its
	// times are then no proof.
	racy bool
}

// statDir returns the state of the directory at path (symbolic links followed, as
// listing it follows them), looked at now.
func statDir(path string, now time.Time) dirState {
	fi, err := os.Stat(path)
	if err != nil {
		return dirState{}
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirState{}
	}
	m, c := st.Mtim.Nano(), st.Ctim.Nano()
	return dirState{
		valid: true, dev: st.Dev, ino: st.Ino, mtime: m, ctime: c,
		racy: max(m, c) > now.Add(-racyWindow).UnixNano(),
	}
}

// same reports whether two states are of the same directory with the same times.
func (d dirState) same(o dirState) bool {
	return d.valid && o.valid && d.dev == o.dev && d.ino == o.ino && d.mtime == o.mtime && d.ctime == o.ctime
}
