package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerUID is the user of the process at the other end of c, as the kernel says
// (LOCAL_PEERCRED, which getpeereid reads).
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Xucred
	var credErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
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
