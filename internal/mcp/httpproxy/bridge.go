package httpproxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/scan"
)

// BridgeOptions configure a bridge: moat as a stdio MCP server to its client, and as the
// client of a Streamable HTTP server. It lets an agent's config run a remote server the
// way it runs a local one, through `moat mcp proxy --stdio`, with no long-running proxy
// to keep up.
type BridgeOptions struct {
	// Upstream is the server's endpoint (http or https).
	Upstream *url.URL
	// Header is sent with every request: the credentials configured for the server.
	Header http.Header
	// Proxy decides the client's messages and reads the server's, as for stdio.
	Proxy *mcp.Proxy
	// Client sends the requests; nil means a client without a timeout, since a stream
	// lasts as long as its call.
	Client *http.Client
	// MaxFrame bounds one message in either direction; 0 means jsonrpc.MaxFrame.
	MaxFrame int
}

// bridge is one client's connection to the server.
type bridge struct {
	o      BridgeOptions
	client *http.Client
	max    int
	out    *lineWriter
	params paramHeaders
	// conn holds the client's requests that wait for answers, and moat's own.
	conn *mcp.Conn

	mu       sync.Mutex
	session  string // Mcp-Session-Id, from the initialize result (legacy revisions)
	version  string // the protocol version initialize agreed on (legacy revisions)
	listened bool   // the GET stream was opened
	// inflight cancels the requests of the 2026-07-28 revision by id: over HTTP,
	// closing a request's stream is how it is cancelled.
	inflight  map[string]context.CancelFunc
	wg        sync.WaitGroup // the requests in flight
	listening sync.WaitGroup // the GET stream
}

// Bridge relays between a client on in and out (newline-delimited JSON-RPC) and the
// Streamable HTTP server, until in ends or ctx is done. Every message of the client is
// decided by the Proxy before it is sent, and every message of the server read by it
// before the client sees it. A request the server does not answer (an HTTP error, a
// stream that ends early, a server that cannot be reached) is answered with a JSON-RPC
// error, so that the client never waits forever; nothing is passed on unread.
func Bridge(ctx context.Context, o BridgeOptions, in io.Reader, out io.Writer) error {
	if o.Upstream == nil || (o.Upstream.Scheme != "http" && o.Upstream.Scheme != "https") || o.Upstream.Host == "" {
		return errors.New("httpproxy: the upstream must be an http or https URL")
	}
	if o.Proxy == nil || o.Proxy.Decide == nil || o.Proxy.Log == nil {
		return errors.New("httpproxy: a Proxy with Decide and Log is required")
	}
	b := &bridge{o: o, client: o.Client, max: o.MaxFrame, out: &lineWriter{w: out}, conn: &mcp.Conn{}, inflight: map[string]context.CancelFunc{}}
	if b.client == nil {
		b.client = &http.Client{}
	}
	if b.max <= 0 {
		b.max = jsonrpc.MaxFrame
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The client's input is read in a goroutine of its own, so that a signal (ctx) ends
	// the bridge even while the client is silent.
	type read struct {
		frame []byte
		err   error
	}
	frames := make(chan read)
	go func() {
		r := jsonrpc.NewReader(in, b.max)
		for {
			frame, err := r.Next()
			frame = bytes.Clone(frame) // the Reader reuses its buffer
			select {
			case frames <- read{frame, err}:
			case <-ctx.Done():
				return
			}
			if err != nil && !isFrameError(err) {
				return
			}
		}
	}()
	var readErr error
loop:
	for {
		var rd read
		select {
		case <-ctx.Done():
			break loop
		case rd = <-frames:
		}
		if rd.err != nil && !isFrameError(rd.err) {
			if !errors.Is(rd.err, io.EOF) {
				readErr = fmt.Errorf("reading from the client: %w", rd.err)
			}
			break
		}
		var relay []byte
		var answers [][]byte
		if rd.err != nil {
			answers = o.Proxy.RefuseClientFrame(rd.err)
		} else {
			// A call that waits for its tool to be vetted (moat's own tools/list, sent
			// as any request is) holds the frames that follow it.
			relay, answers = o.Proxy.FromClientOn(ctx, b.conn, b.sendOwn, rd.frame)
		}
		if b.out.write(answers...) != nil {
			break
		}
		if relay != nil {
			b.send(ctx, relay)
		}
	}
	if ctx.Err() == nil {
		// The client closed its input, as a stdio server's stdin closes at shutdown or
		// after a piped request: what it already asked is still answered, for a while,
		// as a stdio server would answer it before exiting.
		done := make(chan struct{})
		go func() { b.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(drainGrace):
			fmt.Fprintf(o.Proxy.Log, "moat: the client closed its input; giving up on the requests still waiting after %v\n", drainGrace)
		}
	}
	cancel()
	b.wg.Wait()
	b.listening.Wait()
	b.endSession()
	return readErr
}

// drainGrace is how long requests in flight may still be answered once the client has
// closed its input.
const drainGrace = 5 * time.Second

func isFrameError(err error) bool {
	var fe *jsonrpc.FrameError
	return errors.As(err, &fe)
}

// outgoing is what the bridge needs to know of a message it sends.
type outgoing struct {
	body    []byte
	single  *jsonrpc.Message // nil for a batch
	request bool             // it holds a request, so someone waits for an answer
	modern  bool             // a request of the 2026-07-28 revision
}

// send POSTs a message the Proxy let through. A message holding a request is sent in
// its own goroutine, since its answer may stream for as long as the tool runs; one
// without (a notification, a response to the server) is sent before the next message is
// read, so that the server sees notifications/initialized before what follows it.
func (b *bridge) send(ctx context.Context, body []byte) {
	f, err := jsonrpc.Parse(body)
	if err != nil {
		// The Proxy relays only what it read; a body it changed must still parse.
		fmt.Fprintf(b.o.Proxy.Log, "moat: internal error: a relayed message does not parse: %v\n", err)
		return
	}
	m := outgoing{body: body, request: hasRequest(f)}
	if !f.Batch {
		m.single = &f.Messages[0]
		m.modern = jsonrpc.ProtocolVersion(m.single.Params) >= modernVersion
		if b.cancelModern(m.single) {
			return
		}
	}
	if !m.request {
		b.post(ctx, m)
		if m.single != nil && m.single.Method == "notifications/initialized" {
			b.listen(ctx)
		}
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	if m.modern {
		b.mu.Lock()
		b.inflight[idString(m.single.ID)] = cancel
		b.mu.Unlock()
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer cancel()
		b.post(rctx, m)
		if m.modern {
			b.mu.Lock()
			delete(b.inflight, idString(m.single.ID))
			b.mu.Unlock()
		}
	}()
}

// sendOwn sends a request of moat's own as the client's are sent; its answer comes back
// through relayServer to the Proxy, which keeps it from the client.
func (b *bridge) sendOwn(ctx context.Context, request []byte) error {
	b.send(ctx, request)
	return nil
}

// cancelModern handles a notifications/cancelled for a request of the 2026-07-28
// revision, which over HTTP is cancelled by closing its stream: the notification itself
// is not sent. It reports whether m was such a notification.
func (b *bridge) cancelModern(m *jsonrpc.Message) bool {
	if m.Kind != jsonrpc.Notification || m.Method != "notifications/cancelled" {
		return false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.RequestID == nil {
		return false
	}
	b.mu.Lock()
	cancel, ok := b.inflight[idString(p.RequestID)]
	b.mu.Unlock()
	if ok {
		cancel()
	}
	return ok
}

// idString is the same for every spelling of an id.
func idString(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}

// post sends one message and relays what the server answers.
func (b *bridge) post(ctx context.Context, m outgoing) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.o.Upstream.String(), bytes.NewReader(m.body))
	if err != nil {
		b.fail(m, "moat: "+err.Error())
		return
	}
	b.headers(req.Header, m)
	resp, err := b.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return // cancelled, or the client left
		}
		b.fail(m, fmt.Sprintf("moat: the MCP server at %s did not answer: %v", redactURL(b.o.Upstream), err))
		return
	}
	defer resp.Body.Close()
	answered := b.relayResponse(ctx, resp, m)
	if m.request && !answered && ctx.Err() == nil {
		b.fail(m, "moat: the MCP server's response ended without an answer to the request")
	}
}

// headers sets what a Streamable HTTP client sends with a message.
func (b *bridge) headers(h http.Header, m outgoing) {
	for k, vs := range b.o.Header {
		h[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if m.modern {
		// 2026-07-28: no session; the version and the method travel as headers too,
		// agreeing with the body (the server refuses a mismatch).
		h.Set("Mcp-Protocol-Version", jsonrpc.ProtocolVersion(m.single.Params))
		h.Set("Mcp-Method", headerText(m.single.Method))
		if mcp.Decided(m.single.Method) {
			if name, ok := bodyName(m.single.Method, m.single.Params); ok {
				h.Set("Mcp-Name", headerText(name))
			}
		}
		if m.single.Method == mcp.MethodToolsCall {
			b.paramValues(h, m.single.Params)
		}
		return
	}
	b.mu.Lock()
	session, version := b.session, b.version
	b.mu.Unlock()
	if session != "" {
		h.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		h.Set("Mcp-Protocol-Version", version)
	}
}

// paramValues mirrors the arguments a tool asked for (x-mcp-header) as Mcp-Param-*
// headers.
func (b *bridge) paramValues(h http.Header, params json.RawMessage) {
	tool, ok := bodyName(mcp.MethodToolsCall, params)
	if !ok {
		return
	}
	b.params.mu.Lock()
	bs := b.params.tools[tool]
	b.params.mu.Unlock()
	if len(bs) == 0 {
		return
	}
	var body struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &body) != nil {
		return
	}
	for _, bd := range bs {
		arg, ok := lookup(body.Arguments, bd.path)
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(arg, &v) != nil {
			continue
		}
		switch v := v.(type) {
		case string:
			h.Set(bd.header, headerText(v))
		case bool, float64:
			h.Set(bd.header, strings.TrimSpace(string(arg)))
		}
	}
}

// headerText is a header value as MCP writes it: plain printable ASCII as it is, any
// other text as =?base64?…?=.
func headerText(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
		}
	}
	return s
}

// relayResponse reads the server's answer to a POST (or the GET stream) and relays its
// messages through the Proxy. It reports whether the request m carried was answered.
func (b *bridge) relayResponse(ctx context.Context, resp *http.Response, m outgoing) bool {
	ct := mediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode/100 == 2
	if ok && m.single != nil && m.single.Method == "initialize" {
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			b.mu.Lock()
			b.session = s
			b.mu.Unlock()
		}
	}
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		return false
	case ok && ct == "text/event-stream":
		return b.readStream(ctx, resp.Body, m)
	case ok || ct == "application/json":
		// A JSON-RPC error may come with an error status (the SDKs answer a modern
		// request to a legacy server so, and the client then falls back): it is read
		// and relayed like any message.
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(b.max)+1))
		if err != nil || len(body) > b.max {
			if err == nil {
				err = fmt.Errorf("larger than %d bytes", b.max)
			}
			fmt.Fprintf(b.o.Proxy.Log, "moat: reading the MCP server's answer: %v\n", err)
			return false
		}
		if len(bytes.TrimSpace(body)) == 0 {
			if !ok {
				b.fail(m, b.statusText(resp, nil))
				return true
			}
			return false
		}
		return b.relayServer(oneLine(body), m)
	default:
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		b.fail(m, b.statusText(resp, snippet))
		return true
	}
}

// statusText says why an HTTP error left a request unanswered, and what the user can do.
func (b *bridge) statusText(resp *http.Response, body []byte) string {
	s := fmt.Sprintf("moat: the MCP server at %s answered HTTP %d", redactURL(b.o.Upstream), resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		s += "; it needs credentials moat was not given: put a token in the server's headers in the agent's config (moat's bridge cannot run an interactive OAuth login), or unwrap the server with 'moat mcp unwrap'"
	case http.StatusNotFound:
		b.mu.Lock()
		expired := b.session != ""
		b.session = ""
		b.mu.Unlock()
		if expired {
			s += "; its session expired: restart the MCP server in the agent"
		}
	}
	if t := strings.TrimSpace(string(body)); t != "" && utf8Printable(t) {
		s += ": " + shorten([]byte(t))
	}
	return s
}

func utf8Printable(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' {
			return false
		}
	}
	return true
}

// readStream relays a server's event stream one event at a time, as soon as each is
// read. It reports whether the request m carried was answered.
func (b *bridge) readStream(ctx context.Context, body io.Reader, m outgoing) bool {
	answered := false
	err := readEvents(ctx, body, b.max, func(msg []byte) {
		if b.relayServer(msg, m) {
			answered = true
		}
	})
	if errors.Is(err, errTooLong) {
		fmt.Fprintf(b.o.Proxy.Log, "moat: an event from the MCP server is larger than %d bytes; closing the stream\n", b.max)
	}
	return answered
}

// relayServer passes one message of the server through the Proxy to the client. It
// reports whether the message answered the request m carried.
func (b *bridge) relayServer(msg []byte, m outgoing) bool {
	// The server's message answers m's request even when moat keeps it from the client:
	// the answer to a request of moat's own is the Proxy's alone.
	answered := m.single != nil && m.request && answersID(msg, m.single.ID)
	relay, answers := b.o.Proxy.FromServerOn(b.conn, msg)
	for _, out := range append([][]byte{relay}, answers...) {
		if out == nil {
			continue
		}
		b.params.learn(out)
		if m.single != nil && m.request && answersID(out, m.single.ID) {
			answered = true
			b.learnVersion(out, m)
		}
	}
	b.out.write(append([][]byte{relay}, answers...)...)
	return answered
}

// answersID reports whether msg is a response (or a batch holding one) to the request id.
func answersID(msg []byte, id json.RawMessage) bool {
	f, err := jsonrpc.Parse(msg)
	if err != nil {
		return false
	}
	for _, r := range f.Messages {
		if r.Kind == jsonrpc.Response && idString(r.ID) == idString(id) {
			return true
		}
	}
	return false
}

// learnVersion keeps the protocol version an initialize result agreed on, which the
// legacy revisions send as a header with every later request.
func (b *bridge) learnVersion(msg []byte, m outgoing) {
	if m.single.Method != "initialize" {
		return
	}
	f, err := jsonrpc.Parse(msg)
	if err != nil || f.Batch || f.Messages[0].Result == nil {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(f.Messages[0].Result, &r) == nil && r.ProtocolVersion != "" {
		b.mu.Lock()
		b.version = r.ProtocolVersion
		b.mu.Unlock()
	}
}

// fail answers the request m carried with a JSON-RPC error, and notes why on stderr.
func (b *bridge) fail(m outgoing, msg string) {
	msg = scan.Redact(msg)
	fmt.Fprintf(b.o.Proxy.Log, "%s\n", msg)
	if m.single == nil || !m.request {
		return
	}
	out, err := jsonrpc.ErrorMessage(m.single.ID, jsonrpc.InternalError, msg, nil)
	if err != nil {
		return
	}
	// The Proxy forgets the request as answered, as it would the server's error, and
	// keeps the answer to a request of its own.
	relay, _ := b.o.Proxy.FromServerOn(b.conn, out)
	b.out.write(relay)
}

// listen opens the legacy revisions' GET stream, on which the server sends requests and
// notifications of its own. A server without one answers 405, and that is the end of it.
func (b *bridge) listen(ctx context.Context) {
	b.mu.Lock()
	if b.listened {
		b.mu.Unlock()
		return
	}
	b.listened = true
	b.mu.Unlock()
	b.listening.Add(1)
	go func() {
		defer b.listening.Done()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.o.Upstream.String(), nil)
		if err != nil {
			return
		}
		b.headers(req.Header, outgoing{})
		req.Header.Set("Accept", "text/event-stream")
		resp, err := b.client.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 || mediaType(resp.Header.Get("Content-Type")) != "text/event-stream" {
			return
		}
		b.readStream(ctx, resp.Body, outgoing{})
	}()
}

// endSession ends a legacy session with DELETE, as a client that is done should.
func (b *bridge) endSession() {
	b.mu.Lock()
	session := b.session
	b.mu.Unlock()
	if session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, b.o.Upstream.String(), nil)
	if err != nil {
		return
	}
	b.headers(req.Header, outgoing{})
	if resp, err := b.client.Do(req); err == nil {
		resp.Body.Close()
	}
}

// redactURL is the upstream as moat prints it: without credentials in the user info or
// the query.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	c.RawQuery = ""
	c.Fragment = ""
	return c.String()
}

// lineWriter writes whole messages, one line each, so that concurrent streams never
// interleave.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lineWriter) write(msgs ...[]byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range msgs {
		if m == nil {
			continue
		}
		l.buf = append(append(l.buf[:0], m...), '\n')
		if _, err := l.w.Write(l.buf); err != nil {
			return err
		}
	}
	return nil
}
