// Package modelstub is a scripted LLM API server on loopback, for driving real agent CLIs in tests.
package modelstub

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Step is one model turn of a script: a call of the tool named Tool with Args, or, when
// Tool is empty, a final answer Text that ends the agent's turn.
type Step struct {
	Tool string
	Args map[string]any
	Text string
	// Namespace, for the OpenAI Responses API, names the namespace Tool belongs to (Codex
	// offers the MCP tools a tool search found as namespace "mcp__SERVER").
	Namespace string
}

// Call returns a step that calls tool with args.
func Call(tool string, args map[string]any) Step { return Step{Tool: tool, Args: args} }

// CallIn returns a step that calls tool of namespace with args.
func CallIn(namespace, tool string, args map[string]any) Step {
	return Step{Tool: tool, Args: args, Namespace: namespace}
}

// Say returns a step that answers text and calls nothing.
func Say(text string) Step { return Step{Text: text} }

// Request is one HTTP request the server received, its body decompressed.
type Request struct {
	Method string
	Path   string // with the query string
	Header http.Header
	Body   []byte
}

// Server answers the Anthropic Messages API, Gemini generateContent and the OpenAI
// Responses API on one loopback address. Each main-conversation request is answered with
// the script's step whose index is the number of tool calls already in the request's
// history, so the script advances exactly as the agent feeds tool results back, and a
// retried request gets the same answer. Requests are recorded for assertions.
type Server struct {
	URL string // http://127.0.0.1:PORT, no trailing slash

	script []Step
	srv    *http.Server
	ln     net.Listener

	mu       sync.Mutex
	requests []Request
}

// Start listens on a free loopback port and serves script until Close. The script should
// end with a Say step; past its end the server answers "done".
func Start(script []Step) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("modelstub: listen: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve)}
	go s.srv.Serve(ln) //nolint:errcheck // Serve returns ErrServerClosed after Close.
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Requests returns a copy of every request received so far, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Saw reports whether sub occurs in any received request's path, headers or body.
func (s *Server) Saw(sub string) bool {
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, sub) || bytes.Contains(r.Body, []byte(sub)) {
			return true
		}
		for _, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, sub) {
					return true
				}
			}
		}
	}
	return false
}

// ToolResults returns the text of every tool result the agents sent back, keyed by the
// script step that asked for it (the step's index), whatever the API. A result seen in
// several requests (histories are resent) is kept once.
func (s *Server) ToolResults() map[int]string {
	out := map[int]string{}
	for _, r := range s.Requests() {
		api := apiOf(r.Path)
		if api == nil {
			continue
		}
		for id, text := range api.toolResults(r.Body) {
			if i, ok := stepOfID(id); ok {
				out[i] = text
			}
		}
	}
	return out
}

// step returns the script step to answer after n tool calls.
func (s *Server) step(n int) (int, Step) {
	if n < len(s.script) {
		return n, s.script[n]
	}
	return n, Say("done")
}

// api is one vendor's wire format.
type api interface {
	// serve answers one request of this API.
	serve(s *Server, w http.ResponseWriter, r *http.Request, body []byte)
	// toolResults maps call ids to the tool result texts found in a request body.
	toolResults(body []byte) map[string]string
}

// apiOf picks the wire format from the request path; nil for anything else.
func apiOf(path string) api {
	p, _, _ := strings.Cut(path, "?")
	switch {
	case strings.Contains(p, "/messages"):
		return anthropic{}
	case strings.Contains(p, ":generateContent"), strings.Contains(p, ":streamGenerateContent"), strings.Contains(p, ":countTokens"):
		return gemini{}
	case strings.HasSuffix(p, "/responses"):
		return openai{}
	}
	return nil
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.RequestURI(), Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()

	if a := apiOf(r.URL.Path); a != nil && r.Method == http.MethodPost {
		a.serve(s, w, r, body)
		return
	}
	// Incidental requests: model listings get an empty list, anything else an empty
	// object, so that clients which probe or report move on rather than retry.
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/models"):
		io.WriteString(w, `{"data":[],"models":[],"object":"list"}`)
	default:
		io.WriteString(w, `{}`)
	}
}

// readBody reads the request body, undoing a gzip content encoding.
func readBody(r *http.Request) ([]byte, error) {
	var rd io.Reader = r.Body
	if strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip") {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, fmt.Errorf("modelstub: gzip body: %w", err)
		}
		defer gz.Close()
		rd = gz
	}
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("modelstub: read body: %w", err)
	}
	return b, nil
}

// callID names the call of script step i; stepOfID reads it back. Ids must survive the
// round trip through the agent, which sends them back with the tool result.
func callID(prefix string, i int) string { return fmt.Sprintf("%sstub%d", prefix, i) }

func stepOfID(id string) (int, bool) {
	_, num, ok := strings.Cut(id, "stub")
	if !ok {
		return 0, false
	}
	var i int
	if _, err := fmt.Sscanf(num, "%d", &i); err != nil {
		return 0, false
	}
	return i, true
}

// sse writes server-sent events and flushes each one.
type sse struct {
	w http.ResponseWriter
}

func newSSE(w http.ResponseWriter) sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sse{w}
}

// event writes one event; an empty name writes a data-only event (Gemini's form).
func (e sse) event(name string, data []byte) {
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}
