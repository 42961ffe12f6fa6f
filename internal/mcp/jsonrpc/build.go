package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Error codes of JSON-RPC 2.0, and moat's own.
const (
	ParseError     = -32700
	InvalidRequest = -32600
	MethodNotFound = -32601
	InvalidParams  = -32602
	InternalError  = -32603
	// BlockedByPolicy answers a request moat refuses. MCP 2026-07-28 leaves -32000…-32019
	// to implementations; -32000 and -32001 are the TypeScript SDK's ConnectionClosed and
	// RequestTimeout, and -32002 meant "resource not found" before 2026, so a client could
	// mistake any of them for something else.
	BlockedByPolicy = -32003
)

// ResultMessage returns the response {"jsonrpc":"2.0","id":ID,"result":RESULT} as one
// line of compact JSON without its newline. id must be a string or an integer as Parse
// accepts them, normally a request's Message.ID.
func ResultMessage(id json.RawMessage, result any) ([]byte, error) {
	if msg := checkID(id, false); msg != "" {
		return nil, fmt.Errorf("jsonrpc: result: id %s", msg)
	}
	r, err := marshal(result)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: result: %w", err)
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(r))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, r...)
	b = append(b, '}')
	return selfCheck(b)
}

// ErrorMessage returns the error response {"jsonrpc":"2.0","id":ID,"error":{"code":CODE,
// "message":MESSAGE,"data":DATA}} as one line of compact JSON without its newline. A nil
// id is written null, as JSON-RPC wants for a request whose id could not be read; "data"
// is left out when data is nil.
func ErrorMessage(id json.RawMessage, code int, message string, data any) ([]byte, error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	if msg := checkID(id, true); msg != "" {
		return nil, fmt.Errorf("jsonrpc: error response: id %s", msg)
	}
	if code > maxSafeInteger || code < -maxSafeInteger {
		return nil, fmt.Errorf("jsonrpc: error response: code %d is outside ±(2^53-1)", code)
	}
	m, err := marshal(message)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: error response: %w", err)
	}
	var dj []byte
	if data != nil {
		if dj, err = marshal(data); err != nil {
			return nil, fmt.Errorf("jsonrpc: error response data: %w", err)
		}
	}
	b := make([]byte, 0, 64+len(id)+len(m)+len(dj))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":{"code":`...)
	b = fmt.Appendf(b, "%d", code)
	b = append(b, `,"message":`...)
	b = append(b, m...)
	if dj != nil {
		b = append(b, `,"data":`...)
		b = append(b, dj...)
	}
	b = append(b, "}}"...)
	return selfCheck(b)
}

// ToolError returns the answer to a refused tools/call that MCP recommends (spec 6.5): a
// result, not a JSON-RPC error, because clients hand a result with "isError" to the model,
// which then sees why and does not retry blindly, while some clients fail on errors.
// modern adds "resultType":"complete", which MCP 2026-07-28 requires of every result; set
// it when the request's ProtocolVersion is 2026-07-28 or later.
func ToolError(id json.RawMessage, text string, modern bool) ([]byte, error) {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content    []content `json:"content"`
		IsError    bool      `json:"isError"`
		ResultType string    `json:"resultType,omitempty"`
	}
	r := result{Content: []content{{Type: "text", Text: text}}, IsError: true}
	if modern {
		r.ResultType = "complete"
	}
	return ResultMessage(id, r)
}

// ProtocolVersion returns params._meta["io.modelcontextprotocol/protocolVersion"], the
// version every 2026-07-28 request carries in place of the handshake, or "" when it is
// absent or not a string. params should come from a Message of Parse; on other input the
// answer is a best effort. Keys match exactly, as in Parse: a "_Meta" does not count.
func ProtocolVersion(params json.RawMessage) string {
	var meta []byte
	members(params, skipSpace(params, 0), false, func(key []byte, _, v, vEnd int) *FrameError {
		if keyText(key) == "_meta" {
			meta = params[v:vEnd]
			return errStop
		}
		return nil
	})
	var version string
	members(meta, 0, false, func(key []byte, _, v, vEnd int) *FrameError {
		if keyText(key) == "io.modelcontextprotocol/protocolVersion" {
			version, _ = decodeString(meta[v:vEnd])
			return errStop
		}
		return nil
	})
	return version
}

// marshal encodes v as compact JSON. HTML characters stay as they are, so that a refusal's
// text reads the same in the audit log as in the client.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// selfCheck parses a built message, so the proxy never sends what it would refuse to
// relay: a json.RawMessage result may hold duplicate keys or a number such as 1e400.
func selfCheck(b []byte) ([]byte, error) {
	if _, err := Parse(b); err != nil {
		return nil, fmt.Errorf("jsonrpc: built message rejected: %w", err)
	}
	return b, nil
}
