// Package hookrelay is the thin hook client (moat-hook): it relays an agent's hook
// event to the user's moat daemon and passes its answer on, and when the daemon cannot
// answer it runs `moat hook` with the event already read, so that no call goes ahead
// without a decision. It links no CLI framework, YAML, HTTP or decision code: only the
// standard library, golang.org/x/sys and moat's light packages.
package hookrelay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/daemon/rundir"
	"github.com/moatdev/moat/internal/dirs"
)

// Method is the daemon's method that answers a hook event (see internal/cli,
// daemonhook.go).
const Method = "hook"

// Request is one hook event for the daemon: what `moat hook AGENT ARGS` would read in
// the client's process.
type Request struct {
	Agent string
	// Args are the hook command's arguments after the agent (--policy FILE).
	Args    []string
	Payload []byte
	// Cwd is the client's working directory, absolute.
	Cwd string
	// Env holds the variables of daemonenv.Service and daemonenv.Hook (CaptureHook).
	Env map[string]string
	// Started is when the client began reading the agent's event, for the daemon's
	// measure of the hook's round trip; zero leaves it out.
	Started time.Time
}

// Answer is what `moat hook` would have written and its exit status.
type Answer struct {
	Stdout []byte
	Stderr string
	Code   int
}

// hookCodes are the exit statuses `moat hook` answers with: 0, and 2 (a block, a
// failure or a bad invocation). Any other is not an answer of moat hook's.
var hookCodes = map[int]bool{0: true, 2: true}

// maxAnswer bounds the daemon's answer line: an answer holds the agent's reply and a
// reason, far less than the payload it answers.
const maxAnswer = 32 << 20

// Client relays hook events to one daemon socket.
type Client struct {
	// Socket is the daemon's unix socket.
	Socket string
	// DialTimeout bounds connecting; zero is DefaultDialTimeout.
	DialTimeout time.Duration
	// Wait bounds the whole exchange once connected (see AnswerWait).
	Wait time.Duration
	// CheckPeer checks that the server at the other end of the connected socket fd is
	// the user's own; nil is the kernel's word (SO_PEERCRED, LOCAL_PEERCRED) compared
	// with this process's uid.
	CheckPeer func(fd int) error
}

// DefaultDialTimeout is how long the client tries to connect: a daemon that runs
// accepts at once, and one that does not must not delay the fallback.
const DefaultDialTimeout = 250 * time.Millisecond

// Locate returns the socket of the user's daemon as getenv describes the user (HOME,
// XDG_RUNTIME_DIR, TMPDIR), after checking that its directory is the user's own and
// 0700, exactly as the daemon made it.
func Locate(getenv func(string) string) (string, error) {
	d, err := dirs.FromEnv(getenv)
	if err != nil {
		return "", err
	}
	p, err := rundir.Locate(d)
	if err != nil {
		return "", err
	}
	return p.Socket, nil
}

// The params of a request line are written by encodeRequest: the payload in one of two
// forms, "payload_json", the event's bytes as they are when they are one JSON object on
// one line (an agent's event, nearly always), or "payload", base64 of any bytes (daemons
// before payload_json accept only this one, and refuse the other as an unknown field, on
// which the client decides without them); then agent, args, cwd and env (appendParams).

// Relay sends req to the daemon and returns its answer. Any error (no daemon, a server
// of another user, a refusal, a late, malformed or impossible answer) means the daemon
// did not answer, and the caller must decide without it.
func (c Client) Relay(req Request) (Answer, error) {
	line, err := encodeRequest(req)
	if err != nil {
		return Answer{}, err
	}
	resp, err := c.exchange(line)
	if err != nil {
		return Answer{}, err
	}
	return parseAnswer(resp)
}

// requestHead opens every request line: the version of the daemon's protocol the client
// speaks (decide.WireVersion, which the client does not link) and the method.
const requestHead = `{"version":1,"method":"hook","params":{`

// encodeRequest is req's request line, newline included, built in one buffer: the
// payload is copied once, verbatim when it can be (rawPayload), and never re-encoded
// by a JSON encoder, which would compact it and escape HTML, changing the bytes moat
// hook reads.
func encodeRequest(req Request) ([]byte, error) {
	raw := rawPayload(req.Payload)
	// The head, the payload's field, a comma, the other params (their strings, unescaped,
	// and the names around them), "}}\n".
	size := len(requestHead) + len(`,"agent":"","args":[],"cwd":"","env":{},"started":-9223372036854775808}}`) + 1 + len(req.Agent) + len(req.Cwd)
	for _, a := range req.Args {
		size += len(a) + 3
	}
	for n, v := range req.Env {
		size += len(n) + len(v) + 6
	}
	if raw {
		size += len(`"payload_json":`) + len(req.Payload)
	} else {
		size += len(`"payload":""`) + base64.StdEncoding.EncodedLen(len(req.Payload))
	}
	line := make([]byte, 0, size)
	line = append(line, requestHead...)
	if raw {
		line = append(line, `"payload_json":`...)
		line = append(line, req.Payload...)
	} else {
		line = append(line, `"payload":"`...)
		line = base64.StdEncoding.AppendEncode(line, req.Payload)
		line = append(line, '"')
	}
	line = append(line, ',')
	line = appendParams(line, req)
	return append(line, "}}\n"...), nil
}

// rawPayload reports whether payload can travel as it is, inside the request line: one
// JSON object, valid, with no line break (which would end the line) and nothing around
// it (which the daemon's decoder would drop). Invalid UTF-8 is left to base64: the
// daemon refuses it in a request line.
func rawPayload(payload []byte) bool {
	n := len(payload)
	return n >= 2 && payload[0] == '{' && payload[n-1] == '}' &&
		bytes.IndexByte(payload, '\n') < 0 && bytes.IndexByte(payload, '\r') < 0 &&
		utf8.Valid(payload) && json.Valid(payload)
}

// parseAnswer reads and checks one response line: {"result":{"stdout":BASE64,
// "stderr":TEXT,"code":N}} or {"error":TEXT}. Its objects are read as maps of raw
// values rather than into structs, which encoding/json would first analyse by
// reflection, a cost paid again by every process; a field that is absent or null is
// told from a zero one.
func parseAnswer(line []byte) (Answer, error) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(line), &resp); err != nil {
		return Answer{}, fmt.Errorf("the daemon's answer: %w", err)
	}
	if raw, ok := present(resp, "error"); ok {
		var msg string
		if err := json.Unmarshal(raw, &msg); err != nil {
			return Answer{}, fmt.Errorf("the daemon's answer: %w", err)
		}
		if msg != "" {
			return Answer{}, fmt.Errorf("the daemon: %s", msg)
		}
	}
	raw, ok := present(resp, "result")
	if !ok {
		return Answer{}, errors.New("the daemon's answer has no result")
	}
	var result map[string]json.RawMessage
	if err := json.Unmarshal(raw, &result); err != nil {
		return Answer{}, fmt.Errorf("the daemon's answer: %w", err)
	}
	stdout, okOut := present(result, "stdout")
	stderr, okErr := present(result, "stderr")
	code, okCode := present(result, "code")
	if !okOut || !okErr || !okCode {
		return Answer{}, errors.New("the daemon's answer lacks stdout, stderr or code")
	}
	var ans Answer
	for _, f := range []struct {
		raw json.RawMessage
		v   any
	}{{stdout, &ans.Stdout}, {stderr, &ans.Stderr}, {code, &ans.Code}} {
		if err := json.Unmarshal(f.raw, f.v); err != nil {
			return Answer{}, fmt.Errorf("the daemon's answer: %w", err)
		}
	}
	if !hookCodes[ans.Code] {
		return Answer{}, fmt.Errorf("the daemon answered exit status %d, which moat hook never does", ans.Code)
	}
	return ans, nil
}

// present returns the value of the field name in m, unless it is absent or null.
func present(m map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}
