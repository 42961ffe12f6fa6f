package httpproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// DefaultListen is where the proxy listens unless told otherwise: this machine only, on
// a port the system picks.
const DefaultListen = "127.0.0.1:0"

// Listen opens the proxy's listening socket. An address that is not a loopback address
// is refused unless allowRemote is set: the proxy holds the agent's tools, and anyone
// who can reach it can call them. An empty address means DefaultListen.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	if addr == "" {
		addr = DefaultListen
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("httpproxy: listening on %q: %w", addr, err)
	}
	if !allowRemote && (host == "" || !loopbackHost(host)) {
		return nil, fmt.Errorf("httpproxy: refusing to listen on %q, which is not a loopback address (allow remote clients explicitly to do so)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("httpproxy: %w", err)
	}
	// "localhost" could resolve to anything: what counts is the address bound.
	if !allowRemote && !loopbackHost(ln.Addr().String()) {
		ln.Close()
		return nil, fmt.Errorf("httpproxy: %q resolved to %s, which is not a loopback address", addr, ln.Addr())
	}
	return ln, nil
}

// Serve serves h on ln until ctx is done, then shuts down, giving open requests a few
// seconds to finish. It returns nil after a shutdown that ctx asked for.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler: h,
		// A client that never finishes its headers must not hold a connection for ever;
		// there is no write timeout, since streams last as long as the client wants.
		ReadHeaderTimeout: 10 * time.Second,
		// Idle keep-alive connections are closed, so that the memory a burst of clients
		// took is given back.
		IdleTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("httpproxy: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shut)
	if serr := <-done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("httpproxy: %w", serr)
	}
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("httpproxy: shutting down: %w", err)
	}
	return nil
}
