package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// anthropic is the Messages API (POST /v1/messages, /v1/messages/count_tokens).
type anthropic struct{}

type anthropicRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	} `json:"messages"`
}

type anthropicBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Text      string          `json:"text"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or text blocks
}

// blocks returns the content blocks of each message, in order; a message whose content
// is a plain string has none.
func (r anthropicRequest) blocks() [][]anthropicBlock {
	out := make([][]anthropicBlock, len(r.Messages))
	for i, m := range r.Messages {
		var bs []anthropicBlock
		if json.Unmarshal(m.Content, &bs) == nil {
			out[i] = bs
		}
	}
	return out
}

func (anthropic) toolResults(body []byte) map[string]string {
	var req anthropicRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	out := map[string]string{}
	for _, bs := range req.blocks() {
		for _, b := range bs {
			if b.Type == "tool_result" {
				out[b.ToolUseID] = textOf(b.Content)
			}
		}
	}
	return out
}

// textOf flattens a string or a list of {type:text,text} blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []anthropicBlock
	if json.Unmarshal(raw, &bs) == nil {
		var parts []string
		for _, b := range bs {
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

func (anthropic) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
	w.Header().Set("request-id", "req_stub")
	if strings.HasSuffix(r.URL.Path, "/count_tokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, len(body)/4+1)
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad JSON"}}`, http.StatusBadRequest)
		return
	}
	// Only the main conversation offers tools; side requests (titles, summaries, quota
	// probes) get a short text and do not advance the script.
	step := Say("ok")
	idx := -1
	if len(req.Tools) > 0 {
		n := 0
		for i, bs := range req.blocks() {
			if req.Messages[i].Role != "assistant" {
				continue
			}
			for _, b := range bs {
				if b.Type == "tool_use" {
					n++
				}
			}
		}
		idx, step = s.step(n)
	}
	var block map[string]any
	stop := "end_turn"
	if step.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": callID("toolu_", idx), "name": step.Tool, "input": step.Args}
		stop = "tool_use"
	} else {
		block = map[string]any{"type": "text", "text": step.Text}
	}
	msg := map[string]any{
		"id": fmt.Sprintf("msg_stub%d", idx+1), "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": len(body)/4 + 1, "output_tokens": 10},
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	e := newSSE(w)
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	e.event("message_start", mustJSON(map[string]any{"type": "message_start", "message": start}))
	if step.Tool != "" {
		input := mustJSON(step.Args)
		e.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": step.Tool, "input": map[string]any{}}}))
		e.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}}))
	} else {
		e.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}}))
		e.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": step.Text}}))
	}
	e.event("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": 0}))
	e.event("message_delta", mustJSON(map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 10}}))
	e.event("message_stop", []byte(`{"type":"message_stop"}`))
}

// mustJSON marshals values built here from maps, strings and numbers, which cannot fail;
// a failure would be a bug in this package, so it is reported in the stream itself.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf(`{"error":%q}`, err.Error()))
	}
	return b
}
