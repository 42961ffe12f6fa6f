package modelstub

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func start(t *testing.T, script ...Step) *Server {
	t.Helper()
	s, err := Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url, body string) (string, http.Header) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", url, resp.Status, b)
	}
	return string(b), resp.Header
}

// sseData returns the data payloads of an SSE stream, with their event names.
func sseData(t *testing.T, stream string) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(stream))
	name := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var m map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m); err != nil {
				t.Fatalf("data line is not JSON: %q: %v", line, err)
			}
			names, data = append(names, name), append(data, m)
			name = ""
		}
	}
	return names, data
}

var script = []Step{
	Call("Bash", map[string]any{"command": "rm -rf /x"}),
	Say("done"),
}

// TestAnthropic walks a two-turn conversation through the streaming Messages API: the
// script advances as the tool result comes back, a retried request gets the same answer,
// side requests without tools do not advance it, and the tool result is recorded.
func TestAnthropic(t *testing.T) {
	s := start(t, script...)
	first := `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"system","content":"a string content"}]}`
	for range 2 { // a retry is answered the same
		out, h := post(t, s.URL+"/v1/messages?beta=true", first)
		if !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
			t.Fatalf("content type %q", h.Get("Content-Type"))
		}
		names, data := sseData(t, out)
		want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Fatalf("events %v, want %v", names, want)
		}
		block := data[1]["content_block"].(map[string]any)
		if block["type"] != "tool_use" || block["name"] != "Bash" || block["id"] != "toolu_stub0" {
			t.Errorf("content block %v", block)
		}
		var input map[string]any
		if err := json.Unmarshal([]byte(data[2]["delta"].(map[string]any)["partial_json"].(string)), &input); err != nil || input["command"] != "rm -rf /x" {
			t.Errorf("tool input %v (%v)", input, err)
		}
		if data[4]["delta"].(map[string]any)["stop_reason"] != "tool_use" {
			t.Errorf("message_delta %v", data[4])
		}
	}
	side, _ := post(t, s.URL+"/v1/messages", `{"model":"haiku","messages":[{"role":"user","content":"title?"}]}`)
	if !strings.Contains(side, `"text":"ok"`) || !strings.Contains(side, `"end_turn"`) {
		t.Errorf("side request: %s", side)
	}
	second := `{"model":"m","stream":false,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"},{"role":"system","content":"s"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_stub0","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_stub0","content":[{"type":"text","text":"moat: no"}]}]}]}`
	out, _ := post(t, s.URL+"/v1/messages", second)
	var msg struct {
		Content []struct{ Type, Text string }
		Stop    string `json:"stop_reason"`
	}
	if err := json.Unmarshal([]byte(out), &msg); err != nil || len(msg.Content) != 1 || msg.Content[0].Text != "done" || msg.Stop != "end_turn" {
		t.Errorf("second turn: %s (%v)", out, err)
	}
	if got := s.ToolResults(); got[0] != "moat: no" || len(got) != 1 {
		t.Errorf("tool results %v", got)
	}
	count, _ := post(t, s.URL+"/v1/messages/count_tokens", first)
	if !strings.Contains(count, `"input_tokens"`) {
		t.Errorf("count_tokens: %s", count)
	}
}

// TestGemini covers streamGenerateContent with a function call, a function response fed
// back, and a JSON-schema side call answered with a conforming object.
func TestGemini(t *testing.T) {
	s := start(t, script...)
	first := `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"Bash"}]}]}`
	out, _ := post(t, s.URL+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", first)
	_, data := sseData(t, out)
	if len(data) != 1 {
		t.Fatalf("want one chunk, got %d: %s", len(data), out)
	}
	part := data[0]["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)
	fc, ok := part["functionCall"].(map[string]any)
	if !ok || fc["name"] != "Bash" || fc["id"] != "gem_stub0" || fc["args"].(map[string]any)["command"] != "rm -rf /x" {
		t.Errorf("part %v", part)
	}
	second := `{"contents":[{"role":"user","parts":[{"text":"go"}]},{"role":"model","parts":[{"functionCall":{"id":"gem_stub0","name":"Bash","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"id":"gem_stub0","name":"Bash","response":{"error":"moat: no"}}}]}],"tools":[{"functionDeclarations":[{"name":"Bash"}]}]}`
	out, _ = post(t, s.URL+"/v1beta/models/gemini-x:generateContent", second)
	if !strings.Contains(out, `"text":"done"`) {
		t.Errorf("second turn: %s", out)
	}
	if got := s.ToolResults(); got[0] != "moat: no" {
		t.Errorf("tool results %v", got)
	}
	router := `{"contents":[{"role":"user","parts":[{"text":"route"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":
		{"type":"object","properties":{"reasoning":{"type":"string"},"next_speaker":{"type":"string","enum":["user","model"]},"score":{"type":"integer","minimum":5}},"required":["reasoning","next_speaker","score"]}}}`
	out, _ = post(t, s.URL+"/v1beta/models/flash:generateContent", router)
	var resp struct {
		Candidates []struct {
			Content struct{ Parts []struct{ Text string } }
		}
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(resp.Candidates[0].Content.Parts[0].Text), &obj); err != nil {
		t.Fatalf("router answer is not JSON: %s", out)
	}
	if obj["next_speaker"] != "user" || obj["score"] != 5.0 || obj["reasoning"] == nil {
		t.Errorf("router answer %v", obj)
	}
}

// TestOpenAI covers the Responses API: a function tool, a custom (freeform) tool, the
// final message, and the outputs fed back.
func TestOpenAI(t *testing.T) {
	s := start(t,
		Call("exec_command", map[string]any{"cmd": "ls"}),
		Call("apply_patch", map[string]any{ScriptInput: "*** Begin Patch\n*** End Patch\n"}),
		Say("done"),
	)
	tools := `"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}]`
	user := `{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`
	item := func(body string) map[string]any {
		t.Helper()
		out, _ := post(t, s.URL+"/v1/responses", body)
		names, data := sseData(t, out)
		if names[0] != "response.created" || names[len(names)-1] != "response.completed" {
			t.Fatalf("events %v", names)
		}
		for i, n := range names {
			if n == "response.output_item.done" {
				return data[i]["item"].(map[string]any)
			}
		}
		t.Fatalf("no output item in %v", names)
		return nil
	}
	it := item(`{"model":"gpt","stream":true,` + tools + `,"input":[` + user + `]}`)
	if it["type"] != "function_call" || it["name"] != "exec_command" || it["arguments"] != `{"cmd":"ls"}` || it["call_id"] != "call_stub0" {
		t.Errorf("first item %v", it)
	}
	history := user + `,{"type":"function_call","call_id":"call_stub0","name":"exec_command","arguments":"{}"},{"type":"function_call_output","call_id":"call_stub0","output":"moat: no"}`
	it = item(`{"model":"gpt","stream":true,` + tools + `,"input":[` + history + `]}`)
	if it["type"] != "custom_tool_call" || it["input"] != "*** Begin Patch\n*** End Patch\n" {
		t.Errorf("second item %v", it)
	}
	history += `,{"type":"custom_tool_call","call_id":"call_stub1","name":"apply_patch","input":"x"},{"type":"custom_tool_call_output","call_id":"call_stub1","output":[{"type":"input_text","text":"patch refused"}]}`
	it = item(`{"model":"gpt","stream":true,` + tools + `,"input":[` + history + `]}`)
	if it["type"] != "message" || !strings.Contains(string(mustJSON(it)), `"text":"done"`) {
		t.Errorf("last item %v", it)
	}
	if got := s.ToolResults(); got[0] != "moat: no" || got[1] != "patch refused" {
		t.Errorf("tool results %v", got)
	}
}

// TestRecording: every request is kept, gzip bodies are undone, Saw finds text in
// bodies, paths and headers, and incidental endpoints get a harmless answer.
func TestRecording(t *testing.T) {
	s := start(t, Say("done"))
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	io.WriteString(w, `{"model":"m","messages":[{"role":"user","content":"secret-in-gzip"}]}`)
	w.Close()
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/v1/messages", &gz)
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("X-Note", "secret-in-header")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(s.URL + "/v1/models?secret-in-path")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !json.Valid(b) || !strings.Contains(string(b), `"data":[]`) {
		t.Errorf("model listing: %s", b)
	}
	for _, sub := range []string{"secret-in-gzip", "secret-in-header", "secret-in-path"} {
		if !s.Saw(sub) {
			t.Errorf("Saw(%q) = false", sub)
		}
	}
	if s.Saw("never-sent") {
		t.Error("Saw reports text that was never sent")
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("%d requests recorded, want 2", n)
	}
}

func TestConform(t *testing.T) {
	cases := []struct {
		schema string
		want   string
	}{
		{`{"type":"string","enum":["flash","pro"]}`, `"flash"`},
		{`{"type":"OBJECT","properties":{"a":{"type":"BOOLEAN"},"b":{"type":"ARRAY"}},"required":["a","b"]}`, `{"a":false,"b":[]}`},
		{`{"type":["number","null"],"minimum":2}`, `2`},
		{`{"anyOf":[{"const":"x"},{"type":"string"}]}`, `"x"`},
		{`{"type":"object","properties":{"opt":{"type":"string"}}}`, `{}`},
	}
	for _, c := range cases {
		var sc map[string]any
		if err := json.Unmarshal([]byte(c.schema), &sc); err != nil {
			t.Fatal(err)
		}
		if got := string(mustJSON(conform(sc))); got != c.want {
			t.Errorf("conform(%s) = %s, want %s", c.schema, got, c.want)
		}
	}
}
