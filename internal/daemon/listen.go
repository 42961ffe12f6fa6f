package daemon

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
	"time"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// Socket is the daemon's unix socket, held with the lock that makes it the only daemon
// of its directory.
type Socket struct {
	net.Listener
	lock *os.File
}

// Close stops listening, removes the socket and drops the lock.
func (s *Socket) Close() error {
	err := s.Listener.Close()
	s.lock.Close()
	return err
}

// ListenUnix takes the daemon's lock in p.Dir and listens on p.Socket (mode 0600 in the
// 0700 directory). A socket left by a daemon that died is replaced; another daemon
// holding the lock is ErrRunning.
func ListenUnix(p Paths) (*Socket, error) {
	if err := peersSupported(); err != nil {
		return nil, err
	}
	lk, err := lock(p.Lock)
	if err != nil {
		return nil, err
	}
	// Holding the lock, whatever is at the socket's path was left by a daemon that
	// ended; only a socket is removed.
	if fi, err := os.Lstat(p.Socket); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			lk.Close()
			return nil, fmt.Errorf("%s exists and is not a socket: refused", p.Socket)
		}
		if err := os.Remove(p.Socket); err != nil {
			lk.Close()
			return nil, fmt.Errorf("removing the stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		lk.Close()
		return nil, fmt.Errorf("listening on %s: %w", p.Socket, err)
	}
	if err := os.Chmod(p.Socket, 0o600); err != nil {
		ln.Close()
		lk.Close()
		return nil, fmt.Errorf("securing the socket: %w", err)
	}
	return &Socket{Listener: ln, lock: lk}, nil
}

// NewToken writes a new random token to p.Token (mode 0600) for TCP peers to present,
// and returns it.
func NewToken(p Paths) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a token: %w", err)
	}
	token := hex.EncodeToString(b)
	if err := os.Remove(p.Token); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("replacing the token: %w", err)
	}
	f, err := os.OpenFile(p.Token, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("writing the token: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("writing the token: %w", err)
	}
	return token, f.Close()
}

// ReadToken reads the token TCP peers present, from the file the daemon wrote; a file
// that others may read is refused.
func ReadToken(p Paths) (string, error) {
	fi, err := os.Lstat(p.Token)
	if err != nil {
		return "", fmt.Errorf("reading the daemon's token: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the daemon's token %s is not a private file (mode %s): refused", p.Token, fi.Mode())
	}
	b, err := os.ReadFile(p.Token)
	if err != nil {
		return "", fmt.Errorf("reading the daemon's token: %w", err)
	}
	token, _, _ := strings.Cut(string(b), "\n")
	if token == "" {
		return "", fmt.Errorf("the daemon's token %s is empty", p.Token)
	}
	return token, nil
}

// DialTCP dials the daemon's loopback TCP listener at addr and presents token.
func DialTCP(addr, token string) decide.Dial {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		hello, _ := json.Marshal(struct {
			Token string `json:"token"`
		}{token})
		var resp decide.WireResponse
		if err := exchange(ctx, conn, bufio.NewReader(conn), hello, &resp); err != nil {
			conn.Close()
			return nil, err
		}
		if resp.Error != "" {
			conn.Close()
			return nil, errors.New(resp.Error)
		}
		return conn, nil
	}
}

// Request sends one of the daemon's own requests (status, shutdown) through dial and
// decodes its result into result.
func Request(ctx context.Context, dial decide.Dial, method string, result any) error {
	conn, err := dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	line, err := json.Marshal(decide.WireRequest{Version: decide.WireVersion, Method: method, Params: json.RawMessage(`{}`)})
	if err != nil {
		return err
	}
	var resp decide.WireResponse
	if err := exchange(ctx, conn, bufio.NewReader(conn), line, &resp); err != nil {
		return err
	}
	if resp.Error != "" {
		return fmt.Errorf("the daemon answered: %s", resp.Error)
	}
	if result == nil {
		return nil
	}
	return json.Unmarshal(resp.Result, result)
}

// exchange writes one line and reads one answer into resp, within ctx (or a few
// seconds without a deadline).
func exchange(ctx context.Context, conn net.Conn, in *bufio.Reader, line []byte, resp any) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(5 * time.Second)
	}
	conn.SetDeadline(deadline)
	defer conn.SetDeadline(time.Time{})
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return err
	}
	answer, tooLong, err := hook.ReadLine(in, 1<<20)
	if tooLong {
		return errors.New("the daemon's answer is too long")
	}
	if err != nil && len(answer) == 0 {
		return fmt.Errorf("reading the daemon's answer: %w", err)
	}
	return json.Unmarshal(answer, resp)
}
