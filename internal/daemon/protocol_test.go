package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// testEnv is a fresh user: a HOME with a project (a repository) and a policy file in it.
type testEnv struct {
	home, project string
	getenv        func(string) string
}

const testPolicy = `version: 1
default: allow
rules:
  - id: deny-rm
    command: "rm **"
    decision: deny
    reason: no deleting here
  - id: ask-touch
    command: "touch **"
    decision: ask
  - id: deny-secret-read
    tool: file.read
    paths: {read: ["/**/secret*"]}
    decision: deny
`

func newTestEnv(t testing.TB) testEnv {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "app")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".config", "moat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".config", "moat", "moat.yaml"), []byte(testPolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	return testEnv{home: home, project: project, getenv: func(k string) string { return env[k] }}
}

func (e testEnv) local() *decide.Local {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return decide.NewLocal(decide.Options{Getenv: e.getenv, Now: func() time.Time { return now }})
}

func (e testEnv) server(t testing.TB, log func(string)) *Server {
	return newServer(t, Options{Service: e.local(), Log: log})
}

// answerLine answers one request line as the server would on its socket.
func answerLine(t testing.TB, s *Server, line string, p Peer) string {
	t.Helper()
	b, err := json.Marshal(s.answer(context.Background(), []byte(line), s.newSession(p)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// protocolCases are request lines and what their answers hold (substrings; %P is the
// project directory). They also seed the fuzz test.
var protocolCases = []struct {
	name, line string
	want       []string
}{
	{"seed shell deny", `{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"Bash","args":{"command":"rm -rf build"},"cwd":"%P"}`,
		[]string{`"decision":"deny"`, `"rule":"deny-rm"`, `"reason":"no deleting here"`, `"policy":"`, `"latency_ms":`}},
	{"seed alias shell_execute", `{"version":1,"agent":"claude-code","event":"pre_tool_use","tool":"shell_execute","args":{"command":"touch x"},"cwd":"%P"}`,
		[]string{`"decision":"ask"`, `"rule":"ask-touch"`}},
	{"seed alias run_command", `{"version":1,"tool":"run_command","args":{"command":"ls"},"cwd":"%P"}`,
		[]string{`"decision":"allow"`, `"reason":null`, `"rule":"default"`}},
	{"seed alias read_code", `{"version":1,"tool":"read_code","args":{"path":"secret.txt"},"cwd":"%P"}`,
		[]string{`"decision":"deny"`, `"rule":"deny-secret-read"`}},
	{"seed alias write_code", `{"version":1,"tool":"write_code","args":{"path":"a.txt","content":"x"},"cwd":"%P"}`,
		[]string{`"decision":"allow"`}},
	{"seed native name", `{"version":1,"agent":"gemini-cli","tool":"read_file","args":{"file_path":"secret.txt"},"cwd":"%P"}`,
		[]string{`"decision":"deny"`}},
	{"seed wrong version", `{"version":2,"tool":"Bash","args":{"command":"ls"},"cwd":"%P"}`, []string{`{"error":"version must be 1, not 2"}`}},
	{"seed unknown tool", `{"version":1,"tool":"frobnicate","args":{},"cwd":"%P"}`, []string{`"error":`, "frobnicate"}},
	{"seed unknown field", `{"version":1,"tool":"Bash","args":{"command":"ls"},"cwd":"%P","x":1}`, []string{`{"error":"unknown field \"x\" in request"}`}},
	{"seed relative cwd", `{"version":1,"tool":"Bash","args":{"command":"ls"},"cwd":"rel"}`, []string{`"error":"cwd must be an absolute path`}},
	{"seed unknown event", `{"version":1,"event":"post_tool_use","tool":"Bash","args":{"command":"ls"},"cwd":"%P"}`, []string{`"error":"unknown event`}},
	{"not json", `rm -rf /`, []string{`{"error":"malformed request:`}},
	{"not an object", `[1,2]`, []string{`{"error":"malformed request: a request is a JSON object"}`}},
	{"duplicate key", `{"version":1,"version":1,"method":"lookup"}`, []string{`{"error":"malformed request:`, "duplicate"}},
	{"invalid utf-8", "{\"version\":1,\"method\":\"lookup\",\"params\":{\"cwd\":\"\xff\"}}", []string{`{"error":"malformed request:`}},
	{"method unknown", `{"version":1,"method":"frobnicate","params":{}}`, []string{`{"error":"unknown method \"frobnicate\""}`}},
	{"method wrong version", `{"version":7,"method":"lookup","params":{"cwd":"/"}}`, []string{`{"error":"unsupported version 7 (this daemon speaks 1)"}`}},
	{"method no version", `{"method":"lookup","params":{"cwd":"/"}}`, []string{`{"error":"missing field \"version\""}`}},
	{"method not a string", `{"version":1,"method":7}`, []string{`{"error":"field \"method\" must be a string"}`}},
	{"method unknown field", `{"version":1,"method":"lookup","params":{"cwd":"/"},"x":1}`, []string{`{"error":"unknown field \"x\" in request"}`}},
	{"method no params", `{"version":1,"method":"lookup"}`, []string{`{"error":"method \"lookup\" needs params"}`}},
	{"method unknown param", `{"version":1,"method":"lookup","params":{"cwd":"/","policy":"x"}}`, []string{`"error":"params of \"lookup\"`, "unknown field"}},
	{"lookup", `{"version":1,"method":"lookup","params":{"cwd":"%P"}}`, []string{`{"result":{"key":"`, `"fail":"closed"`}},
	{"decide unknown policy", `{"version":1,"method":"decide","params":{"policy":"nope","event":"x","calls":[]}}`,
		[]string{`"error":"deciding under policy \"nope\": no such policy: look it up first"`, `"code":"unknown_policy"`}},
	{"decide a verdictless decision", `{"version":1,"method":"record","params":{"policy":"nope","event":"x","call":{},"decision":{"Verdict":"maybe"}}}`,
		[]string{`"error":"params of \"record\"`, "unknown decision"}},
	{"prompt", `{"version":1,"method":"decide_prompt","params":{"text":"hello"}}`, []string{`{"result":{"found":false}}`}},
	{"status", `{"version":1,"method":"status","params":{}}`, []string{`"result":{"pid":`, `"decisions":`}},
}

func TestAnswer(t *testing.T) {
	env := newTestEnv(t)
	s := env.server(t, func(msg string) { t.Errorf("logged: %s", msg) })
	for _, tt := range protocolCases {
		t.Run(tt.name, func(t *testing.T) {
			got := answerLine(t, s, strings.ReplaceAll(tt.line, "%P", env.project), Peer{Local: true})
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("answer %s\nlacks %s", got, w)
				}
			}
			// An error is never a decision, nor a decision an error.
			if strings.Contains(got, `"error"`) && strings.Contains(got, `"decision":"`) {
				t.Errorf("answer is both an error and a decision: %s", got)
			}
		})
	}
}

func TestSeedOversized(t *testing.T) {
	env := newTestEnv(t)
	s := env.server(t, nil)
	line := `{"version":1,"tool":"Bash","args":{"command":"` + strings.Repeat("a", hook.MaxMoatRequest) + `"},"cwd":"/"}`
	if got := answerLine(t, s, line, Peer{Local: true}); got != `{"error":"request longer than 1048576 bytes"}` {
		t.Errorf("answer %.200s", got)
	}
}

// Only a peer on the unix socket stops the daemon.
func TestShutdownOnlyLocal(t *testing.T) {
	env := newTestEnv(t)
	s := env.server(t, nil)
	line := `{"version":1,"method":"shutdown","params":{}}`
	if got := answerLine(t, s, line, Peer{}); !strings.Contains(got, `"error":"shutdown is only taken from the unix socket"`) {
		t.Errorf("TCP shutdown answered %s", got)
	}
	select {
	case <-s.Stopped():
		t.Fatal("stopped by a TCP peer")
	default:
	}
	if got := answerLine(t, s, line, Peer{Local: true}); got != `{"result":{}}` {
		t.Errorf("shutdown answered %s", got)
	}
	select {
	case <-s.Stopped():
	default:
		t.Fatal("not stopped")
	}
}

// newServer is New for a test, which fails when New refuses opts.
func newServer(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRegisteredMethods(t *testing.T) {
	env := newTestEnv(t)
	var got Peer
	s := newServer(t, Options{Service: env.local(), Methods: map[string]Method{
		"echo": func(_ context.Context, params json.RawMessage, p Peer) (any, error) {
			got = p
			return params, nil
		},
		"fail": func(context.Context, json.RawMessage, Peer) (any, error) {
			return nil, errors.New("it failed")
		},
	}})
	tests := []struct{ line, want string }{
		{`{"version":1,"method":"echo","params":{"a":1}}`, `{"result":{"a":1}}`},
		{`{"version":1,"method":"fail","params":{}}`, `{"error":"it failed"}`},
		{`{"version":1,"method":"nope","params":{}}`, `{"error":"unknown method \"nope\""}`},
	}
	for _, tt := range tests {
		if out := answerLine(t, s, tt.line, Peer{Local: true, PID: 42}); out != tt.want {
			t.Errorf("%s: got %s, want %s", tt.line, out, tt.want)
		}
	}
	if got != (Peer{Local: true, PID: 42}) {
		t.Errorf("the method saw peer %+v", got)
	}
	if _, err := New(Options{Service: env.local(), Methods: map[string]Method{decide.MethodDecide: nil}}); err == nil {
		t.Error("New took a method that replaces the service's decide")
	}
}

// boundService answers lookups with the environment it was bound for.
type boundService struct {
	decide.Service
	home string
}

func (b boundService) Lookup(context.Context, decide.Scope) (decide.Policy, error) {
	return decide.Policy{Name: "bound to " + b.home}, nil
}

func TestBind(t *testing.T) {
	env := newTestEnv(t)
	bind := func(p BindParams) (decide.Service, error) {
		e := p.Env
		if e["HOME"] == "" {
			return nil, errors.New("no HOME")
		}
		return boundService{home: e["HOME"]}, nil
	}
	s := newServer(t, Options{Service: env.local(), Bind: bind})
	sess := s.newSession(Peer{Local: true})
	lookup := `{"version":1,"method":"lookup","params":{"cwd":"/"}}`
	ask := func(line string) string {
		b, err := json.Marshal(s.answer(context.Background(), []byte(line), sess))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := ask(lookup); strings.Contains(got, "bound to") {
		t.Fatalf("an unbound connection was answered by a bound service: %s", got)
	}
	if got := ask(`{"version":1,"method":"bind","params":{"env":{}}}`); got != `{"error":"bind: no HOME"}` {
		t.Errorf("a refused binding answered %s", got)
	}
	if got := ask(`{"version":1,"method":"bind","params":{"env":{"HOME":"/other"}}}`); got != `{"result":{}}` {
		t.Fatalf("bind answered %s", got)
	}
	if got := ask(lookup); !strings.Contains(got, `"name":"bound to /other"`) {
		t.Errorf("after bind, lookup answered %s", got)
	}
	// Another connection is not bound by this one's request.
	if got := answerLine(t, s, lookup, Peer{Local: true}); strings.Contains(got, "bound to") {
		t.Errorf("a binding leaked to another connection: %s", got)
	}
	plain := newServer(t, Options{Service: env.local()})
	if got := answerLine(t, plain, `{"version":1,"method":"bind","params":{"env":{"HOME":"/h"}}}`, Peer{Local: true}); got != `{"error":"this daemon serves only its own environment"}` {
		t.Errorf("a daemon without Bind answered %s", got)
	}
}
