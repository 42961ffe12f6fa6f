package daemon

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/decide"
)

// FuzzAnswer feeds request lines to the daemon: whatever a line holds, the answer is
// one JSON object, an error or a result, and no request makes the service panic (the
// server would answer that with an error, but log it: a panic is a bug to fix).
func FuzzAnswer(f *testing.F) {
	env := newTestEnv(f)
	for _, tt := range protocolCases {
		f.Add(strings.ReplaceAll(tt.line, "%P", env.project))
	}
	f.Add(`{"version":1,"method":"decide","params":{"policy":"x","event":"e","calls":[{"Class":"shell","Args":{"command":7}}]}}`)
	f.Add(`{"version":1,"method":"record_failure","params":{"event":"e","call":{"MCP":{"Server":"s"}},"reason":"r"}}`)
	// Calls under a policy the service knows reach the engine, shaped as no adapter
	// shapes them.
	pol, err := env.local().Lookup(context.Background(), decide.Scope{Cwd: env.project})
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range []string{
		`{"Class":"shell","Args":{"command":"rm -rf /"},"Cwd":"/"}`,
		`{"Class":"shell","Args":{"command":["rm"]}}`,
		`{"Class":"file.edit","Args":{"path":"/etc/passwd","edits":"x"}}`,
		`{"Class":"file.edit","Args":{"path":7,"edits":[{"old":1}]}}`,
		`{"Class":"file.read","Args":{"paths":[1,null,"/x"]}}`,
		`{"Class":"mcp","Tool":"t"}`,
		`{"Class":"web.fetch","Args":{"url":"http://[::1"}}`,
		`{"Class":"bogus","Args":null}`,
		`{}`,
	} {
		f.Add(`{"version":1,"method":"decide","params":{"policy":"` + pol.Key + `","event":"e","explain":true,"calls":[` + c + `]}}`)
		f.Add(`{"version":1,"method":"decide_output","params":{"policy":"` + pol.Key + `","event":"e","form":"result","text":"AKIAIOSFODNN7EXAMPLE","call":` + c + `}}`)
	}
	var panicked []string
	s := newServer(f, Options{Service: env.local(), Log: func(msg string) {
		if strings.HasPrefix(msg, "request failed") {
			panicked = append(panicked, msg)
		}
	}})
	f.Fuzz(func(t *testing.T, line string) {
		panicked = panicked[:0]
		resp := s.answer(context.Background(), []byte(line), s.newSession(Peer{Local: true}))
		b, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("answer cannot be encoded: %v", err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(b, &obj); err != nil {
			t.Fatalf("answer %s is not an object", b)
		}
		_, isErr := obj["error"]
		_, isResult := obj["result"]
		_, isDecision := obj["decision"]
		if isErr == (isResult || isDecision) {
			t.Fatalf("answer %s is not exactly one of error, result, decision", b)
		}
		if len(panicked) > 0 {
			t.Fatalf("%q: %s", line, panicked[0])
		}
	})
}
