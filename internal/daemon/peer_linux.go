package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the user and process at the other end of c, as the kernel says
// (SO_PEERCRED): what they were when it connected, whatever the peer claims.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
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
		return -1, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}

func peersSupported() error { return nil }
