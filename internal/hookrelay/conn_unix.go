//go:build unix

package hookrelay

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// exchange sends line to the daemon listening at c.Socket and returns its answer line
// (without the newline), over one unix socket driven by system calls alone: the client
// links no package net, whose initialization costs more than the rest of the client's
// start. Connecting is bounded by the dial timeout, and once connected the whole
// exchange by c.Wait, measured from one deadline (poll waits only what remains of it).
func (c Client) exchange(line []byte) ([]byte, error) {
	dialTimeout := c.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	fd, err := newSocket()
	if err != nil {
		return nil, fmt.Errorf("connecting to the daemon: %w", err)
	}
	defer unix.Close(fd)
	if err := connect(fd, c.Socket, time.Now().Add(dialTimeout)); err != nil {
		return nil, fmt.Errorf("connecting to the daemon: %w", err)
	}
	check := c.CheckPeer
	if check == nil {
		check = checkServerUID
	}
	if err := check(fd); err != nil {
		return nil, fmt.Errorf("the daemon's socket: %w", err)
	}
	deadline := time.Now().Add(c.Wait)
	if err := writeAll(fd, line, deadline); err != nil {
		return nil, fmt.Errorf("sending the request: %w", err)
	}
	return readLine(fd, deadline)
}

// errTimeout is a deadline passed while waiting on the socket.
var errTimeout = errors.New("i/o timeout")

// connect connects the non-blocking socket fd to the unix socket at path by deadline.
// A listener whose queue is full refuses at once (EAGAIN), as package net does: the
// client then decides without the daemon rather than wait on it.
func connect(fd int, path string, deadline time.Time) error {
	err := ignoringEINTR(func() error { return unix.Connect(fd, &unix.SockaddrUnix{Name: path}) })
	switch {
	case err == nil || errors.Is(err, unix.EISCONN):
		return nil
	case !errors.Is(err, unix.EINPROGRESS) && !errors.Is(err, unix.EALREADY):
		return fmt.Errorf("connect %s: %w", path, err)
	}
	if err := wait(fd, unix.POLLOUT, deadline); err != nil {
		return fmt.Errorf("connect %s: %w", path, err)
	}
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return fmt.Errorf("connect %s: %w", path, err)
	}
	if soErr != 0 {
		return fmt.Errorf("connect %s: %w", path, unix.Errno(soErr))
	}
	return nil
}

// writeAll writes b to the non-blocking socket fd by deadline, in one write when the
// socket's buffer holds it.
func writeAll(fd int, b []byte, deadline time.Time) error {
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		switch {
		case errors.Is(err, unix.EAGAIN):
			if err := wait(fd, unix.POLLOUT, deadline); err != nil {
				return err
			}
			continue
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return err
		case n <= 0:
			return errors.New("the socket took no bytes")
		}
		b = b[n:]
	}
	return nil
}

// answerBuffer is the first size of the buffer an answer is read into: an answer to a
// tool call is a few hundred bytes, read in one call.
const answerBuffer = 16 << 10

// readLine reads from the non-blocking socket fd, by deadline, up to the first newline
// and returns what precedes it; an answer longer than maxAnswer is refused unread.
func readLine(fd int, deadline time.Time) ([]byte, error) {
	buf := make([]byte, 0, answerBuffer)
	for {
		if err := wait(fd, unix.POLLIN, deadline); err != nil {
			return nil, fmt.Errorf("reading the daemon's answer: %w", err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return nil, fmt.Errorf("reading the daemon's answer: %w", err)
		case n == 0:
			return nil, errors.New("reading the daemon's answer: EOF before the end of the line")
		}
		start := len(buf)
		buf = buf[:start+n]
		if i := bytes.IndexByte(buf[start:], '\n'); i >= 0 {
			return buf[:start+i], nil
		}
		if len(buf) > maxAnswer {
			return nil, fmt.Errorf("the daemon's answer is longer than %d bytes", maxAnswer)
		}
	}
}

// wait waits until fd is ready for events (POLLIN, POLLOUT) or has failed, by deadline.
func wait(fd int, events int16, deadline time.Time) error {
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errTimeout
		}
		// Rounded up: poll's unit is the millisecond, and a wait rounded down to 0
		// would spin.
		ms := int((left + time.Millisecond - 1) / time.Millisecond)
		fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("poll: %w", err)
		case n > 0:
			// Ready, or failed (POLLERR, POLLHUP): the next call says which.
			return nil
		}
	}
}

// ignoringEINTR calls f until it is not interrupted by a signal.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
