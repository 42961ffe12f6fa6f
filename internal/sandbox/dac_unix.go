//go:build unix

package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// closedByDAC reports whether the file permissions already keep this user from what a cap
// would take away (reading and writing for a deny, writing for a protect), and the user
// cannot change that: not root, and not the owner (who could chmod it; Landlock does not
// restrict chmod). Carving such a path out of a grant would only cost rules: /etc is
// split for /etc/shadow as root, and left whole for everyone else.
func closedByDAC(path string, mask Access) bool {
	if os.Geteuid() == 0 {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) == os.Geteuid() {
		return false
	}
	writeClosed := unix.Access(path, unix.W_OK) != nil
	if mask != 0 {
		return writeClosed
	}
	return writeClosed && unix.Access(path, unix.R_OK) != nil
}
