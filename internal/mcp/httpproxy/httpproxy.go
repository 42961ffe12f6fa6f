// Package httpproxy is moat's MCP proxy for the Streamable HTTP transport: an
// http.Handler in front of an MCP server's URL that decides each client message with an
// *mcp.Proxy, as the stdio proxy does, and relays the rest both ways, streams included.
package httpproxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// Options configure a proxy handler.
type Options struct {
	// Upstream is the MCP server's endpoint (http or https).
	Upstream *url.URL
	// Proxy decides the client's messages and reads the server's. All clients share it:
	// a tool it hides from one is refused to all. Each session, or each exchange without
	// one, is an mcp.Conn of its own, so that ids pass unchanged although every client
	// counts them from 1. Requests are handled concurrently, so its Decide, Record and
	// Log must be safe for concurrent use.
	Proxy *mcp.Proxy
	// Token must be presented by every client as "Authorization: Bearer Token"; it is
	// required (NewToken makes one), at least MinTokenLen characters of RFC 6750's
	// b64token. Whoever reaches the proxy calls the server with the credentials of
	// Header, and loopback is shared by every user of the machine. The token is moat's
	// own: the client's Authorization header is never sent upstream.
	Token string
	// Header is added to every upstream request (credentials configured for the server).
	Header http.Header
	// Client sends the upstream requests; nil means a client without a timeout, since
	// streams last as long as the client keeps them.
	Client *http.Client
	// MaxBody bounds a client's body and every message from the server; 0 means
	// jsonrpc.MaxFrame.
	MaxBody int
	// AllowRemote accepts requests whose Host is not a loopback name. Without it, a
	// request for another host is refused, which defeats DNS rebinding: a web page whose
	// name was pointed at 127.0.0.1 sends its own name as Host. It does not make the
	// token optional.
	AllowRemote bool
	// MaxInFlight bounds the POST and DELETE requests handled at once, and apart the GET
	// streams open at once (a legacy session keeps one open for its life); 0 means
	// DefaultMaxInFlight. A request beyond it waits up to a second for a slot, then is
	// answered 503 with Retry-After and a JSON-RPC error: never a hang, and never an
	// unbounded number of goroutines, connections and buffers.
	MaxInFlight int
	// ReturnMemory gives the memory a burst of requests took back to the system once
	// the proxy has been idle for a moment (a forced GC and scavenge, once per burst).
	// It acts on the whole process: set it where the proxy is the process's job.
	ReturnMemory bool
}

type handler struct {
	o        Options
	upstream string
	client   *http.Client
	max      int
	sessions sessions
	params   paramHeaders
	requests *limiter // POST and DELETE
	streams  *limiter // GET
	memory   *memoryReturner
}

// exchange is what relaying one client request needs to know of it.
type exchange struct {
	reqID   json.RawMessage // of a single request, to answer a failed relay with
	session string          // Mcp-Session-Id
	conn    *mcp.Conn       // the client's requests that wait for answers
}

// New returns the proxy handler for o.
func New(o Options) (http.Handler, error) {
	if o.Upstream == nil || (o.Upstream.Scheme != "http" && o.Upstream.Scheme != "https") || o.Upstream.Host == "" {
		return nil, errors.New("httpproxy: the upstream must be an http or https URL")
	}
	if o.Proxy == nil || o.Proxy.Decide == nil {
		return nil, errors.New("httpproxy: a Proxy with a Decide function is required")
	}
	if err := checkToken(o.Token); err != nil {
		return nil, fmt.Errorf("httpproxy: clients must authenticate: %w", err)
	}
	if o.MaxInFlight < 0 {
		return nil, fmt.Errorf("httpproxy: MaxInFlight is %d", o.MaxInFlight)
	}
	if o.Proxy.Log == nil {
		return nil, errors.New("httpproxy: the Proxy needs a Log")
	}
	n := o.MaxInFlight
	if n == 0 {
		n = DefaultMaxInFlight
	}
	h := &handler{o: o, upstream: o.Upstream.String(), client: o.Client, max: o.MaxBody, requests: newLimiter(n), streams: newLimiter(n)}
	if o.ReturnMemory {
		h.memory = newMemoryReturner(h.requests)
	}
	if h.client == nil {
		h.client = &http.Client{}
	}
	if h.max <= 0 {
		h.max = jsonrpc.MaxFrame
	}
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.o.AllowRemote && !loopbackHost(r.Host) {
		http.Error(w, "Forbidden: the Host is not a loopback name", http.StatusForbidden)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
		http.Error(w, "Forbidden: invalid Origin", http.StatusForbidden)
		return
	}
	// Before anything else is spent on it: a client without the token takes no slot.
	if !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="moat"`)
		writeError(w, http.StatusUnauthorized, nil, jsonrpc.InvalidRequest, "moat: this MCP proxy needs its token: send \"Authorization: Bearer TOKEN\" (the token moat printed when it started, or $MOAT_MCP_TOKEN)")
		return
	}
	lim := h.requests
	switch r.Method {
	case http.MethodPost, http.MethodDelete:
	case http.MethodGet:
		lim = h.streams
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	// The slot is taken before the body is read, so that requests waiting for one hold
	// no body in memory.
	if !lim.acquire(r.Context()) {
		if r.Context().Err() != nil {
			return // the client left while it waited
		}
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("Connection", "close") // a flood's connections are not kept either
		writeError(w, http.StatusServiceUnavailable, nil, jsonrpc.InternalError, "moat: the MCP proxy is busy (too many requests at once); retry shortly")
		return
	}
	if h.memory != nil && lim == h.requests {
		h.memory.started()
		defer func() {
			lim.release()
			h.memory.ended() // after release: the last request of a burst finds no slot taken
		}()
	} else {
		defer lim.release()
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	default:
		session := r.Header.Get("Mcp-Session-Id")
		h.relay(w, r, nil, exchange{session: session, conn: h.sessions.conn(session)})
	}
}

// post decides the message a client POSTed, then answers it in the server's place or
// relays it.
func (h *handler) post(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > int64(h.max) {
		writeError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.InvalidRequest, fmt.Sprintf("moat: the message is larger than %d bytes", h.max))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(h.max)+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, nil, jsonrpc.ParseError, "moat: reading the message: "+err.Error())
		return
	}
	if len(body) > h.max {
		writeError(w, http.StatusRequestEntityTooLarge, nil, jsonrpc.InvalidRequest, fmt.Sprintf("moat: the message is larger than %d bytes", h.max))
		return
	}
	body = oneLine(body)
	x := exchange{session: r.Header.Get("Mcp-Session-Id")}
	x.conn = h.sessions.conn(x.session)
	f, parseErr := jsonrpc.Parse(body)
	if parseErr == nil {
		if !f.Batch && f.Messages[0].Kind == jsonrpc.Request {
			x.reqID = slices.Clone(f.Messages[0].ID)
		}
		if msg := headerMismatch(r.Header, f); msg != "" {
			fmt.Fprintf(h.o.Proxy.Log, "moat: refused a message whose headers disagree with it: %s\n", msg)
			writeError(w, http.StatusBadRequest, x.reqID, codeHeaderMismatch, "moat: header mismatch: "+msg)
			return
		}
		if m := f.Messages[0]; !f.Batch && m.Kind == jsonrpc.Request && m.Method == mcp.MethodToolsCall {
			if name, ok := bodyName(m.Method, m.Params); ok {
				if msg := h.params.mismatch(r.Header, name, m.Params); msg != "" {
					fmt.Fprintf(h.o.Proxy.Log, "moat: refused a message whose headers disagree with it: %s\n", msg)
					writeError(w, http.StatusBadRequest, x.reqID, codeHeaderMismatch, "moat: header mismatch: "+msg)
					return
				}
			}
		}
	}
	relay, answers := h.o.Proxy.FromClientOn(r.Context(), x.conn, h.sender(r, x), body)
	if relay == nil {
		status := http.StatusOK
		if parseErr != nil || !hasRequest(f) {
			// Nobody waits for a result: the error says why the message went nowhere.
			status = http.StatusBadRequest
		}
		writeJSON(w, status, joinAnswers(answers))
		return
	}
	h.relay(w, r, relay, x, answers...)
}

// relay sends the client's request upstream (body nil for GET and DELETE) and the
// server's response back. refused holds moat's answers to the elements of a batch it did
// not relay; they go to the client with the server's.
func (h *handler) relay(w http.ResponseWriter, r *http.Request, body []byte, x exchange, refused ...[]byte) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	// The client's context: when it goes away, so does the upstream request, which in
	// the 2026-07-28 revision is how a request is cancelled.
	up, err := http.NewRequestWithContext(r.Context(), r.Method, h.upstream, rd)
	if err != nil {
		h.fail(w, http.StatusBadGateway, x, "moat: "+err.Error())
		return
	}
	copyRequestHeaders(up.Header, r.Header)
	for k, vs := range h.o.Header {
		up.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	resp, err := h.client.Do(up)
	if err != nil {
		if r.Context().Err() != nil {
			return // the client left; there is nobody to answer
		}
		fmt.Fprintf(h.o.Proxy.Log, "moat: the MCP server did not answer: %v\n", err)
		h.fail(w, http.StatusBadGateway, x, "moat: the MCP server did not answer: "+err.Error())
		return
	}
	defer resp.Body.Close()
	if r.Method == http.MethodDelete && resp.StatusCode/100 == 2 {
		h.sessions.end(x.session)
	}
	copyResponseHeaders(w.Header(), resp.Header)
	ct := mediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode/100 == 2
	switch {
	case resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent:
		w.Header().Del("Content-Length")
		if len(refused) > 0 {
			// The relayed elements of a batch were all notifications or responses: the
			// refused ones still need their answers.
			writeJSON(w, http.StatusOK, joinAnswers(refused))
			return
		}
		w.WriteHeader(resp.StatusCode)
	case ok && ct == "text/event-stream":
		h.stream(w, resp, x, refused)
	case ok:
		// Any other success is read as JSON whatever its media type says, so that a
		// body some client would parse anyway is not relayed unread.
		h.relayJSON(w, resp, x, refused)
	case ct == "application/json":
		// An error status with a JSON-RPC error: the client matches it to its request by
		// id (the SDKs fall back to the legacy protocol on some), so it gets its id back.
		w.Header().Del("Content-Length")
		b, _ := io.ReadAll(io.LimitReader(resp.Body, int64(h.max)))
		out := oneLine(b)
		relay, answers := h.o.Proxy.FromServerOn(x.conn, out)
		if relay == nil && len(answers) > 0 {
			relay = answers[0]
		}
		if relay == nil {
			// Nothing the client asked for: it still waits for its answer.
			h.fail(w, http.StatusBadGateway, x, fmt.Sprintf("moat: refused the server's answer (HTTP %d)", resp.StatusCode))
			return
		}
		w.WriteHeader(resp.StatusCode)
		w.Write(relay)
	default:
		// Other errors pass as they are: an error's body is not a result the model reads
		// as a tool's output.
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, io.LimitReader(resp.Body, int64(h.max)))
	}
}

// relayJSON relays a server's JSON response through the Proxy.
func (h *handler) relayJSON(w http.ResponseWriter, resp *http.Response, x exchange, refused [][]byte) {
	reqID := x.reqID
	w.Header().Del("Content-Length")
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(h.max)+1))
	if err != nil || len(b) > h.max {
		msg := fmt.Sprintf("moat: the server's answer is larger than %d bytes", h.max)
		if err != nil {
			msg = "moat: reading the server's answer: " + err.Error()
		}
		fmt.Fprintf(h.o.Proxy.Log, "%s\n", msg)
		h.fail(w, http.StatusBadGateway, x, msg)
		return
	}
	if len(bytes.TrimSpace(b)) == 0 && len(refused) == 0 {
		// Nothing to read (a DELETE's 200, say).
		w.WriteHeader(resp.StatusCode)
		return
	}
	relay, answers := h.o.Proxy.FromServerOn(x.conn, oneLine(b))
	var out [][]byte
	for _, m := range append([][]byte{relay}, answers...) {
		if m != nil {
			h.params.learn(m)
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		// The server's answer was refused and named no request moat could answer: the
		// client still waits for one.
		if reqID == nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		h.fail(w, http.StatusBadGateway, x, "moat: refused the server's answer")
		return
	}
	writeJSON(w, resp.StatusCode, joinAnswers(append(out, refused...)))
}

// oneLine returns a body as the single line jsonrpc.Parse reads. HTTP bodies may be
// pretty-printed or end in a newline, which is whitespace to JSON; compacting removes
// only that, so the message moat judges is the one it relays. A body that is not JSON
// is left for Parse to refuse.
func oneLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if bytes.IndexAny(b, "\r\n") < 0 {
		return b
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

func hasRequest(f jsonrpc.Frame) bool {
	for _, m := range f.Messages {
		if m.Kind == jsonrpc.Request {
			return true
		}
	}
	return false
}

// joinAnswers makes one JSON body of several answers: each is a message or a batch
// array, and a client that sent a batch reads one array.
func joinAnswers(answers [][]byte) []byte {
	var items [][]byte
	for _, a := range answers {
		if a == nil {
			continue
		}
		items = append(items, a)
	}
	if len(items) == 1 {
		return items[0]
	}
	var b bytes.Buffer
	b.WriteByte('[')
	n := 0
	for _, a := range items {
		a = bytes.TrimSpace(a)
		if len(a) > 0 && a[0] == '[' {
			a = bytes.TrimSpace(a[1 : len(a)-1])
		}
		if len(a) == 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(a)
		n++
	}
	b.WriteByte(']')
	return b.Bytes()
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// fail answers the exchange's request in the server's place with a JSON-RPC error, and
// tells the Proxy, so that its id no longer waits for an answer in the session.
func (h *handler) fail(w http.ResponseWriter, status int, x exchange, msg string) {
	if x.reqID != nil {
		if b, err := jsonrpc.ErrorMessage(x.reqID, jsonrpc.InternalError, msg, nil); err == nil {
			h.o.Proxy.FromServerOn(x.conn, b)
		}
	}
	writeError(w, status, x.reqID, jsonrpc.InternalError, msg)
}

// writeError answers with a JSON-RPC error, so that SDK clients, which read the body of
// a failed POST, report moat's reason rather than a bare status.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	b, err := jsonrpc.ErrorMessage(id, code, msg, nil)
	if err != nil {
		b, _ = jsonrpc.ErrorMessage(nil, jsonrpc.InternalError, "moat: "+err.Error(), nil)
	}
	writeJSON(w, status, b)
}

// mediaType is a Content-Type without its parameters, in lower case.
func mediaType(ct string) string {
	ct, _, _ = strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(ct))
}

// requestHeaders are the client's headers the server needs; others (cookies, moat's
// token, hop-by-hop headers) stay with moat.
var requestHeaders = []string{"Accept", "Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id"}

func copyRequestHeaders(dst, src http.Header) {
	for _, k := range requestHeaders {
		if vs, ok := src[k]; ok {
			dst[k] = append([]string(nil), vs...)
		}
	}
	for k, vs := range src {
		if strings.HasPrefix(k, "Mcp-Param-") {
			dst[k] = append([]string(nil), vs...)
		}
	}
}

// responseHeaders are the server's headers the client needs: the session, the media
// type, and what a client must know to authenticate or retry.
var responseHeaders = []string{"Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Www-Authenticate", "Retry-After", "Allow", "Cache-Control"}

func copyResponseHeaders(dst, src http.Header) {
	for _, k := range responseHeaders {
		if vs, ok := src[k]; ok {
			dst[k] = append([]string(nil), vs...)
		}
	}
}
