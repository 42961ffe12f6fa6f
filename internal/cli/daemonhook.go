package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/events"
	"github.com/moatdev/moat/internal/proc"
)

// daemonMethodHook is the daemon's method that answers a thin hook client (moat-hook):
// the agent's event, answered exactly as `moat hook AGENT` would have answered it in the
// client's own process.
const daemonMethodHook = "hook"

// hookParams are the params of daemonMethodHook: what the client's `moat hook` would
// have read (its arguments after the agent, its standard input, working directory and
// environment: daemonenv.Service's and daemonenv.Hook's variables).
type hookParams struct {
	Agent string   `json:"agent"`
	Args  []string `json:"args"`
	// The event comes in one of two forms. PayloadJSON holds its bytes as they are, a
	// JSON value (the client sends an event that is one JSON object on one line so,
	// which is nearly every event, and saves encoding and decoding base64); Payload holds
	// any bytes, in base64 (every other event, and every client before payload_json).
	// A request with both is refused.
	Payload     []byte            `json:"payload,omitempty"`
	PayloadJSON json.RawMessage   `json:"payload_json,omitempty"`
	Cwd         string            `json:"cwd"`
	Env         map[string]string `json:"env"`
	// Started is when the client began reading the agent's event, in Unix nanoseconds
	// (0 from clients that do not say): the round trip is measured from it.
	Started int64 `json:"started,omitempty"`
}

// hookResult is the answer of daemonMethodHook: what `moat hook` would have written and
// its exit status, which the client passes on as its own.
type hookResult struct {
	Stdout []byte `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

// daemonHookMethod serves daemonMethodHook with the service of each client's
// environment. A request it cannot run at all (malformed, an environment the daemon does
// not serve) is an error, on which the client decides in its own process; every failure
// once the hook runs is the hook's own answer, as in process.
func (a *app) daemonHookMethod(services *daemonServices) daemon.Method {
	return func(ctx context.Context, raw json.RawMessage, p daemon.Peer) (any, error) {
		if !p.Local {
			return nil, errors.New("hook is served on the unix socket only")
		}
		if err := services.sameClientMoat(p.PID); err != nil {
			return nil, err
		}
		hp, err := decodeHookParams(raw)
		if err != nil {
			return nil, err
		}
		env, err := daemonenv.SplitHook(hp.Env)
		if err != nil {
			return nil, err
		}
		ds, err := services.forEnv(env)
		if err != nil {
			return nil, err
		}
		res := ds.answerHook(ctx, hp, p.PID, services.workers)
		ds.roundTrip(hp)
		return res, nil
	}
}

// maxRoundTrip bounds the round trips measured: a client whose clock is not the
// daemon's (another host's, never this socket's) or that says nonsense is not counted.
const maxRoundTrip = 10 * time.Minute

// roundTrip publishes the round trip of the hook call hp answered: from the client's
// reading the event to the daemon's answer, which the client then writes out. The
// client's start and exec, and its writing, are not in it; everything the daemon and
// the socket cost is.
func (ds *daemonService) roundTrip(hp hookParams) {
	if ds.rec == nil || hp.Started <= 0 {
		return
	}
	d := time.Since(time.Unix(0, hp.Started))
	if d <= 0 || d > maxRoundTrip {
		return
	}
	ds.rec.bus.Publish(context.Background(), events.RoundTrip{Agent: hp.Agent, Duration: d})
}

// decodeHookParams reads the params of daemonMethodHook, every field known.
func decodeHookParams(raw json.RawMessage) (hookParams, error) {
	var hp hookParams
	if len(raw) == 0 {
		return hp, errors.New("hook needs params")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hp); err != nil {
		return hp, fmt.Errorf("params of hook: %w", err)
	}
	switch {
	case hp.Payload != nil && hp.PayloadJSON != nil:
		return hp, errors.New("params of hook: both payload and payload_json")
	case hp.Agent == "":
		return hp, errors.New("params of hook: no agent")
	case !filepath.IsAbs(hp.Cwd):
		return hp, fmt.Errorf("params of hook: the working directory %q is not absolute", hp.Cwd)
	}
	if hp.PayloadJSON != nil {
		// Decoding checked that it is one JSON value; its bytes are moat hook's input.
		hp.Payload, hp.PayloadJSON = hp.PayloadJSON, nil
	}
	return hp, nil
}

// answerHook runs `moat hook AGENT ARGS` as the client's process would have: the
// daemon's app seeing only the client's environment, stdin, working directory and
// process tree (the client's parent is the agent), deciding with this environment's
// live service. A timeout is recorded after the answer is sent, as the client's own
// process records it after writing its answer.
func (ds *daemonService) answerHook(ctx context.Context, hp hookParams, pid int, w *workers) hookResult {
	a := *ds.app
	var stdout, stderr bytes.Buffer
	env, cwd := hp.Env, hp.Cwd
	a.env.Stdin = bytes.NewReader(hp.Payload)
	a.env.Stdout, a.env.Stderr = &stdout, &stderr
	a.env.Getenv = func(name string) string { return env[name] }
	a.env.Getwd = func() (string, error) { return cwd, nil }
	var finish func()
	a.hook = hookHost{
		service:     ds.svc,
		ancestors:   func(n int) []proc.Info { return proc.AncestorsOf(pid, n) },
		deferFinish: func(f func()) { finish = f },
		spawn:       w.run,
	}
	args := append([]string{hp.Agent}, hp.Args...)
	var code int
	if plainHookArgs(args) {
		// The client names the agent alone, as the agents' settings do: the command's
		// own work, without building and parsing a cobra command per request.
		code = a.exitStatus(a.runHookCommand(ctx, hp.Agent, ""))
	} else {
		// The root with the hook command only, as Main builds it for `moat hook`, less
		// the completion command cobra would add to it at every request (its arguments
		// always name hook, so it could never run).
		root := bareRoot(&a)
		root.CompletionOptions.DisableDefaultCmd = true
		root.AddCommand(newHookCmd(&a))
		code = a.execute(ctx, root, append([]string{"hook"}, args...))
	}
	// Stdout is never null on the wire, where the client reads a missing answer as none.
	res := hookResult{Stdout: append([]byte{}, stdout.Bytes()...), Stderr: stderr.String(), Code: code}
	if finish != nil {
		go finish()
	}
	return res
}
