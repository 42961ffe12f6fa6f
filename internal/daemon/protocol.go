package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/hook"
	"github.com/moatdev/moat/internal/scan"
	"github.com/moatdev/moat/internal/strictjson"
)

// The daemon's protocol: one JSON request per line, one JSON response per line, in
// order, many per connection. A request is either in the seeds' format (no "method":
// the fields of `moat check --stdin`, answered with a decision), or names one of the
// decision service's methods (decide.WireRequest, answered with a
// decide.WireResponse), or one of the daemon's own (status, shutdown). A request that
// cannot be answered gets {"error": "…"}, never a decision.

// The daemon's own methods, beside the service's.
const (
	MethodStatus   = "status"
	MethodShutdown = "shutdown"
	// MethodBind selects, for the rest of the connection, the service for the client's
	// environment (BindParams); without it a connection is served by the daemon's own.
	MethodBind = "bind"
)

// BindParams are the params of MethodBind: the client's values of the variables that
// shape the service (daemonenv.Service).
type BindParams struct {
	Env map[string]string `json:"env"`
	// Executable is the moat binary the client runs (os.Executable), which the decisions
	// protect as moat's own; "" when the client is no moat binary.
	Executable string `json:"executable,omitempty"`
}

// session is one connection's state: who is at the other end, and the service that
// answers it.
type session struct {
	peer Peer
	svc  decide.Service
}

func (s *Server) newSession(p Peer) *session { return &session{peer: p, svc: s.svc} }

// SeedResponse is the answer to a request in the seeds' format: check --stdin's answer
// with the name of the policy that decided.
type SeedResponse struct {
	hook.MoatResponse
	Policy string `json:"policy"`
}

// seedTools maps the tool names the seeds' protocol uses, where moat's differ, to the
// class they stand for; their arguments are then the class's canonical ones
// ({"command"}, {"path"}, {"path","content"}).
var seedTools = map[string]call.Class{
	"shell_execute": call.Shell,
	"shell_command": call.Shell,
	"run_command":   call.Shell,
	"read_code":     call.FileRead,
	"write_code":    call.FileWrite,
}

// wireFields are the fields of a method request.
var wireFields = map[string]bool{"version": true, "method": true, "params": true}

// builtinMethods are the methods the server answers itself.
var builtinMethods = map[string]bool{
	decide.MethodLookup: true, decide.MethodDecide: true, decide.MethodDecideOutput: true,
	decide.MethodDecidePrompt: true, decide.MethodRecord: true, decide.MethodRecordFailure: true,
	MethodStatus: true, MethodShutdown: true, MethodBind: true,
}

// answer answers one request line.
func (s *Server) answer(ctx context.Context, line []byte, sess *session) any {
	_, resp := s.respond(ctx, line, sess)
	return resp
}

// respond answers one request line, and returns with the answer the method the request
// names, as Options.Observe is told it: the line is parsed once for both.
func (s *Server) respond(ctx context.Context, line []byte, sess *session) (method string, resp any) {
	defer func() {
		// The service is built for calls the adapters made; a call on the wire may be
		// shaped in ways no adapter makes. Whatever it breaks, the answer is an error.
		if r := recover(); r != nil {
			s.logf("request failed: %v", r)
			resp = decide.WireResponse{Error: "internal error deciding the request"}
		}
	}()
	if err := strictjson.Check(line, strictjson.Limits{MaxBytes: decide.MaxWireRequest}); err != nil {
		return methodOfLine(line), decide.WireResponse{Error: fmt.Sprintf("malformed request: %v", err)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return "", decide.WireResponse{Error: "malformed request: a request is a JSON object"}
	}
	method = methodOf(fields)
	if _, ok := fields["method"]; !ok {
		return method, s.seed(ctx, line, sess.svc)
	}
	req, err := decodeWire(fields)
	if err != nil {
		return method, decide.WireResponse{Error: err.Error()}
	}
	return method, s.method(ctx, req, sess)
}

// methodOf is the method a request's fields name, as decoding the line into a struct
// with a "method" field finds it: the value of the key "method", or of the one key equal
// to it under case folding (strictjson.Check refuses two), when it is a string; "" when
// there is none.
func methodOf(fields map[string]json.RawMessage) string {
	raw, ok := fields["method"]
	if !ok {
		for k, v := range fields {
			if strings.EqualFold(k, "method") {
				raw, ok = v, true
				break
			}
		}
	}
	var method string
	if ok {
		_ = json.Unmarshal(raw, &method) // a method that is not a string is none
	}
	return method
}

// methodOfLine is the method of a line that is not a request the server reads (its
// answer is an error): what decoding it into a struct with a "method" field finds.
func methodOfLine(line []byte) string {
	var req struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(line, &req) // a request that is not JSON has no method
	return req.Method
}

// decodeWire reads a method request from its fields.
func decodeWire(fields map[string]json.RawMessage) (decide.WireRequest, error) {
	var req decide.WireRequest
	for k := range fields {
		if !wireFields[k] {
			return req, fmt.Errorf("unknown field %q in request", k)
		}
	}
	if err := json.Unmarshal(fields["method"], &req.Method); err != nil {
		return req, errors.New(`field "method" must be a string`)
	}
	raw, ok := fields["version"]
	if !ok {
		return req, errors.New(`missing field "version"`)
	}
	if err := json.Unmarshal(raw, &req.Version); err != nil {
		return req, errors.New(`field "version" must be an integer`)
	}
	if req.Version != decide.WireVersion {
		return req, fmt.Errorf("unsupported version %d (this daemon speaks %d)", req.Version, decide.WireVersion)
	}
	req.Params = fields["params"]
	return req, nil
}

// method answers a request for one of the service's methods or the daemon's own.
func (s *Server) method(ctx context.Context, req decide.WireRequest, sess *session) decide.WireResponse {
	var result any
	var err error
	svc := sess.svc
	switch req.Method {
	case decide.MethodLookup:
		var sc decide.Scope
		if err = params(req, &sc); err == nil {
			var pol decide.Policy
			if pol, err = svc.Lookup(ctx, sc); err == nil {
				s.policies.Store(pol.Key, true)
			}
			result = pol
		}
	case decide.MethodDecide:
		var cr decide.CallRequest
		if err = params(req, &cr); err == nil {
			var res decide.CallResult
			if res, err = svc.Decide(ctx, cr); err == nil {
				s.decisions.Add(uint64(len(res.Decisions)))
			}
			result = res
		}
	case decide.MethodDecideOutput:
		var or decide.OutputRequest
		if err = params(req, &or); err == nil {
			result, err = svc.DecideOutput(ctx, or)
		}
	case decide.MethodDecidePrompt:
		var pr decide.PromptRequest
		if err = params(req, &pr); err == nil {
			result, err = svc.DecidePrompt(ctx, pr)
		}
	case decide.MethodRecord:
		var rr decide.RecordRequest
		if err = params(req, &rr); err == nil {
			result, err = struct{}{}, svc.Record(ctx, rr)
		}
	case decide.MethodRecordFailure:
		var f decide.Failure
		if err = params(req, &f); err == nil {
			result, err = struct{}{}, svc.RecordFailure(ctx, f)
		}
	case MethodStatus:
		result = s.Status()
	case MethodBind:
		var bp BindParams
		if err = params(req, &bp); err == nil {
			err = s.bind(sess, bp)
			result = struct{}{}
		}
	case MethodShutdown:
		if !sess.peer.Local {
			err = errors.New("shutdown is only taken from the unix socket")
			break
		}
		s.requestStop()
		result = struct{}{}
	default:
		if m, ok := s.opts.Methods[req.Method]; ok {
			s.answered[req.Method].Add(1)
			result, err = m(ctx, req.Params, sess.peer)
			break
		}
		err = fmt.Errorf("unknown method %q", req.Method)
	}
	if err != nil {
		return decide.WireResponse{Error: err.Error(), Code: decide.ErrorCode(err)}
	}
	b, err := json.Marshal(result)
	if err != nil {
		return decide.WireResponse{Error: fmt.Sprintf("encoding the result: %v", err)}
	}
	return decide.WireResponse{Result: b}
}

// bind makes the service for env the one that answers sess.
func (s *Server) bind(sess *session, p BindParams) error {
	if s.opts.Bind == nil {
		return errors.New("this daemon serves only its own environment")
	}
	svc, err := s.opts.Bind(p)
	if err != nil {
		return fmt.Errorf("bind: %w", err)
	}
	sess.svc = svc
	return nil
}

// params decodes a request's params into v: every field known, numbers kept as text
// (as the hook adapters keep them in call arguments).
func params(req decide.WireRequest, v any) error {
	if len(req.Params) == 0 {
		return fmt.Errorf("method %q needs params", req.Method)
	}
	dec := json.NewDecoder(bytes.NewReader(req.Params))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("params of %q: %w", req.Method, err)
	}
	return nil
}

// seed answers a request in the seeds' format, under the policy for its directory, and
// records the decision.
func (s *Server) seed(ctx context.Context, line []byte, svc decide.Service) any {
	if len(line) > hook.MaxMoatRequest {
		return hook.MoatError{Error: fmt.Sprintf("request longer than %d bytes", hook.MaxMoatRequest)}
	}
	req, err := hook.DecodeMoat(line)
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	if class, ok := seedTools[req.Tool]; ok && req.Class == "" {
		req.Tool = string(class)
	}
	c, err := req.Call()
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	pol, err := svc.Lookup(ctx, decide.Scope{Cwd: req.Cwd, Project: req.Project})
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	s.policies.Store(pol.Key, true)
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: hook.MoatPreToolUse, Calls: []call.Call{c}, Project: req.Project, Record: s.opts.Record})
	if err != nil {
		return hook.MoatError{Error: scan.Redact(err.Error())}
	}
	s.decisions.Add(1)
	for _, e := range res.NotRecorded {
		s.logf("recording decision: %s", scan.Redact(e.Error()))
	}
	return SeedResponse{MoatResponse: hook.NewMoatResponse(res.Decision, scan.Redact), Policy: pol.Name}
}
