package daemon

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// Options configure a Server.
type Options struct {
	// Service decides; the daemon keeps one for its life, so that each policy is
	// compiled once per source and content.
	Service decide.Service
	// Record records the decisions of requests in the seeds' format (the service's own
	// requests say themselves whether to record).
	Record bool
	// Token, when set, is what a TCP peer must present on its first line.
	Token string
	// Log receives one line per event worth a note (a refused peer, a failed request);
	// nil drops them.
	Log func(string)
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// IdleTimeout ends a connection that sends no complete request for that long (a
	// slow sender included); zero is DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout ends a connection whose peer does not read its answer; zero is
	// DefaultWriteTimeout.
	WriteTimeout time.Duration
	// Methods are served beside the decision service's and the daemon's own, by name
	// (a name the daemon serves already is refused by New). They let the daemon's owner
	// serve what needs more than the service: the hook adapters, the sandbox.
	Methods map[string]Method
	// Bind, when set, gives the service for a client's environment (the variables of
	// daemonenv.Service), which a connection selects with MethodBind: the daemon may
	// serve processes whose HOME, policy or PATH differ from its own. An error refuses
	// the binding, and the client decides without the daemon.
	Bind func(BindParams) (decide.Service, error)
	// Environments, when set, counts the client environments served (Status).
	Environments func() int
	// Problems, when set, lists the policy edits the daemon's services could not use,
	// with the policy each kept in force (Status): a broken edit is never a silent switch.
	Problems func() []decide.Problem
	// Observe, when set, is told of each request once it is answered: its method (empty
	// for a request in the seeds' format), how long the server took from reading it to
	// writing the answer, and the error it was answered with. It is called on the
	// connection's goroutine, so it must be quick (a metric).
	Observe func(method string, took time.Duration, err error)
	// Sinks, when set, describes where the daemon's owner sends decisions (audit stores,
	// metrics, notifications), for Status.
	Sinks func() *SinkStatus
	// PolicyBundle, when set, describes the fleet's policy bundle of each environment
	// that fetches one, for Status (nil: none does).
	PolicyBundle func() *PolicyBundleStatus
	// Spawn, when set, runs each connection's work on a goroutine it returns at once
	// from: the owner's kept workers, whose stacks have grown already, so that a
	// connection per hook call does not grow a new goroutine's stack each time. Nil
	// starts a new goroutine per connection.
	Spawn func(func())
}

// Method answers one request of a registered method: params as sent, and who sent it.
// Its result is encoded as the response's result; its error as the response's error.
type Method func(ctx context.Context, params json.RawMessage, p Peer) (any, error)

// Peer says who sent a request.
type Peer struct {
	// Local is a peer on the unix socket, authenticated by its uid; a TCP peer presented
	// the token, and may not stop the daemon.
	Local bool
	// PID is the peer's process as the kernel gave it when it connected (unix socket on
	// Linux and macOS), 0 when unknown. It is for reading the peer's process tree, not
	// for authenticating: the process may have exited and its number been reused.
	PID int
}

// Default timeouts of a connection.
const (
	DefaultIdleTimeout  = 60 * time.Second
	DefaultWriteTimeout = 10 * time.Second
)

// Server serves the decision service on listeners. It is safe for concurrent use.
type Server struct {
	opts    Options
	svc     decide.Service
	started time.Time
	uid     int

	decisions atomic.Uint64
	// answered counts the requests of each registered method; its keys are fixed by New.
	answered map[string]*atomic.Uint64
	policies sync.Map // policy keys looked up

	mu        sync.Mutex
	closing   bool
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	wg        sync.WaitGroup

	stopOnce sync.Once
	stop     chan struct{}

	// buffers keeps the read and write buffers of connections that ended for the next
	// ones: a hook client opens a connection per call, and a fresh 64 KiB reader per
	// connection was a large allocation, zeroed, at every call.
	buffers sync.Pool // of *connBuffers
}

// connBuffers are a connection's buffered reader and writer.
type connBuffers struct {
	in  *bufio.Reader
	out *bufio.Writer
}

// connReadBuffer is the size of a connection's read buffer.
const connReadBuffer = 64 << 10

// takeBuffers returns buffers reading from and writing to conn; putBuffers gives them
// back once the connection is done with them.
func (s *Server) takeBuffers(conn net.Conn) *connBuffers {
	b, ok := s.buffers.Get().(*connBuffers)
	if !ok {
		return &connBuffers{in: bufio.NewReaderSize(conn, connReadBuffer), out: bufio.NewWriter(conn)}
	}
	b.in.Reset(conn)
	b.out.Reset(conn)
	return b
}

func (s *Server) putBuffers(b *connBuffers) {
	// Nothing of the connection is kept: not its unread bytes, nor the conn itself.
	b.in.Reset(nil)
	b.out.Reset(nil)
	s.buffers.Put(b)
}

// New returns a server of opts.Service.
func New(opts Options) (*Server, error) {
	for name := range opts.Methods {
		if builtinMethods[name] {
			return nil, fmt.Errorf("daemon: method %q is served already", name)
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	answered := make(map[string]*atomic.Uint64, len(opts.Methods))
	for name := range opts.Methods {
		answered[name] = new(atomic.Uint64)
	}
	return &Server{
		opts: opts, svc: opts.Service, started: opts.Now(), uid: os.Getuid(),
		conns: map[net.Conn]struct{}{}, stop: make(chan struct{}), answered: answered,
	}, nil
}

// Status is what the daemon says of itself.
type Status struct {
	PID int `json:"pid"`
	// Started is when the daemon started, and Uptime how long ago, in seconds.
	Started time.Time `json:"started"`
	Uptime  float64   `json:"uptime_s"`
	// Policies counts the policies compiled (by source and content).
	Policies int `json:"policies"`
	// Decisions counts the calls decided.
	Decisions uint64 `json:"decisions"`
	// Environments counts the client environments the daemon keeps a service for.
	Environments int `json:"environments"`
	// Answered counts the requests answered by each registered method (the hook
	// client's "hook", launch's "sandbox_launch"), errors included.
	Answered map[string]uint64 `json:"answered,omitempty"`
	// Problems are the policy edits the daemon could not use; the last good policy
	// decides meanwhile.
	Problems []decide.Problem `json:"problems,omitempty"`
	// Socket and TCP are where the daemon listens; the server leaves them to its owner.
	Socket string `json:"socket,omitempty"`
	TCP    string `json:"tcp,omitempty"`
	// Sinks is what Options.Sinks describes.
	Sinks *SinkStatus `json:"sinks,omitempty"`
	// PolicyBundle is what Options.PolicyBundle describes; nil when no environment
	// fetches a policy bundle.
	PolicyBundle *PolicyBundleStatus `json:"policy_bundle,omitempty"`
}

// Status reports the server's figures.
func (s *Server) Status() Status {
	n := 0
	s.policies.Range(func(any, any) bool { n++; return true })
	now := s.opts.Now()
	st := Status{PID: os.Getpid(), Started: s.started, Uptime: now.Sub(s.started).Seconds(), Policies: n, Decisions: s.decisions.Load()}
	if s.opts.Environments != nil {
		st.Environments = s.opts.Environments()
	}
	if s.opts.Problems != nil {
		st.Problems = s.opts.Problems()
	}
	for name, n := range s.answered {
		if st.Answered == nil {
			st.Answered = map[string]uint64{}
		}
		st.Answered[name] = n.Load()
	}
	s.mu.Lock()
	for _, ln := range s.listeners {
		switch a := ln.Addr().(type) {
		case *net.UnixAddr:
			st.Socket = a.Name
		case *net.TCPAddr:
			st.TCP = a.String()
		}
	}
	s.mu.Unlock()
	if s.opts.Sinks != nil {
		st.Sinks = s.opts.Sinks()
	}
	if s.opts.PolicyBundle != nil {
		st.PolicyBundle = s.opts.PolicyBundle()
	}
	return st
}

// Stopped is closed when a peer asks the daemon to stop (`moat daemon stop`).
func (s *Server) Stopped() <-chan struct{} { return s.stop }

func (s *Server) requestStop() { s.stopOnce.Do(func() { close(s.stop) }) }

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf(format, args...))
	}
}

// ErrServerClosed is returned by Serve once Shutdown was called.
var ErrServerClosed = errors.New("daemon: server closed")

// Serve answers the connections of ln until Shutdown. On a unix socket only peers of
// the daemon's own user are served; on any other listener, only peers presenting the
// token (and none without one).
func (s *Server) Serve(ln net.Listener) error {
	isUnix := ln.Addr().Network() == "unix"
	if isUnix {
		if err := peersSupported(); err != nil {
			return err
		}
	} else if s.opts.Token == "" {
		return errors.New("daemon: a TCP listener needs a token")
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners = append(s.listeners, ln)
	s.mu.Unlock()
	for {
		conn, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closing := s.closing
			s.mu.Unlock()
			if closing {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("daemon: accepting: %w", err)
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			conn.Close()
			return ErrServerClosed
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		if s.opts.Spawn != nil {
			s.opts.Spawn(func() { s.serveConn(conn, isUnix) })
		} else {
			go s.serveConn(conn, isUnix)
		}
	}
}

// Shutdown stops accepting, lets each request in progress finish and be answered, and
// closes every connection; it returns when they are closed or ctx ends.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	for _, ln := range s.listeners {
		ln.Close()
	}
	// A connection waiting for its next request stops waiting; one deciding finishes
	// and answers first (serveConn sets its deadline under mu, seeing closing).
	for c := range s.conns {
		c.SetReadDeadline(time.Unix(1, 0))
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		return ctx.Err()
	}
}

// serveConn authenticates the peer of conn, then answers its requests in order.
func (s *Server) serveConn(conn net.Conn, isUnix bool) {
	defer func() {
		conn.Close()
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		s.wg.Done()
	}()
	bufs := s.takeBuffers(conn)
	defer s.putBuffers(bufs)
	in, out := bufs.in, bufs.out
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	reply := func(v any) bool {
		conn.SetWriteDeadline(s.opts.Now().Add(s.opts.WriteTimeout))
		return enc.Encode(v) == nil && out.Flush() == nil
	}
	p := Peer{Local: isUnix}
	if isUnix {
		uid, pid, err := peerCred(conn.(*net.UnixConn))
		p.PID = pid
		if err != nil || uid != s.uid {
			s.logf("refused a peer of uid %d on the socket: only uid %d is served (%v)", uid, s.uid, err)
			reply(decide.WireResponse{Error: "refused: the daemon serves only its own user"})
			return
		}
	} else if !s.handshake(conn, in, reply) {
		return
	}
	ctx := context.Background()
	sess := s.newSession(p)
	for {
		if !s.waitNext(conn) {
			return
		}
		line, tooLong, err := hook.ReadLine(in, decide.MaxWireRequest)
		if err != nil && !errors.Is(err, io.EOF) {
			return // idle, slow, closed or shut down
		}
		if tooLong {
			if !reply(decide.WireResponse{Error: fmt.Sprintf("request longer than %d bytes", decide.MaxWireRequest)}) {
				return
			}
		} else if len(bytes.TrimSpace(line)) > 0 {
			start := time.Now()
			method, resp := s.respond(ctx, line, sess)
			ok := reply(resp)
			if s.opts.Observe != nil {
				s.opts.Observe(observed(method, resp, time.Since(start)))
			}
			if !ok {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// waitNext arms the idle deadline for the next request, unless the server is shutting
// down; it is under mu so that Shutdown's deadline is never overwritten.
func (s *Server) waitNext(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	return conn.SetReadDeadline(s.opts.Now().Add(s.opts.IdleTimeout)) == nil
}

// handshake reads a TCP peer's first line, {"token":"…"}, and says whether it holds the
// daemon's token.
func (s *Server) handshake(conn net.Conn, in *bufio.Reader, reply func(any) bool) bool {
	conn.SetReadDeadline(s.opts.Now().Add(s.opts.IdleTimeout))
	line, tooLong, err := hook.ReadLine(in, 4<<10)
	var hello struct {
		Token string `json:"token"`
	}
	if err == nil && !tooLong && json.Unmarshal(line, &hello) == nil && s.opts.Token != "" &&
		subtle.ConstantTimeCompare([]byte(hello.Token), []byte(s.opts.Token)) == 1 {
		return reply(decide.WireResponse{Result: json.RawMessage(`{}`)})
	}
	s.logf("refused a TCP peer %s: no valid token", conn.RemoteAddr())
	reply(decide.WireResponse{Error: "refused: the first line must be {\"token\":\"…\"} with the daemon's token"})
	return false
}
