package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/moatdev/moat/internal/approval"
)

// Approvals is the approval queue of the dashboard's user. Answers are given as the
// dashboard (approval.Approver.How "dashboard") and recorded like any other.
type Approvals interface {
	List(ctx context.Context) ([]approval.Listed, error)
	Answer(ctx context.Context, id string, state approval.State) (approval.Listed, error)
	// Always answers id for good as moat approve ID --always does: a rule of the user's
	// own policy allowing exactly its calls, and the waiting call let through once.
	// With dryRun it only says what it would write.
	Always(ctx context.Context, id string, dryRun bool) (AlwaysResult, error)
}

// AlwaysResult is what answering an approval for good wrote, or would write.
type AlwaysResult struct {
	DryRun bool `json:"dry_run"`
	// File is the user's policy, where the rules go.
	File  string       `json:"file"`
	Rules []AlwaysRule `json:"rules"`
	// Approval is the approval once granted; nil on a dry run.
	Approval *approval.Listed `json:"approval,omitempty"`
	// Note says when the policy in force where the call runs is not the user's.
	Note string `json:"note,omitempty"`
}

// AlwaysRule is the rule written for one call of the approval.
type AlwaysRule struct {
	// Call is the call, redacted.
	Call string `json:"call"`
	// Rule is the new rule's id; "" when the policy already allows the call.
	Rule    string `json:"rule,omitempty"`
	Already bool   `json:"already,omitempty"`
	// Preview is the rule, where it goes, the diff and how it was checked, as moat
	// approve --always shows them.
	Preview string `json:"preview"`
}

// answerRequest is the body of POST /api/approvals/{id}.
type answerRequest struct {
	State approval.State `json:"state"`
}

// alwaysRequest is the body of POST /api/approvals/{id}/always.
type alwaysRequest struct {
	DryRun bool `json:"dry_run"`
}

// approvalRoutes registers the approval queue's API.
func (s *Server) approvalRoutes(mux *http.ServeMux) {
	mux.Handle("GET /api/approvals", s.api(s.handleApprovals))
	mux.Handle("GET /api/approvals/stream", s.api(s.handleApprovalStream))
	mux.Handle("POST /api/approvals/{id}", s.change(s.handleAnswer))
	mux.Handle("POST /api/approvals/{id}/always", s.change(s.handleAlways))
}

// approvals is the queue, or false after answering why there is none.
func (s *Server) approvals(w http.ResponseWriter) (Approvals, bool) {
	if s.opts.Approvals == nil {
		writeError(w, http.StatusServiceUnavailable, "this dashboard has no approval queue")
		return nil, false
	}
	return s.opts.Approvals, true
}

func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request, _ *session) {
	q, ok := s.approvals(w)
	if !ok {
		return
	}
	list, err := q.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, emptyIfNil(list))
}

// handleApprovalStream sends the whole queue as an "approvals" event at once and
// whenever it changes. Other processes change the queue's file too (a hook queues a call,
// moat approve answers one), so each poll compares the list itself with the last sent.
func (s *Server) handleApprovalStream(w http.ResponseWriter, r *http.Request, _ *session) {
	q, ok := s.approvals(w)
	if !ok {
		return
	}
	var last string
	s.stream(w, r, func(ctx context.Context) ([]Event, error) {
		list, err := q.List(ctx)
		if err != nil {
			return nil, err
		}
		list = emptyIfNil(list)
		b, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		version := hex.EncodeToString(sum[:8])
		if version == last {
			return nil, nil
		}
		last = version
		return []Event{{Name: "approvals", ID: version, Data: json.RawMessage(b)}}, nil
	})
}

func (s *Server) handleAnswer(w http.ResponseWriter, r *http.Request, _ *session) {
	q, ok := s.approvals(w)
	if !ok {
		return
	}
	var req answerRequest
	if err := decodeJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	switch req.State {
	case approval.Once, approval.Session, approval.Denied:
	case "deny":
		req.State = approval.Denied
	default:
		writeError(w, http.StatusBadRequest, `state must be "once", "session" or "deny"`)
		return
	}
	l, err := q.Answer(r.Context(), r.PathValue("id"), req.State)
	if err != nil {
		s.approvalError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, l)
}

func (s *Server) handleAlways(w http.ResponseWriter, r *http.Request, _ *session) {
	q, ok := s.approvals(w)
	if !ok {
		return
	}
	var req alwaysRequest
	if err := decodeJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	res, err := q.Always(r.Context(), r.PathValue("id"), req.DryRun)
	if err != nil {
		s.approvalError(w, r, err)
		return
	}
	if res.Rules == nil {
		res.Rules = []AlwaysRule{}
	}
	writeJSON(w, http.StatusOK, res)
}

// approvalError answers a failed answer: an approval that is unknown (or expired) is
// 404, an ambiguous ID 409, a refused approver 403; any other failure 422 with what
// went wrong (a rule that could not be written says why).
func (s *Server) approvalError(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case errors.Is(err, approval.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
	case errors.Is(err, approval.ErrAmbiguous):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, approval.ErrRefused):
		writeError(w, http.StatusForbidden, err.Error())
	default:
		s.opts.Log("dashboard: " + r.Method + " " + r.URL.Path + ": " + err.Error())
		writeError(w, http.StatusUnprocessableEntity, err.Error())
	}
}

// emptyIfNil is list, or an empty list for none: the page gets [] rather than null.
func emptyIfNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
