package hookrelay

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// checkServerUID checks that the process listening at the other end of the connected
// socket fd runs as this process's user, as the kernel says (SO_PEERCRED gives the
// listener's credentials).
func checkServerUID(fd int) error {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return fmt.Errorf("reading the server's credentials: %w", err)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("the server runs as uid %d, not %d: refused", cred.Uid, os.Getuid())
	}
	return nil
}
