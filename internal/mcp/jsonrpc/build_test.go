package jsonrpc

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestBuilders(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  func() ([]byte, error)
		want string // the line, or "error: " and a substring of the error
	}{
		{"result", func() ([]byte, error) { return ResultMessage(json.RawMessage(`7`), map[string]any{"tools": []any{}}) }, `{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`},
		{"result keeps a string id as written", func() ([]byte, error) {
			return ResultMessage(json.RawMessage(`"a\u0062"`), json.RawMessage(`{ "b" : 1 }`))
		}, `{"jsonrpc":"2.0","id":"a\u0062","result":{"b":1}}`},
		{"result without id", func() ([]byte, error) { return ResultMessage(nil, 1) }, `error: id is missing`},
		{"result with null id", func() ([]byte, error) { return ResultMessage(json.RawMessage(`null`), 1) }, `error: id must be a string or an integer, not null`},
		{"result with fractional id", func() ([]byte, error) { return ResultMessage(json.RawMessage(`1.5`), 1) }, `error: id 1.5 must be an integer`},
		{"result with a padded id", func() ([]byte, error) { return ResultMessage(json.RawMessage(`"a" `), 1) }, `error: id is not a valid JSON string`},
		{"result with an injected id", func() ([]byte, error) { return ResultMessage(json.RawMessage(`1,"x":2`), 1) }, `error: id 1,"x":2 must be an integer`},
		{"result that cannot be encoded", func() ([]byte, error) { return ResultMessage(json.RawMessage(`1`), math.Inf(1)) }, `error: jsonrpc: result: json: unsupported value`},
		{"result with a duplicate key", func() ([]byte, error) { return ResultMessage(json.RawMessage(`1`), json.RawMessage(`{"a":1,"a":2}`)) }, `error: built message rejected: invalid JSON: duplicate key "a"`},
		{"result with a huge number", func() ([]byte, error) { return ResultMessage(json.RawMessage(`1`), json.RawMessage(`[1e400]`)) }, `error: does not fit in a 64-bit float`},

		{"error", func() ([]byte, error) {
			return ErrorMessage(json.RawMessage(`"r1"`), MethodNotFound, "Method not found", nil)
		}, `{"jsonrpc":"2.0","id":"r1","error":{"code":-32601,"message":"Method not found"}}`},
		{"error with nil id", func() ([]byte, error) { return ErrorMessage(nil, ParseError, "Parse error", nil) }, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"error with data", func() ([]byte, error) {
			return ErrorMessage(json.RawMessage(`3`), BlockedByPolicy, `Blocked by policy: read of "~/.ssh" <denied>`, map[string]any{"rule": "secrets"})
		}, `{"jsonrpc":"2.0","id":3,"error":{"code":-32003,"message":"Blocked by policy: read of \"~/.ssh\" <denied>","data":{"rule":"secrets"}}}`},
		{"error with a newline in the message", func() ([]byte, error) { return ErrorMessage(json.RawMessage(`3`), InternalError, "a\nb\r", nil) }, `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"a\nb\r"}}`},
		{"error with invalid UTF-8", func() ([]byte, error) { return ErrorMessage(json.RawMessage(`3`), InvalidParams, "a\xffb", nil) }, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"a\ufffdb"}}`},
		{"error with a bad id", func() ([]byte, error) { return ErrorMessage(json.RawMessage(`{}`), InvalidRequest, "x", nil) }, `error: id must be a string or an integer`},
		{"error with a huge code", func() ([]byte, error) { return ErrorMessage(nil, 1<<60, "x", nil) }, `error: code 1152921504606846976 is outside`},

		{"tool error", func() ([]byte, error) {
			return ToolError(json.RawMessage(`2`), "[moat] blocked: rm -rf / && echo <x>", false)
		},
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"[moat] blocked: rm -rf / && echo <x>"}],"isError":true}}`},
		{"modern tool error", func() ([]byte, error) { return ToolError(json.RawMessage(`"c-9"`), "blocked", true) },
			`{"jsonrpc":"2.0","id":"c-9","result":{"content":[{"type":"text","text":"blocked"}],"isError":true,"resultType":"complete"}}`},
		{"tool error without id", func() ([]byte, error) { return ToolError(nil, "blocked", true) }, `error: id is missing`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.got()
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("got %s, %v; want an error containing %q", b, err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("got  %s\nwant %s", b, tc.want)
			}
		})
	}
}

// TestBuiltMessagesParse: what the proxy sends itself is what it would relay.
func TestBuiltMessagesParse(t *testing.T) {
	b, err := ToolError(json.RawMessage(`9`), "blocked", true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Messages[0]
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(m.Result, &res); err != nil || m.Kind != Response || string(m.ID) != "9" || !res.IsError || res.Content[0].Text != "blocked" {
		t.Errorf("got %+v %+v, %v", m, res, err)
	}
}

func TestProtocolVersion(t *testing.T) {
	for _, tc := range []struct {
		params, want string
	}{
		{`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c"}}}`, "2026-07-28"},
		{`{"_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"_meta":{}}}`, "2026-07-28"},
		{`{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026\u002d07-28"}}`, "2026-07-28"},
		{` { "_meta" : { "io.modelcontextprotocol/protocolVersion" : "2026-07-28" } } `, "2026-07-28"},
		{`{"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, ""},
		{`{"name":"x","_meta":{"progressToken":1}}`, ""},
		{`{"name":"x"}`, ""},
		{`{}`, ""},
		{`[]`, ""},
		{`["_meta"]`, ""},
		{``, ""},
		{`{"_meta":null}`, ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`, ""},
		{`{"_Meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolversion":"2026-07-28"}}`, ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, ""},
		{`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07`, ""},
	} {
		if got := ProtocolVersion(json.RawMessage(tc.params)); got != tc.want {
			t.Errorf("ProtocolVersion(%s) = %q, want %q", tc.params, got, tc.want)
		}
	}
}
