package httpproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// paramHeaders holds, for each tool a server listed, the arguments it asks clients to
// mirror as Mcp-Param-* headers (x-mcp-header in its input schema, 2026-07-28). A server
// or gateway may act on those headers without reading the body; moat decides on the
// body, so a call whose headers say otherwise goes nowhere.
type paramHeaders struct {
	mu    sync.Mutex
	tools map[string][]binding
}

type binding struct {
	path   []string // of the argument, from the arguments object
	header string   // Mcp-Param-{Name}
}

// maxBindingDepth bounds the walk of an input schema's nested properties.
const maxBindingDepth = 16

// learn reads a server's message for a tool list, and remembers its tools' bindings.
func (p *paramHeaders) learn(msg []byte) {
	if !bytes.Contains(msg, []byte(`"tools"`)) {
		return
	}
	f, err := jsonrpc.Parse(msg)
	if err != nil || f.Batch || f.Messages[0].Kind != jsonrpc.Response || f.Messages[0].Result == nil {
		return
	}
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(f.Messages[0].Result, &list) != nil || list.Tools == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tools == nil {
		p.tools = map[string][]binding{}
	}
	for _, t := range list.Tools {
		var bs []binding
		collect(t.InputSchema, nil, &bs, 0)
		if bs == nil {
			delete(p.tools, t.Name) // its earlier bindings, if any, are gone
			continue
		}
		p.tools[t.Name] = bs
	}
}

func collect(schema json.RawMessage, prefix []string, out *[]binding, depth int) {
	if depth > maxBindingDepth {
		return
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return
	}
	for name, prop := range s.Properties {
		path := append(append([]string(nil), prefix...), name)
		var pr struct {
			Header string `json:"x-mcp-header"`
		}
		if json.Unmarshal(prop, &pr) == nil && pr.Header != "" {
			*out = append(*out, binding{path: path, header: http.CanonicalHeaderKey("Mcp-Param-" + pr.Header)})
		}
		collect(prop, path, out, depth+1)
	}
}

// mismatch says how the Mcp-Param-* headers of a tools/call disagree with its
// arguments, or returns "". Tools moat has not seen listed are not checked.
func (p *paramHeaders) mismatch(h http.Header, tool string, params json.RawMessage) string {
	p.mu.Lock()
	bs := p.tools[tool]
	p.mu.Unlock()
	if len(bs) == 0 {
		return ""
	}
	var body struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	json.Unmarshal(params, &body)
	for _, b := range bs {
		if len(h.Values(b.header)) > 1 {
			return b.header + " is given more than once"
		}
		hv := h.Get(b.header)
		arg, ok := lookup(body.Arguments, b.path)
		if !ok || string(arg) == "null" {
			if hv != "" {
				return fmt.Sprintf("%s is set, but the argument %s is absent", b.header, strings.Join(b.path, "."))
			}
			continue
		}
		v, ok := headerValue(hv)
		if hv == "" || !ok || !sameValue(v, arg) {
			return fmt.Sprintf("%s %q, but the argument %s is %s", b.header, hv, strings.Join(b.path, "."), shorten(arg))
		}
	}
	return ""
}

func lookup(args map[string]json.RawMessage, path []string) (json.RawMessage, bool) {
	cur, ok := args[path[0]]
	for _, k := range path[1:] {
		if !ok {
			return nil, false
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return nil, false
		}
		cur, ok = obj[k]
	}
	return cur, ok
}

// sameValue compares a header's text with the argument it mirrors: a string, a boolean
// or an integer (which a client may write as 5 or 5.0).
func sameValue(h string, arg json.RawMessage) bool {
	var v any
	dec := json.NewDecoder(bytes.NewReader(arg))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return h == v
	case bool:
		return h == strconv.FormatBool(v)
	case json.Number:
		a, err1 := strconv.ParseFloat(v.String(), 64)
		b, err2 := strconv.ParseFloat(h, 64)
		return err1 == nil && err2 == nil && a == b && a == math.Trunc(a)
	}
	return false
}

func shorten(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}
