package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// Stdio runs an MCP server as a child process and relays between it and a client on
// newline-delimited JSON-RPC (MCP's stdio transport).
type Stdio struct {
	Proxy *Proxy
	// MaxFrame bounds one message in either direction; 0 means jsonrpc.MaxFrame.
	MaxFrame int
	// Grace is how long the server has to exit after the client closes its input, and
	// again after SIGTERM, before it is killed; 0 means 5 seconds.
	Grace time.Duration
	// Signals, when set, are forwarded to the server (the proxy's own SIGINT, SIGTERM…).
	Signals <-chan os.Signal
}

// Run starts cmd (whose Stderr the caller sets: the server's log passes through) and
// relays until the server exits, returning its exit status: the status it exited with, or
// 128 plus the signal that ended it. The server is started in a way that ends it when the
// proxy dies, where the system allows (Linux).
func (s *Stdio) Run(ctx context.Context, cmd *exec.Cmd, in io.Reader, out io.Writer) (int, error) {
	maxFrame := s.MaxFrame
	if maxFrame <= 0 {
		maxFrame = jsonrpc.MaxFrame
	}
	grace := s.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	serverIn, err := cmd.StdinPipe()
	if err != nil {
		return 0, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	serverOut, err := cmd.StdoutPipe()
	if err != nil {
		return 0, fmt.Errorf("connecting to the MCP server: %w", err)
	}
	endWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting the MCP server: %w", err)
	}
	client := &frameWriter{w: out}
	server := &frameWriter{w: serverIn}
	// moat's own requests (a tools/list to vet a tool before its call) go to the server
	// between the client's frames; their answers come back on the server's output.
	conn := &Conn{}
	send := func(_ context.Context, request []byte) error { return server.write(request) }

	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		r := jsonrpc.NewReader(serverOut, maxFrame)
		for {
			frame, err := r.Next()
			if err != nil && !isFrameError(err) {
				return // the end of the server's output, or a read error that will not pass
			}
			var relay []byte
			var answers [][]byte
			if err != nil {
				answers = s.Proxy.refuse(conn, "server", err)
			} else {
				relay, answers = s.Proxy.FromServerOn(conn, frame)
			}
			if client.write(relay, answers...) != nil {
				// The client is gone; keep draining so that the server is not blocked.
				continue
			}
		}
	}()

	clientDone := make(chan struct{})
	go func() {
		defer close(clientDone)
		r := jsonrpc.NewReader(in, maxFrame)
		for {
			frame, err := r.Next()
			if err != nil && !isFrameError(err) {
				// The client is done (or its input broke): close the server's input,
				// which tells it to exit.
				if !errors.Is(err, io.EOF) {
					fmt.Fprintf(s.Proxy.Log, "moat: reading from the client: %v\n", err)
				}
				serverIn.Close()
				return
			}
			var relay []byte
			var answers [][]byte
			if err != nil {
				answers = s.Proxy.refuse(conn, "client", err)
			} else {
				// A call that waits for its tool to be vetted holds the frames that
				// follow it, which keep their order.
				relay, answers = s.Proxy.FromClientOn(ctx, conn, send, frame)
			}
			if client.write(nil, answers...) != nil {
				return
			}
			if relay != nil && server.write(relay) != nil {
				return // the server is gone
			}
		}
	}()

	exited := make(chan error, 1)
	go func() {
		<-relayed // all of the server's output is relayed before its status is read
		exited <- cmd.Wait()
	}()
	var stop <-chan time.Time
	var term bool
	for {
		select {
		case err := <-exited:
			return exitStatus(cmd, err)
		case sig := <-s.Signals:
			cmd.Process.Signal(sig)
		case <-clientDone:
			clientDone = nil
			stop = time.After(grace)
		case <-ctx.Done():
			ctx = context.Background() // stop once
			serverIn.Close()
			stop = time.After(0)
		case <-stop:
			if !term {
				cmd.Process.Signal(syscall.SIGTERM)
				term = true
				stop = time.After(grace)
			} else {
				cmd.Process.Kill()
				stop = nil
			}
		}
	}
}

func exitStatus(cmd *exec.Cmd, err error) (int, error) {
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0, fmt.Errorf("waiting for the MCP server: %w", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return ee.ExitCode(), nil
}

// frameWriter writes whole frames, one Write each, so that the two directions' answers
// to the client never interleave.
type frameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// write writes relay (when not nil) and then each answer, each as one line.
func (f *frameWriter) write(relay []byte, answers ...[]byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range append([][]byte{relay}, answers...) {
		if b == nil {
			continue
		}
		f.buf = append(append(f.buf[:0], b...), '\n')
		if _, err := f.w.Write(f.buf); err != nil {
			return err
		}
	}
	return nil
}

// isFrameError reports whether err is about one frame, after which reading goes on.
func isFrameError(err error) bool {
	var fe *jsonrpc.FrameError
	return errors.As(err, &fe)
}
