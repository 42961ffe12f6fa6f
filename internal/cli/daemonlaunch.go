package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/sandbox"
)

// methodSandboxCarve is the daemon's method that carves a launch's sandbox: params are a
// sandbox.CarveInput, the result a sandboxCarveResult.
const methodSandboxCarve = "sandbox_carve"

// sandboxCarveResult is the daemon's answer to methodSandboxCarve.
type sandboxCarveResult struct {
	Carving *sandbox.Carving `json:"carving"`
	// Kept reports that the carving came from the daemon's cache.
	Kept bool `json:"kept"`
}

// Bounds of a launch's exchange with the daemon: past them, the launch carves alone.
const (
	// launchDaemonWait covers a carving the daemon makes afresh (tens of milliseconds
	// on a large home) with room to spare.
	launchDaemonWait = 2 * time.Second
	// maxCarvingAnswer bounds the answer's line: one rule per path, thousands at most.
	maxCarvingAnswer = 32 << 20
)

// launchMethods are the daemon's methods for `moat launch`, registered by daemonRun.
func launchMethods() map[string]daemon.Method {
	return map[string]daemon.Method{methodSandboxCarve: sandboxCarveMethod(sandbox.NewCache(sandbox.DefaultCacheSize, nil))}
}

// sandboxCarveMethod carves a launch's sandbox from cache. Everything that shapes the
// carving (the section, the home and temporary directories, the workspace, the ABI,
// moat's log files) comes from the request, never from the daemon's own environment,
// whose HOME and XDG directories may be another shell's.
func sandboxCarveMethod(cache *sandbox.Cache) daemon.Method {
	return func(_ context.Context, params json.RawMessage, p daemon.Peer) (any, error) {
		if !p.Local {
			return nil, errors.New("sandbox_carve is only taken from the unix socket")
		}
		var in sandbox.CarveInput
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("params of %s: %w", methodSandboxCarve, err)
		}
		cv, kept, err := cache.Carve(in)
		if err != nil {
			return nil, err
		}
		return sandboxCarveResult{Carving: cv, Kept: kept}, nil
	}
}

// carveThroughDaemon asks the daemon reached by dial for the carving of in, and checks
// what it sends before the launch would enforce it.
func carveThroughDaemon(ctx context.Context, dial decide.Dial, in sandbox.CarveInput) (*sandboxCarveResult, error) {
	ctx, cancel := context.WithTimeout(ctx, launchDaemonWait)
	defer cancel()
	params, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(decide.WireRequest{Version: decide.WireVersion, Method: methodSandboxCarve, Params: params})
	if err != nil {
		return nil, err
	}
	conn, err := dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoDaemon, err)
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		conn.SetDeadline(deadline)
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("writing to the daemon: %w", err)
	}
	answer, tooLong, err := hook.ReadLine(bufio.NewReader(conn), maxCarvingAnswer)
	if tooLong {
		return nil, errors.New("the daemon's answer is too long")
	}
	if err != nil && len(answer) == 0 {
		return nil, fmt.Errorf("reading the daemon's answer: %w", err)
	}
	var resp decide.WireResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		return nil, fmt.Errorf("the daemon's answer: %w", err)
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("the daemon answered: %s", resp.Error)
	}
	var res sandboxCarveResult
	dec := json.NewDecoder(bytes.NewReader(resp.Result))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("the daemon's carving: %w", err)
	}
	if err := res.Carving.Validate(in.ABI); err != nil {
		return nil, fmt.Errorf("the daemon's carving: %w", err)
	}
	return &res, nil
}

// errNoDaemon is a daemon that does not answer: the launch carves alone, silently.
var errNoDaemon = errors.New("no daemon")

// launchCarving carves the sandbox of a launch: through the daemon when one runs, else,
// or when it fails or answers badly, here, exactly as without a daemon. A daemon that
// misbehaves costs time, never a weaker sandbox.
func (a *app) launchCarving(o sandbox.Options) (*sandbox.Carving, error) {
	if paths, err := a.daemonPaths(false); err == nil {
		res, err := carveThroughDaemon(context.Background(), decide.DialUnix(paths.Socket), o.CarveInput())
		if err == nil {
			return res.Carving, nil
		}
		if !errors.Is(err, errNoDaemon) {
			fmt.Fprintf(a.env.Stderr, "moat: warning: the daemon could not carve the sandbox (%v); carving it here\n", err)
		}
	}
	return sandbox.Carve(o)
}
