package hookrelay

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// decodedPayload reads the payload of a request line as the daemon's hook method does:
// the JSON form's bytes as they are, else the base64 form's.
func decodedPayload(line []byte) ([]byte, error) {
	var wire struct {
		Params struct {
			Payload     []byte          `json:"payload"`
			PayloadJSON json.RawMessage `json:"payload_json"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &wire); err != nil {
		return nil, err
	}
	if wire.Params.PayloadJSON != nil {
		if wire.Params.Payload != nil {
			return nil, errors.New("both forms")
		}
		return wire.Params.PayloadJSON, nil
	}
	return wire.Params.Payload, nil
}

// Every payload reaches the daemon byte for byte: an agent's usual event as it is, and
// whatever the daemon's JSON decoder would not give back exactly in base64.
func TestEncodeRequest(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		raw     bool
	}{
		{"an agent's event", `{"tool_name":"Bash","tool_input":{"command":"ls"}}`, true},
		{"spaces and HTML, kept", `{"a": "<b>&amp;</b>", "n": 1.50e+3, "u": "\u00e9\u2028"}`, true},
		{"escaped line breaks in strings", `{"command":"echo a\nb\r\n"}`, true},
		{"pretty-printed", "{\n  \"a\": 1\n}", false},
		{"a trailing newline", "{\"a\":1}\n", false},
		{"leading space", ` {"a":1}`, false},
		{"invalid UTF-8 in a string", "{\"a\":\"\xff\"}", false},
		{"not JSON", "{\"x\":1}\n\x00\xff", false},
		{"an unclosed object", `{"a":1`, false},
		{"two objects", `{"a":1}{"b":2}`, false},
		{"an array", `[1,2]`, false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Agent: "gemini-cli", Args: []string{"--policy", "p <&> .yaml"}, Payload: []byte(tt.payload), Cwd: "/w", Env: map[string]string{"HOME": "/h"}}
			line, err := encodeRequest(req)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(line, []byte("}\n")) || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("not one line: %q", line)
			}
			if got := bytes.Contains(line, []byte(`"payload_json":`)); got != tt.raw {
				t.Errorf("sent as JSON: %v, want %v (%s)", got, tt.raw, line)
			}
			var wire struct {
				Version int        `json:"version"`
				Method  string     `json:"method"`
				Params  wireParams `json:"params"`
			}
			dec := json.NewDecoder(bytes.NewReader(line))
			if err := dec.Decode(&wire); err != nil {
				t.Fatalf("request %s: %v", line, err)
			}
			if wire.Version != 1 || wire.Method != Method || wire.Params.Agent != req.Agent ||
				strings.Join(wire.Params.Args, " ") != "--policy p <&> .yaml" || wire.Params.Cwd != "/w" || wire.Params.Env["HOME"] != "/h" {
				t.Errorf("request %s", line)
			}
			payload, err := decodedPayload(line)
			if err != nil || string(payload) != tt.payload {
				t.Errorf("payload %q (%v), want %q", payload, err, tt.payload)
			}
			// One buffer for the line, one for the sorted names of the environment, beside
			// what checking the payload takes (json.Valid's error for invalid JSON).
			checking := testing.AllocsPerRun(10, func() { rawPayload(req.Payload) })
			if n := testing.AllocsPerRun(10, func() { encodeRequest(req) }) - checking; n > 2 && !raceEnabled {
				t.Errorf("%v allocations per request line, want at most 2: the line's size is estimated wrong", n)
			}
		})
	}
}

func BenchmarkEncodeRequest(b *testing.B) {
	req := Request{Agent: "claude-code", Payload: []byte(`{"session_id":"s","cwd":"/home/u/project","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./... && git status"}}`),
		Cwd: "/home/u/project", Env: map[string]string{"HOME": "/home/u", "PATH": "/usr/bin:/bin"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeRequest(req); err != nil {
			b.Fatal(err)
		}
	}
}
