package modelstub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// gemini is the Gemini API: models/M:generateContent, :streamGenerateContent (SSE with
// alt=sse) and :countTokens.
type gemini struct{}

type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text         string `json:"text,omitempty"`
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func (gemini) toolResults(body []byte) map[string]string {
	var req geminiRequest
	if json.Unmarshal(body, &req) != nil {
		return nil
	}
	out := map[string]string{}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				out[fr.ID] = responseText(fr.Response)
			}
		}
	}
	return out
}

// responseText flattens a functionResponse.response object ({"output": …} or
// {"error": …} in Gemini CLI) into its string values, or its JSON if it has none.
func responseText(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
	var parts []string
	for _, k := range []string{"output", "error", "llmContent", "content"} {
		if s, ok := m[k].(string); ok {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return string(raw)
	}
	return strings.Join(parts, "\n")
}

func (gemini) serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte) {
	if strings.Contains(r.URL.Path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"totalTokens":%d}`, len(body)/4+1)
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"bad JSON","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
		return
	}
	var part map[string]any
	switch schema := firstNonEmpty(req.GenerationConfig.ResponseJSONSchema, req.GenerationConfig.ResponseSchema); {
	case schema != nil:
		// Side calls (model router, next-speaker and loop checks) want an object that
		// conforms to their schema; the first enum value keeps the agent on its path
		// (next_speaker "user" ends the turn).
		var sc map[string]any
		if err := json.Unmarshal(schema, &sc); err != nil {
			http.Error(w, `{"error":{"code":400,"message":"bad schema","status":"INVALID_ARGUMENT"}}`, http.StatusBadRequest)
			return
		}
		part = map[string]any{"text": string(mustJSON(conform(sc)))}
	case hasDeclarations(req):
		n := 0
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if c.Role == "model" && p.FunctionCall != nil {
					n++
				}
			}
		}
		idx, step := s.step(n)
		if step.Tool != "" {
			args := step.Args
			if args == nil {
				args = map[string]any{}
			}
			part = map[string]any{"functionCall": map[string]any{"id": callID("gem_", idx), "name": step.Tool, "args": args}}
		} else {
			part = map[string]any{"text": step.Text}
		}
	default:
		part = map[string]any{"text": "ok"}
	}
	resp := mustJSON(map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{part}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": len(body)/4 + 1, "candidatesTokenCount": 10, "totalTokenCount": len(body)/4 + 11},
		"modelVersion":  "stub",
	})
	if strings.Contains(r.URL.Path, ":streamGenerateContent") {
		newSSE(w).event("", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

func hasDeclarations(req geminiRequest) bool {
	for _, t := range req.Tools {
		if len(t.FunctionDeclarations) > 0 {
			return true
		}
	}
	return false
}

func firstNonEmpty(rs ...json.RawMessage) json.RawMessage {
	for _, r := range rs {
		if len(r) > 0 && string(r) != "null" {
			return r
		}
	}
	return nil
}

// conform builds a value that satisfies a JSON schema (or Gemini's OpenAPI subset, whose
// types are upper case): the first enum value, the minimum of numbers, every required
// property of objects.
func conform(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := schema[key].([]any); ok && len(alts) > 0 {
			if sub, ok := alts[0].(map[string]any); ok {
				return conform(sub)
			}
		}
	}
	typ, _ := schema["type"].(string)
	if list, ok := schema["type"].([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		req, _ := schema["required"].([]any)
		for _, name := range req {
			n, _ := name.(string)
			sub, _ := props[n].(map[string]any)
			out[n] = conform(sub)
		}
		return out
	case "array":
		return []any{}
	case "integer", "number":
		if m, ok := schema["minimum"].(float64); ok {
			return m
		}
		return 1
	case "boolean":
		return false
	case "null":
		return nil
	default:
		return "stub"
	}
}
