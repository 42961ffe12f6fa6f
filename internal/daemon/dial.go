package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/moatdev/moat/internal/decide"
)

// DialBound dials the daemon's unix socket at socket, makes sure the process listening
// there is the user's own (a socket of another user's, put where the client looks,
// would otherwise see every call and answer them all with allow), and binds the
// connection to the service for p: the client's values of daemonenv.Service and its moat
// binary. The
// connection it returns is ready for decide.Remote. A daemon of another user, a refused
// binding, or no daemon at all is an error: the client then decides in its own process.
func DialBound(socket string, p BindParams) decide.Dial {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", socket)
		if err != nil {
			return nil, err
		}
		if err := bindConn(ctx, conn, p); err != nil {
			conn.Close()
			return nil, err
		}
		return conn, nil
	}
}

// bindConn checks the server at the other end of conn and sends it the bind request.
func bindConn(ctx context.Context, conn net.Conn, p BindParams) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("daemon: %T is no unix socket", conn)
	}
	uid, _, err := peerCred(uc)
	if err != nil {
		return fmt.Errorf("daemon: reading the server's credentials: %w", err)
	}
	if self := os.Getuid(); uid != self {
		return fmt.Errorf("daemon: the socket %s is served by uid %d, not this user's %d: refused", uc.RemoteAddr(), uid, self)
	}
	params, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("daemon: bind: %w", err)
	}
	line, err := json.Marshal(decide.WireRequest{Version: decide.WireVersion, Method: MethodBind, Params: params})
	if err != nil {
		return fmt.Errorf("daemon: bind: %w", err)
	}
	// The answer is one line, and the server says nothing more until the next request:
	// nothing is left in the reader for the connection's next owner.
	var resp decide.WireResponse
	if err := exchange(ctx, conn, bufio.NewReader(conn), line, &resp); err != nil {
		return fmt.Errorf("daemon: bind: %w", err)
	}
	if resp.Error != "" {
		return fmt.Errorf("daemon: %s", resp.Error)
	}
	if resp.Result == nil {
		return errors.New("daemon: bind: an answer with neither result nor error")
	}
	return nil
}
