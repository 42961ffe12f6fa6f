package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// ListenLoopback listens on addr ("127.0.0.1:9464", "[::1]:0", "localhost:9464") and
// refuses any address that is not loopback: the metrics name the rules and agents of a
// user's decisions, which no other host should read. "localhost" is taken to mean
// 127.0.0.1 rather than resolved, so a hosts file cannot point it elsewhere.
func ListenLoopback(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() || ip.Zone() != "" {
		return nil, fmt.Errorf("metrics: listen address %q is not a loopback address (use 127.0.0.1 or [::1])", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.Unmap().String(), port))
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return ln, nil
}

// Serve serves the metrics at /metrics on ln until ctx ends, then shuts the server down.
// It returns nil after a shutdown, or the error that stopped it.
func (m *Metrics) Serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      15 * time.Second,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    8 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("metrics: serving: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(shutdown)
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	if err != nil {
		return fmt.Errorf("metrics: shutting down: %w", err)
	}
	return nil
}
