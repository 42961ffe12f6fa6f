package httpproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/mcp"
)

// TestAuth: the case found was another local user calling the proxy without
// MOAT_MCP_TOKEN, and the server receiving the owner's Authorization header. Every
// request without the token is refused, with a JSON-RPC error, before anything reaches
// the server; with --allow-remote as well.
func TestAuth(t *testing.T) {
	const token = "the-right-token-0123456789"
	for _, tt := range []struct {
		name        string
		method      string
		auth        []string // Authorization headers sent
		host        string
		allowRemote bool
		status      int
	}{
		{name: "no Authorization", status: 401},
		{name: "no Authorization, GET", method: http.MethodGet, status: 401},
		{name: "no Authorization, DELETE", method: http.MethodDelete, status: 401},
		{name: "no Authorization with allow-remote", allowRemote: true, host: "proxy.example:8080", status: 401},
		{name: "a wrong token", auth: []string{"Bearer the-wrong-token-0123456789"}, status: 401},
		{name: "the token and more", auth: []string{"Bearer " + token + "x"}, status: 401},
		{name: "a prefix of the token", auth: []string{"Bearer " + token[:len(token)-1]}, status: 401},
		{name: "an empty token", auth: []string{"Bearer "}, status: 401},
		{name: "the token as Basic", auth: []string{"Basic " + token}, status: 401},
		{name: "the token without a scheme", auth: []string{token}, status: 401},
		{name: "the token twice, once wrong", auth: []string{"Bearer " + token, "Bearer nope-nope-nope-nope"}, status: 401},
		{name: "the token", auth: []string{"Bearer " + token}, status: 200},
		{name: "the token, scheme in lower case", auth: []string{"bearer " + token}, status: 200},
		{name: "the token with allow-remote", auth: []string{"Bearer " + token}, allowRemote: true, host: "proxy.example:8080", status: 200},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up := &rawUpstream{}
			upSrv := httptest.NewServer(answersMoatLists(up))
			defer upSrv.Close()
			u, _ := url.Parse(upSrv.URL)
			h, err := New(Options{
				Upstream: u, Token: token, AllowRemote: tt.allowRemote,
				// The owner's credentials for the server, which a caller without the
				// token must never get to use.
				Header: http.Header{"Authorization": {"Bearer owner-secret"}},
				Proxy:  &mcp.Proxy{Server: "peer", Decide: (&denyTools{}).decide, Log: io.Discard},
			})
			if err != nil {
				t.Fatal(err)
			}
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			req := httptest.NewRequest(method, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if tt.host != "" {
				req.Host = tt.host
			}
			req.Header.Set("Content-Type", "application/json")
			for _, a := range tt.auth {
				req.Header.Add("Authorization", a)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.status != 401 {
				if up.count() != 1 || up.headers[0].Get("Authorization") != "Bearer owner-secret" {
					t.Errorf("the server got %d requests, headers %v", up.count(), up.headers)
				}
				return
			}
			if up.count() != 0 {
				t.Errorf("a request without the token reached the server: %q", up.bodies)
			}
			if rec.Header().Get("WWW-Authenticate") == "" {
				t.Error("no WWW-Authenticate")
			}
			var msg struct {
				JSONRPC string
				Error   struct {
					Code    int
					Message string
				}
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" || msg.Error.Code == 0 || !strings.Contains(msg.Error.Message, "token") {
				t.Errorf("the 401 is not a JSON-RPC error about the token: %s (%v)", rec.Body, err)
			}
			if strings.Contains(rec.Body.String(), token) {
				t.Error("the answer gives the token away")
			}
		})
	}
}

func TestNewToken(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	if a == b || checkToken(a) != nil || len(a) < 40 {
		t.Errorf("tokens %q and %q", a, b)
	}
}
