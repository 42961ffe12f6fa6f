package daemon

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred is the user and process at the other end of c, as the kernel says
// (LOCAL_PEERCRED, which getpeereid reads, and LOCAL_PEERPID).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Xucred
	var credErr, pidErr error
	err = raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	})
	if err == nil {
		err = credErr
	}
	if err != nil {
		return -1, 0, err
	}
	if pidErr != nil {
		pid = 0 // the user is what authenticates; the process is only known when it can be
	}
	return int(cred.Uid), pid, nil
}

func peersSupported() error { return nil }
