package dashboard

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/call"
)

// Policies are the policies in force and the decision service that tries a call.
type Policies interface {
	// List describes the policies in force: for each project the agents worked in
	// lately, the user's policy and the embedded one.
	List(ctx context.Context) (PolicyList, error)
	// Text returns the text of a policy List describes: ref is an entry's Path, the Path
	// of a file it skipped, or the embedded policy's Name. The handler only asks for those.
	Text(ctx context.Context, ref string) (string, error)
	// Try decides a call as moat check --explain does, changing no state: nothing is
	// recorded, no approval is used, no rate-limit slot is taken. An error wrapping
	// ErrInvalid is the request's fault.
	Try(ctx context.Context, req TryRequest) (TryResult, error)
}

// ErrInvalid marks an error of a request the user can correct: an unknown agent or tool,
// arguments that do not fit the tool.
var ErrInvalid = errors.New("invalid request")

// PolicyList is what the policy page shows.
type PolicyList struct {
	// Since is the start of the time the projects were taken from.
	Since   time.Time     `json:"since"`
	Entries []PolicyEntry `json:"entries"`
}

// Scopes of a PolicyEntry: what the entry describes.
const (
	ScopeProject  = "project"
	ScopeUser     = "user"
	ScopeEmbedded = "embedded"
)

// Trust states of a project policy in force, as moat status reports them.
const (
	TrustTrusted = "trusted"
	// TrustChanged is a trusted file edited since: the version trusted is in force.
	TrustChanged = "changed"
	// TrustUntrusted is a file nobody trusted: it is passed over.
	TrustUntrusted = "untrusted"
)

// PolicyEntry is the policy in force for one project, or the user's or the embedded one.
type PolicyEntry struct {
	// Scope is ScopeProject, ScopeUser or ScopeEmbedded.
	Scope string `json:"scope"`
	// Project is the repository root (or the directory, out of a repository) of a
	// project entry; LastUsed the time of its newest record.
	Project  string    `json:"project,omitempty"`
	LastUsed time.Time `json:"last_used,omitzero"`
	// Kind is where the policy in force comes from: flag, env, project, user, embedded.
	Kind string `json:"kind,omitempty"`
	// Path is the policy file ("" for the embedded policy), Name what records call it.
	Path string `json:"path,omitempty"`
	Name string `json:"name,omitempty"`
	// Trust is the trust state of a project policy in force: TrustTrusted or TrustChanged.
	Trust string `json:"trust,omitempty"`
	// Missing says the user has no policy file of their own (Path is where it would be).
	Missing bool `json:"missing,omitempty"`
	// Skipped are the project files passed over, nearest first.
	Skipped []SkippedPolicy `json:"skipped,omitempty"`
	Packs   []string        `json:"packs,omitempty"`
	// Rules counts the file's own rules, PackRules those its packs add.
	Rules     int `json:"rules"`
	PackRules int `json:"pack_rules"`
	// DecidesWith are the other policy files deciding together with this one (the
	// managed policy above it, the user's below a project's), highest first.
	DecidesWith []string `json:"decides_with,omitempty"`
	Default     string   `json:"default,omitempty"`
	Fail        string   `json:"fail,omitempty"`
	// Error says why the policy does not load; Kept then names the policy the daemon
	// keeps enforcing (the last good one), "" when there is none and hooks fail closed.
	Error string `json:"error,omitempty"`
	Kept  string `json:"kept,omitempty"`
}

// SkippedPolicy is a project policy file whose current content is not in force.
type SkippedPolicy struct {
	Path string `json:"path"`
	// Status is TrustUntrusted or TrustChanged.
	Status string `json:"status"`
	Why    string `json:"why"`
}

// TryRequest is a call to try, as the page's form gives it.
type TryRequest struct {
	// Agent is an agent's name, "" for none.
	Agent string `json:"agent"`
	// Tool is a class (shell, file.read…), a native tool name or an MCP tool
	// (mcp:server/tool); "" is shell.
	Tool string `json:"tool"`
	// Input is the command line, the path, URL or pattern, or the tool's arguments as a
	// JSON object.
	Input string `json:"input"`
	// Cwd is the absolute directory the call runs in.
	Cwd string `json:"cwd"`
}

// TryResult is the decision on a tried call, with its explanation.
type TryResult struct {
	Decision string         `json:"decision"`
	Rule     string         `json:"rule"`
	Reason   string         `json:"reason"`
	Findings []call.Finding `json:"findings"`
	// Class is the call's canonical class, Policy the name of the policy that decided.
	Class  string `json:"class"`
	Policy string `json:"policy"`
	// Trace is the explanation, as moat check --explain prints it.
	Trace string `json:"trace"`
}

// Bounds of a try request.
const (
	maxTryInput = 32 << 10
	maxTryName  = 256
	maxPathRef  = 4096
)

func (s *Server) handlePolicies(w http.ResponseWriter, r *http.Request, _ *session) {
	if s.opts.Policies == nil {
		writeError(w, http.StatusServiceUnavailable, "the policies are not available to this dashboard")
		return
	}
	list, err := s.opts.Policies.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, list)
}

// policyText is the answer of GET /api/policies/text.
type policyText struct {
	Ref  string `json:"ref"`
	Text string `json:"text"`
}

// handlePolicyText shows the text of a policy the list names, and of no other file: the
// dashboard is no way to read the user's files.
func (s *Server) handlePolicyText(w http.ResponseWriter, r *http.Request, _ *session) {
	if s.opts.Policies == nil {
		writeError(w, http.StatusServiceUnavailable, "the policies are not available to this dashboard")
		return
	}
	ref := r.URL.Query().Get("path")
	if ref == "" || len(ref) > maxPathRef {
		writeError(w, http.StatusBadRequest, "path: name a policy the policy list shows")
		return
	}
	list, err := s.opts.Policies.List(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !slices.Contains(list.refs(), ref) {
		writeError(w, http.StatusNotFound, "no policy the policy list shows is "+ref)
		return
	}
	text, err := s.opts.Policies.Text(r.Context(), ref)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, policyText{Ref: ref, Text: text})
}

// refs are the policies whose text may be shown.
func (l PolicyList) refs() []string {
	var out []string
	for _, e := range l.Entries {
		switch {
		case e.Scope == ScopeEmbedded || e.Kind == ScopeEmbedded:
			out = append(out, e.Name)
		case e.Path != "" && !e.Missing:
			out = append(out, e.Path)
		}
		for _, sk := range e.Skipped {
			out = append(out, sk.Path)
		}
	}
	return out
}

func (s *Server) handleTry(w http.ResponseWriter, r *http.Request, _ *session) {
	if s.opts.Policies == nil {
		writeError(w, http.StatusServiceUnavailable, "the policies are not available to this dashboard")
		return
	}
	var req TryRequest
	if err := decodeJSON(r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	switch {
	case req.Input == "":
		writeError(w, http.StatusBadRequest, "input: give the command, the path or URL, or the tool's arguments as JSON")
		return
	case len(req.Input) > maxTryInput:
		writeError(w, http.StatusBadRequest, "input: longer than 32 KiB")
		return
	case len(req.Agent) > maxTryName || len(req.Tool) > maxTryName || len(req.Cwd) > maxPathRef:
		writeError(w, http.StatusBadRequest, "agent, tool or cwd: too long")
		return
	case req.Cwd == "" || !filepath.IsAbs(req.Cwd):
		writeError(w, http.StatusBadRequest, "cwd: give the absolute directory the call runs in")
		return
	}
	res, err := s.opts.Policies.Try(r.Context(), req)
	if errors.Is(err, ErrInvalid) {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if res.Findings == nil {
		res.Findings = []call.Finding{}
	}
	writeJSON(w, http.StatusOK, res)
}

// tryOptions are the choices of the try form: the agents, and per agent its native tools
// (the classes work for every agent).
type tryOptions struct {
	Agents  []string            `json:"agents"`
	Classes []string            `json:"classes"`
	Tools   map[string][]string `json:"tools"`
}

func (s *Server) handleTryOptions(w http.ResponseWriter, _ *http.Request, _ *session) {
	o := tryOptions{Tools: map[string][]string{}}
	for _, a := range call.Agents() {
		o.Agents = append(o.Agents, string(a))
	}
	for _, c := range call.Classes {
		// An MCP call is named mcp:server/tool and an other call by its native name;
		// neither class alone is a tool.
		if c != call.MCP && c != call.Other {
			o.Classes = append(o.Classes, string(c))
		}
	}
	for _, t := range call.NativeTools {
		if t.Unsupported == "" && !slices.Contains(o.Tools[string(t.Agent)], t.Name) {
			o.Tools[string(t.Agent)] = append(o.Tools[string(t.Agent)], t.Name)
		}
	}
	writeJSON(w, http.StatusOK, o)
}
