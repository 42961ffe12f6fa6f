// Package hookrelay is the thin hook client (moat-hook): it relays an agent's hook
// event to the user's moat daemon and passes its answer on, and when the daemon cannot
// answer it runs `moat hook` with the event already read, so that no call goes ahead
// without a decision. It links no CLI framework, YAML, HTTP or decision code: only the
// standard library, golang.org/x/sys and moat's light packages.
package hookrelay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/moatdev/moat/internal/daemon/rundir"
	"github.com/moatdev/moat/internal/dirs"
)

// Method is the daemon's method that answers a hook event (see internal/cli,
// daemonhook.go).
const Method = "hook"

// wireVersion is the version of the daemon's protocol the client speaks.
const wireVersion = 1

// Request is one hook event for the daemon: what `moat hook AGENT ARGS` would read in
// the client's process.
type Request struct {
	Agent string `json:"agent"`
	// Args are the hook command's arguments after the agent (--policy FILE).
	Args    []string `json:"args"`
	Payload []byte   `json:"payload"`
	// Cwd is the client's working directory, absolute.
	Cwd string `json:"cwd"`
	// Env holds the variables of daemonenv.Service and daemonenv.Hook (CaptureHook).
	Env map[string]string `json:"env"`
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
	// CheckPeer checks that the server is the user's own; nil is the kernel's word
	// (SO_PEERCRED, LOCAL_PEERCRED) compared with this process's uid.
	CheckPeer func(*net.UnixConn) error
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

// wireRequest and wireResponse are one request and one response line of the daemon's
// protocol.
type wireRequest struct {
	Version int      `json:"version"`
	Method  string   `json:"method"`
	Params  *Request `json:"params"`
}

type wireResponse struct {
	Result *wireAnswer `json:"result"`
	Error  string      `json:"error"`
}

// wireAnswer has pointers so that a field the daemon left out is told from a zero one.
type wireAnswer struct {
	Stdout *[]byte `json:"stdout"`
	Stderr *string `json:"stderr"`
	Code   *int    `json:"code"`
}

// Relay sends req to the daemon and returns its answer. Any error (no daemon, a server
// of another user, a refusal, a late, malformed or impossible answer) means the daemon
// did not answer, and the caller must decide without it.
func (c Client) Relay(req Request) (Answer, error) {
	dialTimeout := c.DialTimeout
	if dialTimeout <= 0 {
		dialTimeout = DefaultDialTimeout
	}
	conn, err := net.DialTimeout("unix", c.Socket, dialTimeout)
	if err != nil {
		return Answer{}, fmt.Errorf("connecting to the daemon: %w", err)
	}
	defer conn.Close()
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return Answer{}, errors.New("connecting to the daemon: not a unix socket")
	}
	check := c.CheckPeer
	if check == nil {
		check = checkServerUID
	}
	if err := check(uc); err != nil {
		return Answer{}, fmt.Errorf("the daemon's socket: %w", err)
	}
	if err := conn.SetDeadline(time.Now().Add(c.Wait)); err != nil {
		return Answer{}, err
	}
	line, err := json.Marshal(wireRequest{Version: wireVersion, Method: Method, Params: &req})
	if err != nil {
		return Answer{}, fmt.Errorf("encoding the request: %w", err)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return Answer{}, fmt.Errorf("sending the request: %w", err)
	}
	return readAnswer(bufio.NewReader(io.LimitReader(conn, maxAnswer+1)))
}

// readAnswer reads and checks one response line.
func readAnswer(r *bufio.Reader) (Answer, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		if len(line) > maxAnswer {
			return Answer{}, fmt.Errorf("the daemon's answer is longer than %d bytes", maxAnswer)
		}
		return Answer{}, fmt.Errorf("reading the daemon's answer: %w", err)
	}
	var resp wireResponse
	if err := json.Unmarshal(bytes.TrimSpace(line), &resp); err != nil {
		return Answer{}, fmt.Errorf("the daemon's answer: %w", err)
	}
	switch {
	case resp.Error != "":
		return Answer{}, fmt.Errorf("the daemon: %s", resp.Error)
	case resp.Result == nil:
		return Answer{}, errors.New("the daemon's answer has no result")
	case resp.Result.Stdout == nil || resp.Result.Stderr == nil || resp.Result.Code == nil:
		return Answer{}, errors.New("the daemon's answer lacks stdout, stderr or code")
	case !hookCodes[*resp.Result.Code]:
		return Answer{}, fmt.Errorf("the daemon answered exit status %d, which moat hook never does", *resp.Result.Code)
	}
	return Answer{Stdout: *resp.Result.Stdout, Stderr: *resp.Result.Stderr, Code: *resp.Result.Code}, nil
}
