package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openai is the OpenAI Responses API (POST …/responses), streamed as SSE.
type openai struct{}

type openaiRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input []struct {
		Type   string          `json:"type"`
		CallID string          `json:"call_id"`
		Output json.RawMessage `json:"output"` // a string, or content items
	} `json:"input"`
}

// ToolSearch is the Tool of a step that asks an OpenAI Responses client (Codex) to run
// its client-side tool search with Args ({"query": …}).
const ToolSearch = "tool_search"

// ScriptInput is the Args key whose string value is sent as the raw input of a custom
// (freeform) tool, such as Codex's apply_patch, instead of JSON arguments.
const ScriptInput = "input"

func (openai) toolResults(body []byte) map[string]string {
	var req openaiRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	out := map[string]string{}
	for _, it := range req.Input {
		switch it.Type {
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			out[it.CallID] = outputText(it.Output)
		}
	}
	return out
}

// outputText flattens a tool output: a string, or a list of {type, text} items.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &items) == nil {
		var out string
		for _, it := range items {
			out += it.Text
		}
		return out
	}
	return string(raw)
}

func (openai) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
	var req openaiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	step, idx := Say("ok"), -1
	if len(req.Tools) > 0 {
		n := 0
		for _, it := range req.Input {
			switch it.Type {
			case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
				n++
			}
		}
		idx, step = s.step(n)
	}
	var item map[string]any
	if step.Tool == ToolSearch {
		// Codex defers MCP tools behind a search the client runs itself: the model asks
		// for it, and the tools found are offered from the next request on.
		id := callID("call_", idx)
		item = map[string]any{"type": "tool_search_call", "id": "tsc_" + id, "call_id": id, "status": "completed", "execution": "client", "arguments": step.Args}
	} else if step.Tool != "" {
		kind := "function"
		for _, t := range req.Tools {
			if t.Name == step.Tool {
				kind = t.Type
			}
		}
		id := callID("call_", idx)
		if kind == "custom" {
			input, _ := step.Args[ScriptInput].(string)
			item = map[string]any{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": id, "name": step.Tool, "input": input, "status": "completed"}
		} else {
			item = map[string]any{"type": "function_call", "id": "fc_" + id, "call_id": id, "name": step.Tool, "arguments": string(mustJSON(step.Args)), "status": "completed"}
			if step.Namespace != "" {
				item["namespace"] = step.Namespace
			}
		}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_stub%d", idx+1), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": step.Text, "annotations": []any{}}}}
	}
	respID := fmt.Sprintf("resp_stub%d", idx+1)
	usage := map[string]any{"input_tokens": len(body)/4 + 1, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": len(body)/4 + 11}
	final := map[string]any{"id": respID, "object": "response", "model": req.Model, "status": "completed", "output": []any{item}, "usage": usage}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		w.Write(mustJSON(final))
		return
	}
	e := newSSE(w)
	e.event("response.created", mustJSON(map[string]any{"type": "response.created",
		"response": map[string]any{"id": respID, "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}}))
	e.event("response.output_item.added", mustJSON(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item}))
	if step.Tool == "" {
		e.event("response.output_text.delta", mustJSON(map[string]any{"type": "response.output_text.delta", "item_id": item["id"],
			"output_index": 0, "content_index": 0, "delta": step.Text}))
	}
	e.event("response.output_item.done", mustJSON(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item}))
	e.event("response.completed", mustJSON(map[string]any{"type": "response.completed", "response": final}))
}
