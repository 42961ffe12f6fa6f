package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
)

// daemonError is an error the daemon answered with, as it said it.
type daemonError struct{ msg string }

func (e *daemonError) Error() string { return e.msg }

// callDaemon sends one request of method with params to the daemon reached by dial, on a
// connection of its own, and returns the result it answers: one pass over the answer, a
// line of at most maxAnswer bytes, decoded strictly (a daemon that answers other fields
// is another moat, and its answer is not taken). errNoDaemon is wrapped when the daemon
// cannot be reached; an error it answers is a *daemonError.
func callDaemon[R any](ctx context.Context, dial decide.Dial, method string, params any, maxAnswer int) (*R, error) {
	line, err := json.Marshal(struct {
		Version int    `json:"version"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{decide.WireVersion, method, params})
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
	answer, tooLong, err := hook.ReadLine(bufio.NewReader(conn), maxAnswer)
	if tooLong {
		return nil, errors.New("the daemon's answer is too long")
	}
	if err != nil && len(answer) == 0 {
		return nil, fmt.Errorf("reading the daemon's answer: %w", err)
	}
	// A decide.WireResponse whose result is R.
	var resp struct {
		Result *R     `json:"result"`
		Error  string `json:"error"`
		Code   string `json:"code"`
	}
	dec := json.NewDecoder(bytes.NewReader(answer))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil {
		return nil, fmt.Errorf("the daemon's answer: %w", err)
	}
	if resp.Error != "" {
		return nil, &daemonError{resp.Error}
	}
	if resp.Result == nil {
		return nil, errors.New("the daemon's answer has no result")
	}
	return resp.Result, nil
}
