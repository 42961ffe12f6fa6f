package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/scan"
)

// A tool is vetted before any call to it is relayed: its definition must have been read
// in a tools/list result (the client's, or one moat asks for itself) and found clean, in
// the scope the server lists tools for. Without this, a client that calls a tool without
// listing first, or sends its call right behind its tools/list, would reach a poisoned
// tool that the list would have hidden.

// Sender sends a request of moat's own to the server, on the way the client's requests
// take. Its response must come back through FromServerOn with the Conn the request was
// made for (FromServer for the Proxy's own connection), where moat takes it and the
// client never sees it. A transport whose exchange carries the answer (HTTP) reads it
// before returning; one that streams (stdio) returns once the request is written.
type Sender func(ctx context.Context, request []byte) error

// DefaultVetTimeout is how long moat waits for the server to list its tools before it
// refuses the call that needed them.
const DefaultVetTimeout = 10 * time.Second

// MethodListChanged is the server's notification that its tools changed: what was vetted
// is forgotten, and the next call of each tool is vetted again.
const MethodListChanged = "notifications/tools/list_changed"

// Tools holds the names of the tools a server listed in one scope: a stdio connection, a
// legacy HTTP session, or the 2026-07-28 revision's exchanges, which share one scope.
// The zero value is ready to use and holds nothing.
type Tools struct {
	mu    sync.Mutex
	known map[string]bool
	// epoch counts the server's list_changed notifications: a listing asked for before
	// one is not kept after it.
	epoch uint64
}

func (t *Tools) has(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.known[name]
}

func (t *Tools) current() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.epoch
}

// add keeps names listed by a listing asked for at epoch, unless the server said since
// that its tools changed.
func (t *Tools) add(epoch uint64, names []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if epoch != t.epoch {
		return
	}
	if t.known == nil {
		t.known = map[string]bool{}
	}
	for _, n := range names {
		t.known[n] = true
	}
}

// invalidate forgets every tool: the server said its tools changed.
func (t *Tools) invalidate() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.epoch++
	t.known = nil
}

// vetCall returns why the call c of the request m must be refused because its tool is
// not vetted: hidden, unknown to the server, or not listable. An empty reason lets the
// call go on to the policy. It lists the server's tools itself when the tool was not
// seen in a listing of this scope.
func (p *Proxy) vetCall(ctx context.Context, conn *Conn, send Sender, m jsonrpc.Message, c call.Call) string {
	tool := c.MCP.Tool
	if reason, hidden := p.hiddenTool(tool); hidden {
		return reason
	}
	tools := conn.tools()
	if tools.has(tool) {
		return ""
	}
	epoch := tools.current()
	listed, err := p.listTools(ctx, conn, send, m.Params)
	if err != nil {
		return scan.Redact(fmt.Sprintf("moat could not list the tools of the MCP server %s to vet %s before relaying a call to it, so the call is refused: %v", p.Server, tool, err))
	}
	p.inspectTools(conn, listed)
	names := make([]string, len(listed))
	for i, t := range listed {
		names[i] = t.Name
	}
	tools.add(epoch, names)
	if reason, hidden := p.hiddenTool(tool); hidden {
		return reason
	}
	for _, n := range names {
		if n == tool {
			return ""
		}
	}
	return scan.Redact(fmt.Sprintf("the MCP server %s lists no tool named %s, so moat cannot vet it and refuses its calls", p.Server, tool))
}

// listTools asks the server for all of its tools, page by page, with requests of moat's
// own whose ids are reserved in conn, so that no request of the client can use them and
// their responses never reach the client. clientParams are the params of the client's
// request that needed the list: a 2026-07-28 request carries the protocol's _meta (its
// version, the client's capabilities), which each of moat's requests repeats, since that
// revision has no session to remember it.
func (p *Proxy) listTools(ctx context.Context, conn *Conn, send Sender, clientParams json.RawMessage) ([]toolscan.Tool, error) {
	if send == nil {
		return nil, errors.New("this connection has no way to send moat's own requests to the server")
	}
	timeout := p.VetTimeout
	if timeout <= 0 {
		timeout = DefaultVetTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	meta := protocolMeta(clientParams)
	var tools []toolscan.Tool
	cursor := ""
	for range maxListPages {
		params := map[string]any{}
		if meta != nil {
			params["_meta"] = meta
		}
		if cursor != "" {
			params["cursor"] = cursor
		}
		res, err := p.ownRequest(ctx, conn, send, MethodToolsList, params)
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("the server did not answer moat's tools/list within %v", timeout)
		}
		if err != nil {
			return nil, err
		}
		page, err := toolscan.ParseList(res)
		if err != nil {
			return nil, err
		}
		tools = append(tools, page...)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		json.Unmarshal(res, &next)
		if next.NextCursor == "" {
			return tools, nil
		}
		cursor = next.NextCursor
	}
	return nil, fmt.Errorf("the server listed more than %d pages of tools", maxListPages)
}

// protocolMeta returns the protocol's own members of a 2026-07-28 request's _meta (those
// under io.modelcontextprotocol/), or nil for a request of an earlier revision. Other
// members, such as a progressToken, belong to the client's request alone.
func protocolMeta(params json.RawMessage) map[string]json.RawMessage {
	if jsonrpc.ProtocolVersion(params) < modernVersion {
		return nil
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	meta := map[string]json.RawMessage{}
	for k, v := range p.Meta {
		if strings.HasPrefix(k, "io.modelcontextprotocol/") {
			meta[k] = v
		}
	}
	return meta
}

// ownRequest sends one request of moat's own and returns its result.
func (p *Proxy) ownRequest(ctx context.Context, conn *Conn, send Sender, method string, params any) (json.RawMessage, error) {
	reply := make(chan jsonrpc.Message, 1)
	id, err := conn.reserve(p.ownID, pendingRequest{method: method, reply: reply})
	if err != nil {
		return nil, err
	}
	frame, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		conn.answered(id)
		return nil, fmt.Errorf("building moat's %s: %w", method, err)
	}
	if err := send(ctx, frame); err != nil {
		conn.answered(id)
		return nil, fmt.Errorf("sending moat's %s: %w", method, err)
	}
	select {
	case m := <-reply:
		if m.Error != nil {
			return nil, fmt.Errorf("the server answered moat's %s with error %d: %s", method, m.Error.Code, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		// A late answer finds no request waiting and is dropped.
		conn.answered(id)
		return nil, ctx.Err()
	}
}

// ownID returns an id for a request of moat's own: a string no client is likely to use,
// unique within the Proxy. reserve makes sure that it is not in use.
func (p *Proxy) ownID() json.RawMessage {
	p.idOnce.Do(func() {
		b := make([]byte, 8)
		rand.Read(b) // never fails (crypto/rand)
		p.idPrefix = "moat-" + hex.EncodeToString(b) + "-"
	})
	n := p.idSeq.Add(1)
	return json.RawMessage(strconv.Quote(p.idPrefix + strconv.FormatUint(n, 10)))
}

// reserve registers a request of moat's own under a fresh id, which a request of the
// client then cannot take while it waits.
func (conn *Conn) reserve(newID func() json.RawMessage, r pendingRequest) (json.RawMessage, error) {
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.pending == nil {
		conn.pending = map[string]pendingRequest{}
	}
	if len(conn.pending) >= maxPending {
		return nil, fmt.Errorf("%d requests already wait for the server's answers", len(conn.pending))
	}
	for {
		id := newID()
		if _, taken := conn.pending[idKey(id)]; !taken {
			conn.pending[idKey(id)] = r
			return id, nil
		}
	}
}

// deliver hands the server's answer to a request of moat's own to its waiter. The
// message is copied: the transport's buffer is reused for the next frame.
func deliver(r pendingRequest, m jsonrpc.Message) {
	m.Raw = bytes.Clone(m.Raw)
	m.Result = bytes.Clone(m.Result)
	m.ID = bytes.Clone(m.ID)
	if m.Error != nil {
		e := *m.Error
		e.Data = bytes.Clone(e.Data)
		m.Error = &e
	}
	select {
	case r.reply <- m:
	default: // answered twice: the first answer stands
	}
}
