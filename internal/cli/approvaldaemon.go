package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/moatdev/moat/internal/approval"
	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/proc"
)

// The daemon's methods for the approval queue, registered by daemonRun.
const (
	methodApprovals = "approvals"
	methodApprove   = "approve"
	methodDeny      = "deny"
)

// approvalRequest is the params of the approval methods.
type approvalRequest struct {
	// Env is the client's environment (daemonenv.Capture): whose queue it is.
	Env   map[string]string `json:"env"`
	ID    string            `json:"id,omitempty"`
	State approval.State    `json:"state,omitempty"`
	// Token is the dashboard's token, for an answer from the dashboard rather than a
	// terminal (issue 22: no token source exists yet, so none is accepted).
	Token string `json:"token,omitempty"`
}

// approvalDaemonWait bounds an exchange with the daemon about approvals.
const approvalDaemonWait = 5 * time.Second

// approvalThroughDaemon calls method with req (the client's environment added) on the
// user's daemon, decoding its result into result; errNoDaemon when none runs.
func (a *app) approvalThroughDaemon(ctx context.Context, method string, req approvalRequest, result any) error {
	if a.env.Getenv(envDaemon) == "off" {
		return errNoDaemon
	}
	paths, err := a.daemonPaths(false)
	if err != nil {
		return errNoDaemon
	}
	if _, err := os.Lstat(paths.Socket); err != nil {
		return errNoDaemon
	}
	if req.State == approval.Denied {
		method = methodDeny
	}
	req.Env = daemonenv.Capture(a.env.Getenv)
	ctx, cancel := context.WithTimeout(ctx, approvalDaemonWait)
	defer cancel()
	answer, err := callDaemon[json.RawMessage](ctx, decide.DialUnix(paths.Socket), method, req, 4<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(*answer, result); err != nil {
		return fmt.Errorf("the daemon's answer: %w", err)
	}
	return nil
}

// decodeApprovalRequest reads the params of an approval method.
func decodeApprovalRequest(method string, params json.RawMessage) (approvalRequest, error) {
	var req approvalRequest
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("params of %s: %w", method, err)
	}
	return req, nil
}

// daemonApprovalsMethod lists the queue of the client's environment.
func (a *app) daemonApprovalsMethod(services *daemonServices) daemon.Method {
	return func(_ context.Context, params json.RawMessage, _ daemon.Peer) (any, error) {
		req, err := decodeApprovalRequest(methodApprovals, params)
		if err != nil {
			return nil, err
		}
		ds, err := services.forEnv(req.Env)
		if err != nil {
			return nil, err
		}
		d, err := ds.app.dirs()
		if err != nil {
			return nil, err
		}
		list, err := a.approvalQueue().Store(d).List()
		if list == nil {
			list = []approval.Listed{}
		}
		return list, err
	}
}

// daemonAnswerMethod answers an approval (approve, or deny) for the peer, when the peer
// may: not a process of a guarded agent's tree, and one with a terminal (or holding the
// dashboard's token). Answers and refusals go to the environment's audit log.
func (a *app) daemonAnswerMethod(services *daemonServices, method string) daemon.Method {
	return func(_ context.Context, params json.RawMessage, p daemon.Peer) (any, error) {
		req, err := decodeApprovalRequest(method, params)
		if err != nil {
			return nil, err
		}
		if (method == methodDeny) != (req.State == approval.Denied) || (req.State != approval.Denied && !req.State.Granted()) {
			return nil, fmt.Errorf("params of %s: state %q", method, req.State)
		}
		ds, err := services.forEnv(req.Env)
		if err != nil {
			return nil, err
		}
		d, err := ds.app.dirs()
		if err != nil {
			return nil, err
		}
		who, refused := approval.CheckApprover(p.PID, proc.Lineage, dashboardToken(req.Token))
		write := ds.audit.write
		if ds.rec != nil {
			write = ds.rec.write
		}
		l, warn, err := answerAs(a.approvalQueue().Store(d), who, refused, req.ID, req.State, write)
		if warn != nil {
			a.daemonLog("warning: " + warn.Error())
		}
		if err != nil {
			return nil, err
		}
		return l, nil
	}
}

// dashboardToken reports whether token is the dashboard's. No token source exists yet
// (issue 22 brings the dashboard), so none is.
func dashboardToken(token string) bool { return false }
