//go:build linux || darwin

package daemon

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/decide"
)

// Each answered request is observed once, with its method and whether it failed; the
// status carries the owner's sinks.
func TestObserveAndSinkStatus(t *testing.T) {
	env := newTestEnv(t)
	var mu sync.Mutex
	var got []string
	s := newServer(t, Options{
		Service: env.local(),
		Observe: func(method string, took time.Duration, err error) {
			mu.Lock()
			defer mu.Unlock()
			outcome := "ok"
			if err != nil {
				outcome = "error"
			}
			if took <= 0 {
				outcome = "no time"
			}
			got = append(got, method+" "+outcome)
		},
		Sinks: func() *SinkStatus { return &SinkStatus{Metrics: "127.0.0.1:9464"} },
	})
	p := serve(t, s)
	lines(t, decide.DialUnix(p.Socket),
		`{"version":1,"method":"decide_prompt","params":{"text":"hi"}}`,
		`{"version":1,"method":"nope","params":{}}`,
		`{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash","args":{"command":"ls"},"cwd":"/"}`,
		`not json`)
	// The last request is observed after its answer is written.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 4 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"decide_prompt ok", "nope error", " ok", " error"}
	if !slices.Equal(got, want) {
		t.Errorf("observed %q, want %q", got, want)
	}
	if st := s.Status(); st.Sinks == nil || st.Sinks.Metrics != "127.0.0.1:9464" {
		t.Errorf("status sinks = %+v", st.Sinks)
	}
}

// The method respond finds while answering a line is the one decoding the line into a
// struct with a "method" field finds, whatever the line: Observe is told the same method
// as when it parsed the line again.
func TestRespondMethod(t *testing.T) {
	env := newTestEnv(t)
	s := newServer(t, Options{Service: env.local()})
	lines := []string{
		`{"version":1,"method":"status","params":{}}`,
		`{"version":1,"Method":"status","params":{}}`,
		`{"version":1,"METHOD":"nope"}`,
		`{"version":1,"method":7}`,
		`{"version":1,"method":"a","method":"b"}`,
		`{"version":1,"method":"status","params":{"a":1,"a":2}}`,
		`{"version":1,"tool":"Bash","args":{"command":"ls"},"cwd":"/"}`,
		`["method"]`, `"method"`, `not json`, `{"method":"status"`,
	}
	for _, c := range protocolCases {
		lines = append(lines, strings.ReplaceAll(c.line, "%P", env.project))
	}
	for _, line := range lines {
		got, _ := s.respond(context.Background(), []byte(line), s.newSession(Peer{Local: true}))
		var want struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal([]byte(line), &want)
		if got != want.Method {
			t.Errorf("%s: method %q, want %q", line, got, want.Method)
		}
	}
}
