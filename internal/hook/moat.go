package hook

// The moat adapter: `moat check --stdin` speaks moat's own protocol, newline-delimited
// JSON requests and responses that scripts (and the daemon) use, beside the agents'
// hook protocols of the other files.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/strictjson"
)

// MoatVersion is the version requests must carry.
const MoatVersion = 1

// MaxMoatRequest is the largest request line accepted, newline excluded. A longer line is
// answered with an error and skipped without being held in memory.
const MaxMoatRequest = 1 << 20

// MoatPreToolUse is the only event a request may carry for now: a tool call about to run.
const MoatPreToolUse = "pre_tool_use"

// MoatRequest asks for a decision about one tool call.
type MoatRequest struct {
	Version int    `json:"version"`
	Agent   string `json:"agent,omitempty"`
	Event   string `json:"event,omitempty"`
	// Tool is a class ("shell"), any agent's native tool name ("Bash", "read_file"), or an
	// MCP tool (mcp:SERVER/TOOL, mcp__SERVER__TOOL).
	Tool string `json:"tool"`
	// Class may be "other" to evaluate a tool moat does not know by its native name; left
	// out, an unknown tool is an error.
	Class   string         `json:"class,omitempty"`
	Args    map[string]any `json:"args,omitempty"`
	Cwd     string         `json:"cwd"`
	Project string         `json:"project,omitempty"`
	Session string         `json:"session,omitempty"`
}

var requestFields = map[string]bool{"version": true, "agent": true, "event": true, "tool": true, "class": true, "args": true, "cwd": true, "project": true, "session": true}

// DecodeMoat parses one request line strictly: one JSON object, no duplicate or case-variant
// keys, no unknown fields, valid UTF-8. Numbers in args keep their text (json.Number).
func DecodeMoat(line []byte) (MoatRequest, error) {
	var r MoatRequest
	if len(line) > MaxMoatRequest {
		return r, fmt.Errorf("request is %d bytes; the limit is %d", len(line), MaxMoatRequest)
	}
	if err := strictjson.Check(line, strictjson.Limits{MaxBytes: MaxMoatRequest}); err != nil {
		return r, fmt.Errorf("malformed request: %w", err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return r, fmt.Errorf("malformed request: a request is a JSON object: %w", err)
	}
	for k := range fields {
		if !requestFields[k] {
			return r, fmt.Errorf("unknown field %q in request", k)
		}
	}
	targets := map[string]any{"version": &r.Version, "agent": &r.Agent, "event": &r.Event, "tool": &r.Tool,
		"class": &r.Class, "cwd": &r.Cwd, "project": &r.Project, "session": &r.Session}
	for k, raw := range fields {
		if k == "args" {
			continue
		}
		if err := json.Unmarshal(raw, targets[k]); err != nil {
			return r, fmt.Errorf("field %q: %w", k, plainJSONError(err))
		}
	}
	if raw, ok := fields["args"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&r.Args); err != nil {
			return r, fmt.Errorf("field \"args\" must be an object: %w", plainJSONError(err))
		}
	}
	return r, nil
}

// Call validates the request and turns it into a canonical call.
func (r MoatRequest) Call() (call.Call, error) {
	if r.Version != MoatVersion {
		return call.Call{}, fmt.Errorf("version must be %d, not %d", MoatVersion, r.Version)
	}
	if r.Event != "" && r.Event != MoatPreToolUse {
		return call.Call{}, fmt.Errorf("unknown event %q (supported: %s)", r.Event, MoatPreToolUse)
	}
	var agent call.Agent
	if r.Agent != "" {
		a, ok := call.ParseAgent(r.Agent)
		if !ok {
			return call.Call{}, fmt.Errorf("unknown agent %q", r.Agent)
		}
		agent = a
	}
	if r.Tool == "" {
		return call.Call{}, errors.New("missing tool")
	}
	if r.Cwd == "" || !filepath.IsAbs(r.Cwd) {
		return call.Call{}, fmt.Errorf("cwd must be an absolute path, not %q", r.Cwd)
	}
	if r.Project != "" && !filepath.IsAbs(r.Project) {
		return call.Call{}, fmt.Errorf("project must be an absolute path, not %q", r.Project)
	}
	var c call.Call
	switch r.Class {
	case "":
		var err error
		c, err = call.Canonicalize(agent, r.Tool, r.Args)
		if err != nil {
			return call.Call{}, err
		}
	case string(call.Other):
		c = call.CanonicalizeOther(agent, r.Tool, r.Args)
	default:
		return call.Call{}, fmt.Errorf("class may only be %q (for tools moat does not know); other classes follow from the tool", call.Other)
	}
	if c.Cwd == "" {
		c.Cwd = r.Cwd
	} else if !filepath.IsAbs(c.Cwd) {
		// A working directory inside the arguments (Gemini's dir_path) is relative to the
		// request's.
		c.Cwd = filepath.Join(r.Cwd, c.Cwd)
	}
	c.Cwd = filepath.Clean(c.Cwd)
	c.Project = r.Project
	c.Session = r.Session
	return c, nil
}

// MoatResponse is the answer to one request.
type MoatResponse struct {
	Decision string `json:"decision"`
	// Reason is null when the decision needs none (an allow).
	Reason    *string        `json:"reason"`
	Rule      string         `json:"rule"`
	Findings  []call.Finding `json:"findings"`
	LatencyMS float64        `json:"latency_ms"`
}

// MoatError answers a request that could not be evaluated.
type MoatError struct {
	Error string `json:"error"`
}

// NewMoatResponse renders a decision. redact masks secrets in the reason and evidence.
func NewMoatResponse(d call.Decision, redact func(string) string) MoatResponse {
	resp := MoatResponse{
		Decision:  d.Verdict.String(),
		Rule:      d.Rule,
		Findings:  make([]call.Finding, 0, len(d.Findings)),
		LatencyMS: float64(d.Latency.Nanoseconds()) / 1e6,
	}
	if d.Reason != "" {
		reason := redact(d.Reason)
		resp.Reason = &reason
	}
	for _, f := range d.Findings {
		f.Evidence = redact(f.Evidence)
		resp.Findings = append(resp.Findings, f)
	}
	return resp
}

// plainJSONError drops encoding/json's Go type names, which mean nothing to a client.
func plainJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("expected %s, got a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	}
	return goKind
}
