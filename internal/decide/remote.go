package decide

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/audit"
)

// The daemon's wire protocol for the service's own methods: one JSON request per line,
// one JSON response per line, many per connection. A request names a method and holds
// that method's request type as params; a response holds the method's result, or an
// error. The params and results are exactly the JSON of this package's types, so that
// Remote and Local cannot be told apart but by speed.

// WireVersion is the version every request carries.
const WireVersion = 1

// The methods of the wire protocol, one per method of Service.
const (
	MethodLookup        = "lookup"
	MethodDecide        = "decide"
	MethodDecideOutput  = "decide_output"
	MethodDecidePrompt  = "decide_prompt"
	MethodRecord        = "record"
	MethodRecordFailure = "record_failure"
)

// WireRequest is one request line.
type WireRequest struct {
	Version int             `json:"version"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// WireResponse is one response line: Result, or Error with, where the error is one a
// caller tells apart with errors.Is, its Code.
type WireResponse struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
	Code   string          `json:"code,omitempty"`
}

// Error codes: the errors a caller of Service compares with errors.Is.
const (
	CodeUnknownPolicy = "unknown_policy" // ErrUnknownPolicy
	CodeSpooled       = "spooled"        // audit.ErrSpooled
)

// ErrorCode is the wire code of err, or "".
func ErrorCode(err error) string {
	switch {
	case errors.Is(err, ErrUnknownPolicy):
		return CodeUnknownPolicy
	case errors.Is(err, audit.ErrSpooled):
		return CodeSpooled
	}
	return ""
}

// MaxWireRequest bounds a request line of the wire protocol: a call request carries
// the calls of one hook payload (at most 16 MiB), escaped once more.
const MaxWireRequest = 32 << 20

// maxResponse bounds a response line: a result carries the calls it answers and, on
// request, a trace.
const maxResponse = 2 * MaxWireRequest

// remoteError is an error the service answered, as its message and code.
type remoteError struct {
	msg, code string
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() error {
	switch e.code {
	case CodeUnknownPolicy:
		return ErrUnknownPolicy
	case CodeSpooled:
		return audit.ErrSpooled
	}
	return nil
}

// Dial opens a connection to the service, ready for requests (any handshake done).
type Dial func(ctx context.Context) (net.Conn, error)

// Remote is the Service of another process (the daemon), reached through connections
// that dial opens. It keeps idle connections for the next requests, and is safe for
// concurrent use: each request in flight has a connection of its own.
//
// A request that fails in transport is an error, which the caller answers with its fail
// mode; a Remote never makes a decision of its own. WithProgress reports nothing through
// it.
type Remote struct {
	dial Dial

	mu     sync.Mutex
	idle   []*remoteConn
	closed bool
}

var _ Service = (*Remote)(nil)

// remoteConn is one connection with its reader.
type remoteConn struct {
	conn net.Conn
	r    *bufio.Reader
	used time.Time
}

// maxIdle is how many connections a Remote keeps for reuse, and idleFor how long: less
// than the daemon keeps an idle connection open, so that a kept one is still served.
const (
	maxIdle = 16
	idleFor = 20 * time.Second
)

// NewRemote returns the Service reached through dial.
func NewRemote(dial Dial) *Remote { return &Remote{dial: dial} }

// DialUnix dials the unix socket at path.
func DialUnix(path string) Dial {
	return func(ctx context.Context) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", path)
	}
}

// Close closes the idle connections; requests after it fail.
func (r *Remote) Close() error {
	r.mu.Lock()
	idle := r.idle
	r.idle, r.closed = nil, true
	r.mu.Unlock()
	for _, c := range idle {
		c.conn.Close()
	}
	return nil
}

// Lookup finds and compiles the policy for a scope in the daemon. A relative policy flag
// is made absolute here: the daemon's working directory is not the caller's.
func (r *Remote) Lookup(ctx context.Context, s Scope) (Policy, error) {
	if s.Flag != "" && !filepath.IsAbs(s.Flag) && filepath.IsAbs(s.Cwd) {
		s.Flag = filepath.Join(s.Cwd, s.Flag)
	}
	var p Policy
	err := r.call(ctx, MethodLookup, s, &p)
	return p, err
}

// Decide decides the calls of one event in the daemon.
func (r *Remote) Decide(ctx context.Context, req CallRequest) (CallResult, error) {
	var res CallResult
	if err := r.call(ctx, MethodDecide, req, &res); err != nil {
		return CallResult{}, err
	}
	// The trace's decision is not part of its JSON: it is the first call's.
	if res.Trace != nil && len(res.Decisions) > 0 {
		res.Trace.Decision = res.Decisions[0]
	}
	return res, nil
}

// DecideOutput reads a tool's output in the daemon.
func (r *Remote) DecideOutput(ctx context.Context, req OutputRequest) (OutputResult, error) {
	var res OutputResult
	if err := r.call(ctx, MethodDecideOutput, req, &res); err != nil {
		return OutputResult{}, err
	}
	return res, nil
}

// DecidePrompt reads a prompt in the daemon.
func (r *Remote) DecidePrompt(ctx context.Context, req PromptRequest) (Outcome, error) {
	var res Outcome
	if err := r.call(ctx, MethodDecidePrompt, req, &res); err != nil {
		return Outcome{}, err
	}
	return res, nil
}

// Record records a decision made outside Decide, in the daemon.
func (r *Remote) Record(ctx context.Context, req RecordRequest) error {
	return r.call(ctx, MethodRecord, req, nil)
}

// RecordFailure records a decision that could not be made, in the daemon.
func (r *Remote) RecordFailure(ctx context.Context, f Failure) error {
	return r.call(ctx, MethodRecordFailure, f, nil)
}

// call sends one request and decodes its result into result (nil: none expected). A kept
// connection the daemon closed meanwhile (a restart) is retried once on a new one, but
// only when nothing of an answer came: the daemon reads a request only on an open
// connection, so the request was not served.
func (r *Remote) call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("daemon request %s: %w", method, err)
	}
	line, err := json.Marshal(WireRequest{Version: WireVersion, Method: method, Params: p})
	if err != nil {
		return fmt.Errorf("daemon request %s: %w", method, err)
	}
	line = append(line, '\n')
	var resp []byte
	for attempt := 0; ; attempt++ {
		c, kept, err := r.conn(ctx, attempt > 0)
		if err != nil {
			return fmt.Errorf("daemon request %s: connecting: %w", method, err)
		}
		var unanswered bool
		resp, unanswered, err = c.roundTrip(ctx, line)
		if err == nil {
			r.put(c)
			break
		}
		c.conn.Close()
		if kept && unanswered && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return fmt.Errorf("daemon request %s: %w", method, err)
	}
	var wr WireResponse
	dec := json.NewDecoder(bytes.NewReader(resp))
	dec.UseNumber()
	if err := dec.Decode(&wr); err != nil {
		return fmt.Errorf("daemon request %s: malformed answer: %w", method, err)
	}
	if wr.Error != "" {
		return &remoteError{msg: wr.Error, code: wr.Code}
	}
	if wr.Result == nil {
		return fmt.Errorf("daemon request %s: an answer with neither result nor error", method)
	}
	if result == nil {
		return nil
	}
	dec = json.NewDecoder(bytes.NewReader(wr.Result))
	// Numbers in call arguments keep their text, as the hook adapters decode them.
	dec.UseNumber()
	if err := dec.Decode(result); err != nil {
		return fmt.Errorf("daemon request %s: malformed result: %w", method, err)
	}
	return nil
}

// conn returns a kept connection (kept true) or a new one; fresh asks for a new one.
func (r *Remote) conn(ctx context.Context, fresh bool) (c *remoteConn, kept bool, err error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, false, errors.New("the service was closed")
	}
	now := time.Now()
	for !fresh && len(r.idle) > 0 {
		c = r.idle[len(r.idle)-1]
		r.idle = r.idle[:len(r.idle)-1]
		if now.Sub(c.used) < idleFor {
			r.mu.Unlock()
			return c, true, nil
		}
		c.conn.Close()
	}
	r.mu.Unlock()
	conn, err := r.dial(ctx)
	if err != nil {
		return nil, false, err
	}
	return &remoteConn{conn: conn, r: bufio.NewReaderSize(conn, 64<<10)}, false, nil
}

// put keeps c for the next request, or closes it.
func (r *Remote) put(c *remoteConn) {
	c.used = time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || len(r.idle) >= maxIdle {
		c.conn.Close()
		return
	}
	r.idle = append(r.idle, c)
}

// roundTrip writes one request line and reads its answer, within ctx. unanswered says
// that nothing of an answer arrived before the connection ended.
func (c *remoteConn) roundTrip(ctx context.Context, line []byte) (resp []byte, unanswered bool, err error) {
	deadline, _ := ctx.Deadline()
	if err := c.conn.SetDeadline(deadline); err != nil {
		return nil, false, err
	}
	// A cancelled context ends the wait at once.
	stop := context.AfterFunc(ctx, func() { c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if _, err := c.conn.Write(line); err != nil {
		return nil, true, ctxErr(ctx, err)
	}
	var buf []byte
	for {
		chunk, err := c.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxResponse {
			return nil, false, fmt.Errorf("answer longer than %d bytes", maxResponse)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, len(buf) == 0, fmt.Errorf("the daemon closed the connection: %w", io.ErrUnexpectedEOF)
			}
			return nil, false, ctxErr(ctx, err)
		}
		return buf, false, nil
	}
}

// ctxErr is the context's error when it ended the wait, err otherwise.
func ctxErr(ctx context.Context, err error) error {
	if ce := ctx.Err(); ce != nil {
		return fmt.Errorf("%w (%v)", ce, err)
	}
	return err
}
