package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/mcp/toolscan"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan"
)

// Decider decides one call. The proxy's caller records the decision as well: the proxy
// only acts on it.
type Decider func(ctx context.Context, c call.Call) call.Decision

// Proxy holds what both directions of one client–server connection share.
type Proxy struct {
	// Server is the server's name in rules (mcp:SERVER/TOOL).
	Server string
	Decide Decider
	// Cwd and Project place the calls, for $workspace.
	Cwd, Project string
	// Log receives moat's own notes: refused frames and the reasons.
	Log io.Writer
	// Output says what happens to tool results that hold prompt injection or
	// credentials; the zero value warns.
	Output policy.Output
	// Record, when set, keeps the decisions moat makes itself, without the policy: about
	// calls of tools it could not vet (RecordCall), tools it hides from a listing or
	// warns of (RecordList), and tool results (RecordResult).
	Record func(kind RecordKind, c call.Call, d call.Decision)
	// Pins, when set, hold the definitions of the server's tools as first seen or last
	// accepted: a tool listed with another definition is hidden until the user accepts it.
	Pins *toolscan.Pins
	// ChangedTools says what happens to a tool whose definition differs from its pin:
	// hidden and refused (the zero value, as policy.ChangedToolBlock), or listed with
	// a warning (policy.ChangedToolWarn).
	ChangedTools policy.ChangedToolAction
	// Send, when set, sends moat's own requests to the server of FromClient's one client
	// (see Sender). Without it, a call to a tool no listing has vetted is refused.
	Send Sender
	// VetTimeout bounds how long moat waits for the server to list its tools before a
	// call that needs the list is refused; 0 means DefaultVetTimeout.
	VetTimeout time.Duration

	mu     sync.Mutex
	pinsMu sync.Mutex // Pins are not safe for concurrent use
	// conn is the one client of FromClient and FromServer.
	conn Conn
	// hidden holds the tools taken out of the server's list, with the reason: calls to
	// them are refused.
	hidden map[string]string

	// idPrefix and idSeq make the ids of moat's own requests.
	idOnce   sync.Once
	idPrefix string
	idSeq    atomic.Uint64
}

// RecordKind says what a decision the Proxy records is about.
type RecordKind string

// The kinds of decisions the Proxy records.
const (
	RecordCall   RecordKind = "call"       // a call refused before the policy was asked
	RecordList   RecordKind = "tools/list" // a tool of a listing, hidden or changed
	RecordResult RecordKind = "result"     // a tool's result
)

// Conn holds one client's requests that the server has not answered yet, by id, so that
// each response is read against its request: a tool list is inspected, a tool's result
// scanned. Ids are unique only within one client's connection: over stdio the Proxy has
// one client, whose Conn FromClient and FromServer use; over HTTP, where clients share a
// Proxy, each session (or each exchange without one) is a Conn of its own, so that ids
// pass unchanged and one client's tools/call cannot stand in for another's tools/list.
// The zero value is ready to use.
type Conn struct {
	// Tools, when set, holds the tools vetted for this client, shared with other Conns
	// of the same scope; nil means the Conn's own (one session, one scope).
	Tools *Tools

	mu      sync.Mutex
	pending map[string]pendingRequest
	own     Tools
	// client is the agent behind the client, as its clientInfo names it.
	client call.Agent
}

// tools returns the tools vetted for the client of conn.
func (conn *Conn) tools() *Tools {
	if conn.Tools != nil {
		return conn.Tools
	}
	return &conn.own
}

// maxPending bounds the requests one Conn waits for. A request beyond it is refused: a
// response whose request was forgotten could not be read against it.
const maxPending = 1 << 14

// pendingRequest is what the proxy remembers of a request until it is answered.
type pendingRequest struct {
	method string
	call   *call.Call // for a tools/call: the call, to read its result against
	modern bool
	// epoch is, for a tools/list, the Tools epoch when it was asked for.
	epoch uint64
	// reply, for a request of moat's own, receives the server's answer, which the
	// client never sees.
	reply chan<- jsonrpc.Message
}

// modernVersion is the first protocol revision whose tool results must say resultType.
const modernVersion = "2026-07-28"

// FromClient reads one frame the client sent. It returns the bytes to relay to the server
// (nil for none) and the answers moat sends the client itself, one frame each. A frame
// moat cannot read is refused, never relayed; a request the policy does not allow is
// answered in the server's place.
//
// A tools/call of a tool that no listing has vetted yet waits while moat lists the
// server's tools itself, through p.Send; the caller holds the client's later frames
// meanwhile, so that they keep their order.
func (p *Proxy) FromClient(ctx context.Context, frame []byte) (relay []byte, answers [][]byte) {
	return p.FromClientOn(ctx, &p.conn, p.Send, frame)
}

// FromClientOn is FromClient for the client whose requests conn holds; send is how moat's
// own requests reach the server on this client's way, with their answers coming back
// through FromServerOn with conn.
func (p *Proxy) FromClientOn(ctx context.Context, conn *Conn, send Sender, frame []byte) (relay []byte, answers [][]byte) {
	f, err := jsonrpc.Parse(frame)
	if err != nil {
		return nil, p.refuse(conn, "client", err)
	}
	if !f.Batch {
		a, c, drop := p.decide(ctx, conn, send, f.Messages[0])
		if drop {
			return nil, nil
		}
		if a == nil {
			a = p.track(conn, f.Messages[0], c)
		}
		if a != nil {
			return nil, [][]byte{a}
		}
		return frame, nil
	}
	// A batch (allowed before 2025-06-18) is decided element by element: what is allowed
	// goes on as a batch, and the refused elements are answered together.
	var kept, refused [][]byte
	dropped := false
	for _, m := range f.Messages {
		a, c, drop := p.decide(ctx, conn, send, m)
		if drop {
			dropped = true
			continue
		}
		if a == nil {
			a = p.track(conn, m, c)
		}
		if a != nil {
			refused = append(refused, a)
		} else {
			kept = append(kept, m.Raw)
		}
	}
	if len(refused) == 0 && !dropped {
		return frame, nil
	}
	if len(kept) > 0 {
		relay = batch(kept)
	}
	if len(refused) > 0 {
		answers = [][]byte{batch(refused)}
	}
	return relay, answers
}

// track remembers a request that goes on to the server, with the call it was decided
// as (nil for a method moat does not decide). It returns moat's answer when the request
// cannot go on: its id is already waiting for an answer (the two responses could not be
// told apart), or too many are.
func (p *Proxy) track(conn *Conn, m jsonrpc.Message, c *call.Call) []byte {
	if m.Kind != jsonrpc.Request {
		return nil
	}
	r := pendingRequest{method: m.Method}
	if m.Method == MethodToolsList {
		r.epoch = conn.tools().current()
	}
	if m.Method == MethodToolsCall {
		r.call = c
		r.modern = jsonrpc.ProtocolVersion(m.Params) >= modernVersion
	}
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.pending == nil {
		conn.pending = map[string]pendingRequest{}
	}
	key := idKey(m.ID)
	if _, dup := conn.pending[key]; dup {
		fmt.Fprintf(p.Log, "moat: refused a request whose id %s is already waiting for an answer\n", m.ID)
		return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.InvalidRequest, "moat: refused: a request with this id is already waiting for an answer", nil))
	}
	if len(conn.pending) >= maxPending {
		fmt.Fprintf(p.Log, "moat: refused a request: %d requests already wait for the server's answers\n", len(conn.pending))
		return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.InternalError, "moat: refused: too many requests wait for the server's answers", nil))
	}
	conn.pending[key] = r
	return nil
}

// idKey is the same for every spelling of an id: a string id may be escaped differently
// in the request and in its response ("1" and "\u0031"). Integer ids have one spelling
// (jsonrpc admits no other).
func idKey(id json.RawMessage) string {
	var s string
	if len(id) > 0 && id[0] == '"' && json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}

// answered forgets the request a response from the server answers, and returns it.
func (conn *Conn) answered(id json.RawMessage) (pendingRequest, bool) {
	conn.mu.Lock()
	defer conn.mu.Unlock()
	r, ok := conn.pending[idKey(id)]
	delete(conn.pending, idKey(id))
	return r, ok
}

// FromServer reads one frame the server sent and returns what to relay to the client and
// any answers moat gives the client in its place.
func (p *Proxy) FromServer(frame []byte) (relay []byte, answers [][]byte) {
	return p.FromServerOn(&p.conn, frame)
}

// FromServerOn is FromServer for the client whose requests conn holds.
func (p *Proxy) FromServerOn(conn *Conn, frame []byte) (relay []byte, answers [][]byte) {
	f, err := jsonrpc.Parse(frame)
	if err != nil {
		return nil, p.refuse(conn, "server", err)
	}
	if !f.Batch {
		a, drop := p.readResponse(conn, f.Messages[0])
		switch {
		case drop:
			return nil, nil
		case a != nil:
			return a, nil
		}
		return frame, nil
	}
	// Batches were removed from the protocol in 2025-06-18, but a server may still send
	// one: each element is read as a single message would be, so that a tool list or a
	// result cannot pass unread inside one.
	items := make([][]byte, 0, len(f.Messages))
	changed := false
	for _, m := range f.Messages {
		a, drop := p.readResponse(conn, m)
		switch {
		case drop:
			changed = true
		case a != nil:
			items, changed = append(items, a), true
		default:
			items = append(items, m.Raw)
		}
	}
	switch {
	case !changed:
		return frame, nil
	case len(items) == 0:
		return nil, nil
	}
	return batch(items), nil
}

// readResponse reads a message from the server that answers one of the client's
// requests: a tool list or a tool's result. It returns what to send the client instead,
// or nil to relay the message as it is.
func (p *Proxy) readResponse(conn *Conn, m jsonrpc.Message) (answer []byte, drop bool) {
	if m.Kind == jsonrpc.Notification && m.Method == MethodListChanged {
		conn.tools().invalidate()
	}
	if m.Kind != jsonrpc.Response {
		return nil, false
	}
	r, ok := conn.answered(m.ID)
	if ok && r.reply != nil {
		deliver(r, m)
		return nil, true
	}
	if !ok {
		// The client waits for no such answer (moat answered the request itself, or it
		// was never made): relayed, it could only be read as something it is not.
		fmt.Fprintf(p.Log, "moat: dropped a response of the server to no request waiting for one (id %s)\n", scan.Redact(shortID(m.ID)))
		return nil, true
	}
	if m.Result == nil {
		return nil, false
	}
	switch {
	case r.method == MethodToolsList:
		return p.readToolList(conn, m, r), false
	case r.call != nil:
		return p.readResult(m, r), false
	}
	return nil, false
}

// shortID is an id as moat's notes print it.
func shortID(id json.RawMessage) string {
	if len(id) > 64 {
		return string(id[:64]) + "…"
	}
	return string(id)
}

// decide returns moat's answer to m when moat answers it in the server's place, or nil
// when m goes on to the server; the call m was decided as, if it was; and drop when m
// goes nowhere and gets no answer: a decided method sent as a notification, which has no
// id to answer and which a server would still act on (a tools/call run with nobody
// waiting for its result), so moat never relays it.
func (p *Proxy) decide(ctx context.Context, conn *Conn, send Sender, m jsonrpc.Message) (answer []byte, decided *call.Call, drop bool) {
	if m.Kind == jsonrpc.Notification && Decided(m.Method) {
		reason := fmt.Sprintf("a %s sent as a notification (without an id) cannot be answered, and moat does not relay it undecided", m.Method)
		fmt.Fprintf(p.Log, "moat: dropped %s\n", reason)
		if c, err := CallOf(p.Server, m.Method, m.Params); err == nil {
			// The record names the tool, when it can be read.
			p.recordFailureOf(conn, c, "moat dropped "+reason)
		} else {
			p.recordFailure(conn, m.Method, "moat dropped "+reason)
		}
		return nil, nil, true
	}
	if m.Kind != jsonrpc.Request {
		return nil, nil, false
	}
	conn.learnClient(m)
	if !Decided(m.Method) {
		return nil, nil, false
	}
	c, err := CallOf(p.Server, m.Method, m.Params)
	if err != nil {
		p.recordFailure(conn, m.Method, "moat could not read the "+m.Method+" request, so it is refused: "+err.Error())
		return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.InvalidParams, "moat: "+err.Error(), nil)), nil, false
	}
	c.Cwd, c.Project, c.Agent = p.Cwd, p.Project, conn.agent()
	var d call.Decision
	var reason string
	if m.Method == MethodToolsCall {
		reason = p.vetCall(ctx, conn, send, m, c)
	}
	if reason != "" {
		// The policy is not asked: the tool's own listing is what is wrong, or moat
		// could not see it.
		d = call.Decision{Verdict: call.Deny, Rule: "mcp-tool-list", Reason: reason}
		if p.Record != nil {
			p.Record(RecordCall, c, d)
		}
	} else {
		d = p.Decide(ctx, c)
	}
	if d.Verdict != call.Deny && d.Verdict != call.Ask {
		return nil, &c, false
	}
	reason = scan.Redact(denialReason(d))
	fmt.Fprintf(p.Log, "moat: %s %s: %s\n", m.Method, c.MCP, reason)
	if m.Method == MethodToolsCall {
		modern := jsonrpc.ProtocolVersion(m.Params) >= modernVersion
		return p.answer(jsonrpc.ToolError(m.ID, "blocked by moat: "+reason, modern)), &c, false
	}
	return p.answer(jsonrpc.ErrorMessage(m.ID, jsonrpc.BlockedByPolicy, "Blocked by policy: "+reason, nil)), &c, false
}

// recordFailure records a request moat refused because it could not decide it: what
// is known of it is the server and, when it could be read, the method.
func (p *Proxy) recordFailure(conn *Conn, method, reason string) {
	p.recordFailureOf(conn, call.Call{Class: call.MCP, Tool: method, MCP: &call.MCPTarget{Server: p.Server}}, reason)
}

// recordFailureOf records c, refused because moat could not decide it.
func (p *Proxy) recordFailureOf(conn *Conn, c call.Call, reason string) {
	if p.Record == nil {
		return
	}
	c.Cwd, c.Project, c.Agent = p.Cwd, p.Project, conn.agent()
	p.Record(RecordCall, c, call.Decision{Verdict: call.Deny, Rule: call.RuleFailClosed, Reason: scan.Redact(reason)})
}

// denialReason says why a call was refused, with the rule, and for an ask that approval
// is needed: there is no approval over MCP yet, so an ask refuses too.
func denialReason(d call.Decision) string {
	reason := d.Reason
	if reason == "" {
		reason = "the policy does not allow this call"
	}
	reason += " (rule " + d.Rule + ")"
	if d.Verdict == call.Ask {
		reason += "; it needs the user's approval, which moat cannot ask for over MCP: the user can run it outside the agent or add an allow rule to the moat policy"
	}
	return reason
}

// RefuseClientFrame answers a frame from the client that moat could not read (err is
// the reader's or the parser's), as FromClient answers one it parsed and refused.
func (p *Proxy) RefuseClientFrame(err error) [][]byte { return p.refuse(&p.conn, "client", err) }

// refuse answers a frame moat could not read. A request whose id could be read is
// answered with an error, so that its sender does not wait for ever; anything else is
// dropped with a note.
func (p *Proxy) refuse(conn *Conn, from string, err error) [][]byte {
	fmt.Fprintf(p.Log, "moat: refused a frame from the %s: %s\n", from, scan.Redact(err.Error()))
	var id json.RawMessage
	if fe, ok := err.(*jsonrpc.FrameError); ok {
		id = fe.ID
	}
	if from == "server" {
		// Only a response to a request the client is waiting for is answered in its
		// place: any other id is the server's own, and means nothing to the client.
		if len(id) == 0 {
			return nil
		}
		r, ok := conn.answered(id)
		if !ok {
			return nil
		}
		if r.reply != nil {
			deliver(r, jsonrpc.Message{Kind: jsonrpc.Response, ID: id, Error: &jsonrpc.ErrorObject{Code: jsonrpc.InternalError, Message: "moat refused the server's answer: " + err.Error()}})
			return nil
		}
		return [][]byte{p.answer(jsonrpc.ErrorMessage(id, jsonrpc.InternalError, "moat: refused the server's answer: "+err.Error(), nil))}
	}
	if len(id) > 0 {
		// A request moat could not read may have been a call: refusing it is a failure
		// to decide, and is recorded as one.
		p.recordFailure(conn, "", "moat could not read a request from the client, so it is refused: "+err.Error())
	}
	if len(id) == 0 {
		// JSON-RPC answers a message it cannot read with a null id.
		return [][]byte{p.answer(jsonrpc.ErrorMessage(nil, jsonrpc.ParseError, "moat: refused: "+err.Error(), nil))}
	}
	return [][]byte{p.answer(jsonrpc.ErrorMessage(id, jsonrpc.InvalidRequest, "moat: refused: "+err.Error(), nil))}
}

// answer returns a frame moat built. Building one from values moat holds cannot fail; if
// it ever did, the error itself is the answer, so that nothing is relayed by mistake.
func (p *Proxy) answer(b []byte, err error) []byte {
	if err != nil {
		fmt.Fprintf(p.Log, "moat: building an answer: %v\n", err)
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": jsonrpc.InternalError, "message": "moat: " + err.Error()}})
	}
	return b
}

func batch(items [][]byte) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return []byte(b.String())
}
