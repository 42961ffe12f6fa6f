package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hookcase"
)

// hookDaemon is a daemon's services and hook method for the environment vars, as
// daemonRun builds them, with the daemon's log in log.
func hookDaemon(t testing.TB, vars map[string]string, dir string) (*daemonServices, daemon.Method, *bytes.Buffer) {
	t.Helper()
	log := &bytes.Buffer{}
	a := &app{env: Env{
		Stdin: strings.NewReader(""), Stdout: log, Stderr: log,
		Getenv:     func(k string) string { return vars[k] },
		Getwd:      func() (string, error) { return "/", nil },
		Now:        func() time.Time { return goldenNow },
		Executable: func() (string, error) { return filepath.Join(dir, ".local", "bin", "moat"), nil },
	}}
	services := newDaemonServices(a, decide.Options{Warn: func(msg string) { log.WriteString("warning: " + msg + "\n") }})
	// The client is the moat-hook beside the daemon's moat, whatever process the test
	// names as the peer.
	services.clientExe = func(int) (string, error) { return filepath.Join(dir, ".local", "bin", "moat-hook"), nil }
	t.Cleanup(services.close)
	return services, a.daemonHookMethod(services), log
}

// TestDaemonHookGoldens answers every hook golden case through the daemon's hook
// method, as moat-hook sends it, and compares the answer and the records with the
// golden, which TestHookGoldens holds to moat hook's answer in process. An event that is
// one JSON object is sent in both forms: base64, and as it is (payload_json, with the
// txtar's final line break trimmed, which moat hook's decoder skips as whitespace).
func TestDaemonHookGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hook", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/hook/*.txtar (%v)", err)
	}
	for _, file := range files {
		_, c, err := hookcase.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []string{"base64", "json"} {
			t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar")+"/"+form, func(t *testing.T) {
				t.Parallel()
				h, err := c.Prepare(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				vars := map[string]string{}
				for _, kv := range c.Environ(h) {
					k, v, _ := strings.Cut(kv, "=")
					vars[k] = v
				}
				args := c.ExpandedArgs(h)
				if len(args) < 2 || args[0] != "hook" {
					t.Fatalf("not a hook case: %q", args)
				}
				hp := hookParams{Agent: args[1], Args: args[2:], Payload: []byte(h.Expand(c.Stdin)), Cwd: h.Project, Env: daemonenv.CaptureHook(func(k string) string { return vars[k] })}
				if form == "json" {
					obj := bytes.TrimSuffix(hp.Payload, []byte("\n"))
					if len(obj) == 0 || obj[0] != '{' || !json.Valid(obj) || bytes.ContainsAny(obj, "\r\n") {
						t.Skip("not one JSON object on one line")
					}
					hp.Payload, hp.PayloadJSON = nil, obj
				}
				// The daemon runs in an environment of its own; the client's is relayed.
				services, method, log := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, h.Dir)
				params, err := json.Marshal(hp)
				if err != nil {
					t.Fatal(err)
				}
				res, err := method(context.Background(), params, daemon.Peer{Local: true, PID: os.Getpid()})
				if err != nil {
					t.Fatalf("hook method: %v", err)
				}
				// Through the wire, as the client reads it.
				b, err := json.Marshal(res)
				if err != nil {
					t.Fatal(err)
				}
				var got hookResult
				if err := json.Unmarshal(b, &got); err != nil {
					t.Fatal(err)
				}
				services.close() // the records are written
				state, err := h.State()
				if err != nil {
					t.Fatal(err)
				}
				if d := c.Diff(h.Unexpand(string(got.Stdout)), h.Unexpand(got.Stderr), got.Code, state); d != "" {
					t.Errorf("%s through the daemon:\n%s\ndaemon log:\n%s", file, d, log)
				}
			})
		}
	}
}

// TestDaemonHookRequests: what the daemon answers with the hook's own answer, and what
// it refuses (the client then decides in its own process).
func TestDaemonHookRequests(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	client := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "CLAUDE_PROJECT_DIR": project}
	payload := []byte(`{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`)
	params := func(edit func(*hookParams)) json.RawMessage {
		hp := hookParams{Agent: "claude-code", Payload: payload, Cwd: project, Env: client}
		if edit != nil {
			edit(&hp)
		}
		b, err := json.Marshal(hp)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name       string
		params     json.RawMessage
		peer       daemon.Peer
		wantErr    string // the request is refused
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "deny", params: params(nil), peer: daemon.Peer{Local: true}, wantCode: 0, wantStdout: `"permissionDecision":"deny"`},
		{name: "allow, nothing on stdout", params: params(func(hp *hookParams) {
			hp.Payload = []byte(`{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
		}), peer: daemon.Peer{Local: true}, wantCode: 0},
		{name: "unknown agent", params: params(func(hp *hookParams) { hp.Agent = "vim" }), peer: daemon.Peer{Local: true},
			wantCode: 2, wantStderr: `moat: no hook for agent "vim"`},
		{name: "bad flag", params: params(func(hp *hookParams) { hp.Args = []string{"--nope"} }), peer: daemon.Peer{Local: true},
			wantCode: 2, wantStderr: "unknown flag: --nope"},
		{name: "empty payload", params: params(func(hp *hookParams) { hp.Payload = nil }), peer: daemon.Peer{Local: true},
			wantCode: 2, wantStdout: `"deny"`},
		{name: "deny, the event as JSON", params: params(func(hp *hookParams) { hp.Payload, hp.PayloadJSON = nil, payload }), peer: daemon.Peer{Local: true},
			wantCode: 0, wantStdout: `"permissionDecision":"deny"`},
		{name: "allow, the event as JSON", params: params(func(hp *hookParams) {
			hp.Payload = nil
			hp.PayloadJSON = json.RawMessage(`{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
		}), peer: daemon.Peer{Local: true}, wantCode: 0},
		{name: "both forms of the event", params: params(func(hp *hookParams) { hp.PayloadJSON = payload }), peer: daemon.Peer{Local: true}, wantErr: "both payload and payload_json"},
		{name: "payload_json not JSON", params: json.RawMessage(`{"agent":"claude-code","cwd":"/","payload_json":{"a":}}`), peer: daemon.Peer{Local: true}, wantErr: "params of hook"},
		{name: "tcp peer", params: params(nil), peer: daemon.Peer{}, wantErr: "unix socket only"},
		{name: "no params", params: nil, peer: daemon.Peer{Local: true}, wantErr: "needs params"},
		{name: "not an object", params: json.RawMessage(`[1]`), peer: daemon.Peer{Local: true}, wantErr: "params of hook"},
		{name: "unknown field", params: json.RawMessage(`{"agent":"claude-code","cwd":"/","stdin":"x"}`), peer: daemon.Peer{Local: true}, wantErr: `unknown field "stdin"`},
		{name: "no agent", params: params(func(hp *hookParams) { hp.Agent = "" }), peer: daemon.Peer{Local: true}, wantErr: "no agent"},
		{name: "relative cwd", params: params(func(hp *hookParams) { hp.Cwd = "project" }), peer: daemon.Peer{Local: true}, wantErr: "not absolute"},
		{name: "another variable", params: params(func(hp *hookParams) { hp.Env = map[string]string{"HOME": home, "AWS_SECRET_ACCESS_KEY": "x"} }),
			peer: daemon.Peer{Local: true}, wantErr: "AWS_SECRET_ACCESS_KEY"},
	}
	_, method, _ := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, home)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := method(context.Background(), tt.params, tt.peer)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q (result %+v)", err, tt.wantErr, res)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := res.(hookResult)
			// The client takes a null field for a missing answer.
			if b, err := json.Marshal(got); err != nil || strings.Contains(string(b), "null") {
				t.Errorf("on the wire: %s (%v)", b, err)
			}
			if got.Code != tt.wantCode || !strings.Contains(string(got.Stdout), tt.wantStdout) || !strings.Contains(got.Stderr, tt.wantStderr) {
				t.Errorf("exit %d, stdout %s, stderr %q; want exit %d, stdout with %q, stderr with %q", got.Code, got.Stdout, got.Stderr, tt.wantCode, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// A daemon serving maxDaemonEnvs environments refuses one more: its client decides in
// its own process.
func TestDaemonHookRefusedEnvironment(t *testing.T) {
	_, method, _ := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, t.TempDir())
	payload := []byte(`{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
	for i := range maxDaemonEnvs + 1 {
		b, err := json.Marshal(hookParams{Agent: "claude-code", Payload: payload, Cwd: "/", Env: map[string]string{"HOME": t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = method(context.Background(), b, daemon.Peer{Local: true})
		if i < maxDaemonEnvs && err != nil {
			t.Fatalf("environment %d: %v", i+1, err)
		}
		if i == maxDaemonEnvs && (err == nil || !strings.Contains(err.Error(), "environments already")) {
			t.Fatalf("environment %d: err %v, want a refusal", i+1, err)
		}
	}
}

// TestDaemonHookInvocations: every way of invoking the hook is answered exactly as the
// hook command answers it (stdout, stderr, exit status), by Main and by the daemon,
// whether they take the plain path (an agent alone) or the command's (flags, help,
// unknown agents).
func TestDaemonHookInvocations(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	client := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "CLAUDE_PROJECT_DIR": project}
	payload := `{"session_id":"s","cwd":"` + project + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`
	type answer struct {
		stdout, stderr string
		code           int
	}
	inProcess := func(run func(*app, []string) int, args []string) answer {
		var stdout, stderr bytes.Buffer
		a := &app{env: Env{
			Stdin: strings.NewReader(payload), Stdout: &stdout, Stderr: &stderr,
			Getenv:     func(k string) string { return client[k] },
			Getwd:      func() (string, error) { return project, nil },
			Now:        func() time.Time { return goldenNow },
			Executable: func() (string, error) { return filepath.Join(home, ".local", "bin", "moat"), nil },
		}}
		code := run(a, append([]string{"hook"}, args...))
		return answer{stdout.String(), stderr.String(), code}
	}
	command := func(a *app, args []string) int { return a.execute(context.Background(), newRoot(a, args), args) }
	main := func(a *app, args []string) int { return Main(args, a.env) }
	tests := [][]string{
		{"claude-code"},
		{"cursor"},
		{"no-such-agent"},
		{"claude-code", "--policy", filepath.Join(home, "missing.yaml")},
		{"claude-code", "--no-such-flag"},
		{"claude-code", "extra"},
		{"--help"},
		{"-h"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want := inProcess(command, args)
			if got := inProcess(main, args); got != want {
				t.Errorf("Main answers %+v\nthe command %+v", got, want)
			}
			_, method, log := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, home)
			params, err := json.Marshal(hookParams{Agent: args[0], Args: args[1:], PayloadJSON: json.RawMessage(payload), Cwd: project, Env: client})
			if err != nil {
				t.Fatal(err)
			}
			res, err := method(context.Background(), params, daemon.Peer{Local: true, PID: os.Getpid()})
			if err != nil {
				t.Fatalf("hook method: %v", err)
			}
			r := res.(hookResult)
			if got := (answer{string(r.Stdout), r.Stderr, r.Code}); got != want {
				t.Errorf("the daemon answers %+v\nthe command %+v\ndaemon log:\n%s", got, want, log)
			}
		})
	}
}
