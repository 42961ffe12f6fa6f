package hookrelay

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// checkServerUID checks that the process listening at the other end of c runs as this
// process's user, as the kernel says (LOCAL_PEERCRED).
func checkServerUID(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return err
	}
	if credErr != nil {
		return fmt.Errorf("reading the server's credentials: %w", credErr)
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("the server runs as uid %d, not %d: refused", cred.Uid, os.Getuid())
	}
	return nil
}
