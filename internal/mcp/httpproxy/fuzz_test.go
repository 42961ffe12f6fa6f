package httpproxy

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/jsonrpc"
)

// FuzzStream feeds arbitrary server streams to the event relay: it must not panic, and
// every data line it sends must be one message the frame layer accepts, since all of
// them went through the Proxy.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		": keep-alive\n\nid: 7\nevent: message\nretry: 1000\ndata: {\"jsonrpc\":\"2.0\",\ndata:\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
		"id: 8\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\r\n\r\n",
		"id: 1\ndata: \n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"a\":2}}\n\n",
		"data: [{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]\n\ndata: nonsense\n\nfield without colon\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
		"id: 1\rdata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1,\"a\":2}}\r\n\n",
	} {
		f.Add(seed)
	}
	u, _ := url.Parse("http://127.0.0.1:1/")
	f.Fuzz(func(t *testing.T, in string) {
		p := &mcp.Proxy{Server: "peer", Decide: (&denyTools{}).decide, Log: io.Discard}
		hh, err := New(Options{Upstream: u, Proxy: p, MaxBody: 4096, Token: testToken})
		if err != nil {
			t.Fatal(err)
		}
		// A request with id 1 is pending, so that results are read as its answer.
		conn := &mcp.Conn{}
		p.FromClientOn(t.Context(), conn, listing(p, conn, "echo"), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`))
		rec := httptest.NewRecorder()
		resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(in))}
		hh.(*handler).stream(rec, resp, exchange{conn: conn}, nil)
		// Read as the strictest client would: a lone CR ends a line as well.
		out := strings.ReplaceAll(strings.ReplaceAll(rec.Body.String(), "\r\n", "\n"), "\r", "\n")
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || strings.TrimSpace(data) == "" {
				continue
			}
			if _, err := jsonrpc.Parse([]byte(data)); err != nil {
				t.Errorf("relayed data the frame layer refuses: %q: %v", data, err)
			}
		}
	})
}

// roundTrip is an upstream without a network.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzPost feeds arbitrary bodies and MCP headers to the handler: it must not panic,
// what reaches the server must be a frame the frame layer accepts, no tool call the
// decider denies may reach it, and the client must get its own id back.
func FuzzPost(f *testing.F) {
	for _, seed := range []struct{ body, method, name string }{
		{echoCall, "tools/call", "echo"},
		{deleteCall, "tools/call", "echo"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}},{"jsonrpc":"2.0","id":"1","method":"tools/call","params":{"name":"delete_x"}}]`, "", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "", ""},
		// A list and a call pipelined in one batch, and a client whose id looks like moat's.
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}]`, "", ""},
		{`{"jsonrpc":"2.0","id":"moat-0-1","method":"tools/call","params":{"name":"echo"}}`, "tools/call", "echo"},
		{"{\n\"jsonrpc\":\"2.0\",\"id\":\"a\\u0031\",\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///x\"}}", "resources/read", "file:///x"},
	} {
		f.Add(seed.body, seed.method, seed.name)
	}
	u, _ := url.Parse("http://127.0.0.1:1/")
	f.Fuzz(func(t *testing.T, body, method, name string) {
		var relayed []byte
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			relayed, _ = io.ReadAll(r.Body)
			fr, err := jsonrpc.Parse(relayed)
			if err != nil {
				t.Fatalf("relayed a frame the frame layer refuses: %q: %v", relayed, err)
			}
			var out [][]byte
			for _, m := range fr.Messages {
				if m.Kind == jsonrpc.Request {
					if m.Method == mcp.MethodToolsCall && strings.Contains(string(m.Params), "delete") {
						t.Fatalf("relayed a denied call: %s", relayed)
					}
					result := `{}`
					if m.Method == mcp.MethodToolsList {
						// moat's own list, to vet the tools called.
						result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"delete_x","inputSchema":{"type":"object"}}]}`
					}
					out = append(out, []byte(`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`))
				}
			}
			if out == nil {
				return &http.Response{StatusCode: 202, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(""))}, nil
			}
			b := joinAnswers(out)
			if fr.Batch && len(out) == 1 {
				b = append(append([]byte("["), b...), ']')
			}
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b))}, nil
		})}
		p := &mcp.Proxy{Server: "peer", Decide: (&denyTools{}).decide, Log: io.Discard}
		h, err := New(Options{Upstream: u, Proxy: p, Client: client, MaxBody: 1 << 16, Token: testToken})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		if method != "" {
			req.Header.Set("Mcp-Method", method)
		}
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		// Ids pass unchanged: every response the client gets answers one of its own
		// requests.
		if rec.Code == 200 {
			sent := map[string]bool{}
			if fr, err := jsonrpc.Parse(oneLine([]byte(body))); err == nil {
				for _, m := range fr.Messages {
					if m.Kind == jsonrpc.Request {
						sent[idString(m.ID)] = true
					}
				}
			}
			if got, err := jsonrpc.Parse(rec.Body.Bytes()); err == nil {
				for _, m := range got.Messages {
					if m.Kind == jsonrpc.Response && m.ID != nil && string(m.ID) != "null" && !sent[idString(m.ID)] {
						t.Errorf("the client got an answer to an id it did not send: %s", rec.Body)
					}
				}
			}
		}
	})
}

// FuzzAuthorization: no Authorization header but "Bearer TOKEN" (the scheme in any
// case, spaces before the token) lets a request in.
func FuzzAuthorization(f *testing.F) {
	for _, seed := range []string{"Bearer " + testToken, "bearer " + testToken, "Bearer  " + testToken, "Bearer " + testToken + " ", "Basic " + testToken,
		testToken, "Bearer " + testToken[:len(testToken)-1], "Bearer", "", "Bearer " + testToken + "\x00", "BEARER\t" + testToken} {
		f.Add(seed)
	}
	u, _ := url.Parse("http://127.0.0.1:1/")
	hh, err := New(Options{Upstream: u, Proxy: &mcp.Proxy{Server: "peer", Decide: (&denyTools{}).decide, Log: io.Discard}, Token: testToken})
	if err != nil {
		f.Fatal(err)
	}
	h := hh.(*handler)
	f.Fuzz(func(t *testing.T, value string) {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", nil)
		r.Header["Authorization"] = []string{value}
		scheme, rest, _ := strings.Cut(value, " ")
		want := strings.EqualFold(scheme, "bearer") && strings.TrimLeft(rest, " ") == testToken
		if got := h.authorized(r); got != want {
			t.Errorf("authorized(%q) = %v", value, got)
		}
	})
}
