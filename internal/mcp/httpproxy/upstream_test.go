package httpproxy

import (
	"strings"
	"testing"
)

func TestParseUpstream(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret", "HOST": "mcp.example.com"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name, spec string
		url        string
		header     map[string]string
		err        string
	}{
		{name: "plain", spec: `{"url":"https://mcp.example.com/mcp"}`, url: "https://mcp.example.com/mcp"},
		{name: "expanded", spec: `{"url":"https://${HOST}/mcp","headers":{"Authorization":"Bearer ${TOKEN}","X-Team":"${TEAM:-core}","X-Key":"${env:TOKEN}"}}`,
			url: "https://mcp.example.com/mcp", header: map[string]string{"Authorization": "Bearer s3cret", "X-Team": "core", "X-Key": "s3cret"}},
		{name: "unset variable", spec: `{"url":"https://h/mcp","headers":{"Authorization":"Bearer ${MISSING}"}}`, err: "the header Authorization refers to the environment variable MISSING, which is not set"},
		{name: "not http", spec: `{"url":"file:///etc/passwd"}`, err: "must be an http or https URL"},
		{name: "unknown key", spec: `{"url":"https://h/mcp","oauth":{}}`, err: `unknown field "oauth"`},
		{name: "duplicate key", spec: `{"url":"https://h/mcp","url":"https://evil/mcp"}`, err: "not valid JSON"},
		{name: "header not a string", spec: `{"url":"https://h/mcp","headers":{"X":1}}`, err: "with string values"},
		{name: "header injection", spec: `{"url":"https://h/mcp","headers":{"X":"a\r\nHost: evil"}}`, err: "holds a line break"},
		{name: "bad header name", spec: `{"url":"https://h/mcp","headers":{"X Y":"a"}}`, err: `the header name "X Y" is not valid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := ParseUpstream(tc.spec, getenv)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v; want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "s3cret") {
					t.Errorf("the error quotes a credential: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.URL.String() != tc.url {
				t.Errorf("url = %s; want %s", u.URL, tc.url)
			}
			if len(u.Header) != len(tc.header) {
				t.Errorf("headers = %v; want %v", u.Header, tc.header)
			}
			for k, v := range tc.header {
				if got := u.Header.Get(k); got != v {
					t.Errorf("header %s = %q; want %q", k, got, v)
				}
			}
		})
	}
}
