package httpproxy

import (
	"bufio"
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
		hh, err := New(Options{Upstream: u, Proxy: p, MaxBody: 4096})
		if err != nil {
			t.Fatal(err)
		}
		// A request with id 1 is pending, so that results are read as its answer.
		p.FromClient(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`))
		rec := httptest.NewRecorder()
		resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(in))}
		hh.(*handler).stream(rec, resp, exchange{}, nil)
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
