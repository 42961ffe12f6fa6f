package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of c, as the kernel says
// (SO_PEERCRED): what it was when it connected, whatever it claims.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

func peersSupported() error { return nil }
