package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"
)

// ContentType is the media type of the text exposition format the metrics are served in.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// maxScrapesInFlight bounds the scrapes answered at once: the daemon serves one scraper,
// and a stuck or looping one must not pile up goroutines and buffers.
const maxScrapesInFlight = 4

// Handler serves the metrics in the text exposition format. Serve it on a loopback
// listener only (see ListenLoopback): decisions name rules and agents. The exposition is
// written whole into memory first, so a slow scraper holds no family's lock.
func (m *Metrics) Handler() http.Handler {
	inFlight := make(chan struct{}, maxScrapesInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		select {
		case inFlight <- struct{}{}:
			defer func() { <-inFlight }()
		default:
			http.Error(w, "metrics: too many scrapes at once", http.StatusServiceUnavailable)
			return
		}
		body := m.appendText(nil)
		h := w.Header()
		h.Set("Content-Type", ContentType)
		h.Set("Content-Length", strconv.Itoa(len(body)))
		// The scraper's failure to read its answer is its own, and nothing here can
		// answer it otherwise.
		_, _ = w.Write(body)
	})
}

// ListenLoopback listens on addr ("127.0.0.1:9464", "[::1]:0", "localhost:9464") and
// refuses any address that is not loopback: the metrics name the rules and agents of a
// user's decisions, which no other host should read. "localhost" is taken to mean
// 127.0.0.1 rather than resolved, so a hosts file cannot point it elsewhere.
func ListenLoopback(addr string) (net.Listener, error) {
	hostPort, err := loopback(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return ln, nil
}

// CheckAddr checks addr as ListenLoopback does, without listening: for a service
// installed now that listens at every login.
func CheckAddr(addr string) error {
	_, err := loopback(addr)
	return err
}

// loopback is addr as ListenLoopback listens on it, or why it is refused.
func loopback(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("metrics: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() || ip.Zone() != "" {
		return "", fmt.Errorf("metrics: listen address %q is not a loopback address (use 127.0.0.1 or [::1])", addr)
	}
	return net.JoinHostPort(ip.Unmap().String(), port), nil
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
