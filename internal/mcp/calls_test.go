package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// exampleMember is a value of a params member's declared type.
func exampleMember(typ string) any {
	if typ == "string" {
		return "x"
	}
	return map[string]any{}
}

// TestParamMembers sends every decided method each member its table declares, of its
// type and of another, and members it does not declare: the table is iterated, so a
// member or method added to it is covered.
func TestParamMembers(t *testing.T) {
	for method, members := range paramMembers {
		if !Decided(method) {
			t.Errorf("%s has params members but is not decided", method)
		}
		base := map[string]any{}
		if _, ok := members["name"]; ok {
			base["name"] = "echo"
		}
		if _, ok := members["uri"]; ok {
			base["uri"] = "file:///a"
		}
		for k, typ := range members {
			p := clone(base)
			p[k] = exampleMember(typ)
			if _, err := CallOf("srv", method, marshal(t, p)); err != nil {
				t.Errorf("%s with %s: %v", method, k, err)
			}
			wrongs := []any{json.Number("1"), []any{}, true, exampleMember(map[string]string{"string": "object", "object": "string"}[typ])}
			if typ == "object" {
				// An optional object sent as null is absent (the Go SDK sends null arguments).
				p := clone(base)
				p[k] = nil
				if _, err := CallOf("srv", method, marshal(t, p)); err != nil {
					t.Errorf("%s with %s = null: %v", method, k, err)
				}
			} else {
				wrongs = append(wrongs, nil)
			}
			for _, wrong := range wrongs {
				p := clone(base)
				p[k] = wrong
				if _, err := CallOf("srv", method, marshal(t, p)); err == nil || !strings.Contains(err.Error(), k) {
					t.Errorf("%s with %s = %v: err %v, want one naming %s", method, k, wrong, err, k)
				}
			}
		}
		for _, unknown := range []string{"argumnets", "Arguments", "NAME", "url", "params", "arguments_"} {
			if _, ok := members[unknown]; ok {
				continue
			}
			p := clone(base)
			p[unknown] = map[string]any{}
			if _, err := CallOf("srv", method, marshal(t, p)); err == nil || !strings.Contains(err.Error(), "unknown member") {
				t.Errorf("%s with %s: err %v, want an unknown member", method, unknown, err)
			}
		}
	}
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzFromClient checks that whatever a client sends, what the proxy relays holds no
// decided method sent as a notification and no decided request whose params moat could
// not read; and that nothing panics. Seeds are TestFromClient's frames.
func FuzzFromClient(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","argumnets":{"text":"rm -rf ~"}}}`,
		`{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":1},"task":{"ttl":60000},"inputResponses":{},"requestState":"s"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///secret"}}`,
		`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///secret"}}`,
		`{"jsonrpc":"2.0","id":15,"method":"prompts/get","params":{"name":"review","args":{}}}`,
		`[{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}, {"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo"}}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		if strings.ContainsAny(frame, "\r\n") {
			return
		}
		d := &denyTools{}
		p := &Proxy{Server: "srv", Decide: d.decide, Log: io.Discard}
		p.Send = (&fakeServer{t: t, p: p, tools: toolsNamed("echo", "delete_all")}).send
		relay, _ := p.FromClient(context.Background(), []byte(frame))
		if relay == nil {
			return
		}
		// The frame as it came, or a batch rebuilt of its own messages.
		fr, err := jsonrpc.Parse(relay)
		if err != nil {
			t.Fatalf("relayed an unreadable frame: %v", err)
		}
		for _, m := range fr.Messages {
			if !Decided(m.Method) {
				continue
			}
			if m.Kind == jsonrpc.Notification {
				t.Fatalf("relayed a %s notification: %s", m.Method, m.Raw)
			}
			if _, err := CallOf("srv", m.Method, m.Params); err != nil {
				t.Fatalf("relayed a %s moat cannot read (%v): %s", m.Method, err, m.Raw)
			}
		}
		for _, c := range d.seen {
			if c.Class != call.MCP || c.MCP == nil || c.MCP.Tool == "" {
				t.Fatalf("decided a call without its tool: %+v", c)
			}
		}
	})
}
