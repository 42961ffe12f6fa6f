package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
	"github.com/moatdev/moat/internal/scan"
)

// readResult reads a tool's result for prompt injection and credentials with the one
// scanner of tool output (decide.ScanOutput), as the hooks read a tool's output. It returns the response to send the client instead of the
// server's, or nil to relay the server's unchanged: a clean result, or one the policy
// lets through, goes on byte for byte.
//
// A result that holds something is annotated: a text item is added that tells the model
// to treat the result as data and not to repeat credentials. With the policy's output
// section set to block, the result is withheld and the model gets a tool error saying why.
func (p *Proxy) readResult(m jsonrpc.Message, r pendingRequest) []byte {
	var result map[string]json.RawMessage
	if err := json.Unmarshal(m.Result, &result); err != nil {
		return nil // not an object: nothing the model reads as text
	}
	text := resultText(result)
	if text == "" {
		return nil
	}
	found := decide.ScanOutput(p.Output, decide.ToolResult, r.call.MCP.String(), text)
	if !found.Found {
		return nil
	}
	d := found.Decision
	if p.Record != nil {
		p.Record(RecordResult, *r.call, d)
	}
	fmt.Fprintf(p.Log, "%s\n", d.Reason)
	if found.Block() {
		return p.answer(jsonrpc.ToolError(m.ID, d.Reason, r.modern))
	}
	redact := found.Redact
	items := contentItems(result)
	if redact {
		// The credentials are masked wherever the model would read them; the rest of the
		// result goes through.
		for _, item := range items {
			if t, ok := item["text"].(string); ok {
				item["text"] = scan.Redact(t)
			}
			if res, ok := item["resource"].(map[string]any); ok {
				if t, ok := res["text"].(string); ok {
					res["text"] = scan.Redact(t)
				}
			}
		}
		if sc, ok := result["structuredContent"]; ok {
			var v any
			dec := json.NewDecoder(bytes.NewReader(sc))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				if b, err := json.Marshal(redactStrings(v)); err == nil {
					result["structuredContent"] = b
				}
			}
		}
	}
	content, _ := json.Marshal(append(items, map[string]any{"type": "text", "text": d.Reason}))
	result["content"] = content
	return p.answer(jsonrpc.ResultMessage(m.ID, result))
}

// resultText is the text of a tool result the model reads: its text content items and
// the strings of its structured content.
func resultText(result map[string]json.RawMessage) string {
	var b strings.Builder
	for _, item := range contentItems(result) {
		if t, ok := item["text"].(string); ok {
			b.WriteString(t)
			b.WriteByte('\n')
		}
		if res, ok := item["resource"].(map[string]any); ok {
			if t, ok := res["text"].(string); ok {
				b.WriteString(t)
				b.WriteByte('\n')
			}
		}
	}
	if sc, ok := result["structuredContent"]; ok {
		var v any
		if json.Unmarshal(sc, &v) == nil {
			walkStrings(v, func(s string) {
				b.WriteString(s)
				b.WriteByte('\n')
			})
		}
	}
	return b.String()
}

// contentItems decodes a result's content items, keeping numbers as written.
func contentItems(result map[string]json.RawMessage) []map[string]any {
	var items []map[string]any
	dec := json.NewDecoder(bytes.NewReader(result["content"]))
	dec.UseNumber()
	dec.Decode(&items)
	return items
}

// walkStrings calls fn with every string in v, in a fixed order.
func walkStrings(v any, fn func(string)) {
	switch v := v.(type) {
	case string:
		fn(v)
	case []any:
		for _, x := range v {
			walkStrings(x, fn)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walkStrings(v[k], fn)
		}
	}
}

// redactStrings returns v with every string in it redacted.
func redactStrings(v any) any {
	switch v := v.(type) {
	case string:
		return scan.Redact(v)
	case []any:
		for i := range v {
			v[i] = redactStrings(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = redactStrings(v[k])
		}
	}
	return v
}
