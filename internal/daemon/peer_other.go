//go:build !linux && !darwin

package daemon

import (
	"errors"
	"net"
	"runtime"
)

// errNoPeers: without a way to learn a peer's user, the socket would answer anyone who
// can reach it.
var errNoPeers = errors.New("the daemon cannot authenticate its peers on " + runtime.GOOS + " (it needs SO_PEERCRED or LOCAL_PEERCRED): it runs on Linux and macOS only")

func peerCred(*net.UnixConn) (uid, pid int, err error) { return -1, 0, errNoPeers }

func peersSupported() error { return errNoPeers }
