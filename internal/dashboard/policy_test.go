package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// request sends one request as the logged-in browser c (with the CSRF token for a
// change) and returns the status and body.
func request(t *testing.T, c *http.Client, origin, csrf, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, origin+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if method != http.MethodGet {
		req.Header.Set("Origin", origin)
		req.Header.Set(CSRFHeader, csrf)
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, data
}

// fakePolicies lists a fixed list, reads texts from a map and answers tries by the input.
type fakePolicies struct {
	list  PolicyList
	texts map[string]string
	tried []TryRequest
}

func (f *fakePolicies) List(context.Context) (PolicyList, error) { return f.list, nil }

func (f *fakePolicies) Text(_ context.Context, ref string) (string, error) {
	t, ok := f.texts[ref]
	if !ok {
		return "", fmt.Errorf("no text for %s", ref)
	}
	return t, nil
}

func (f *fakePolicies) Try(_ context.Context, req TryRequest) (TryResult, error) {
	f.tried = append(f.tried, req)
	switch req.Input {
	case "rm -rf ~":
		return TryResult{Decision: "deny", Rule: "rm-home", Reason: "deletes home", Class: "shell", Trace: "unit 1: rm -rf ~\n  rule rm-home: deny"}, nil
	case "bad":
		return TryResult{}, fmt.Errorf("%w: unknown tool", ErrInvalid)
	case "broken":
		return TryResult{}, fmt.Errorf("the decision service failed")
	}
	return TryResult{Decision: "allow", Rule: "ls", Class: "shell", Trace: "unit 1: ls"}, nil
}

func policyServer(t *testing.T, p Policies) (string, *http.Client, string) {
	t.Helper()
	s := New(Options{Policies: p})
	origin := served(t, s)
	c := browser(t)
	return origin, c, login(t, s, c)
}

func TestPoliciesList(t *testing.T) {
	p := &fakePolicies{list: PolicyList{Entries: []PolicyEntry{
		{Scope: ScopeProject, Project: "/w/a", Kind: "project", Path: "/w/a/moat.yaml", Name: "/w/a/moat.yaml", Trust: TrustTrusted, Rules: 3},
	}}}
	origin, c, _ := policyServer(t, p)
	code, body := request(t, c, origin, "", "GET", "/api/policies", nil)
	var got PolicyList
	if err := json.Unmarshal(body, &got); err != nil || code != http.StatusOK {
		t.Fatalf("GET /api/policies: %d %s (%v)", code, body, err)
	}
	if len(got.Entries) != 1 || got.Entries[0].Trust != TrustTrusted || got.Entries[0].Rules != 3 {
		t.Errorf("entries: %+v", got.Entries)
	}
	// Without a source the page says so, with an error.
	origin, c, _ = policyServer(t, nil)
	if code, body := request(t, c, origin, "", "GET", "/api/policies", nil); code != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"error"`)) {
		t.Errorf("without policies: %d %s", code, body)
	}
}

// The text of a policy is shown for the files the list names, and for no other path.
func TestPolicyTextOnlyForListedPolicies(t *testing.T) {
	p := &fakePolicies{
		list: PolicyList{Entries: []PolicyEntry{
			{Scope: ScopeProject, Project: "/w/a", Kind: "user", Path: "/h/.config/moat/moat.yaml", Name: "/h/.config/moat/moat.yaml",
				Skipped: []SkippedPolicy{{Path: "/w/a/moat.yaml", Status: TrustUntrusted, Why: "not trusted"}}},
			{Scope: ScopeUser, Kind: "user", Path: "/h/.config/moat/moat.yaml", Name: "/h/.config/moat/moat.yaml"},
			{Scope: ScopeUser, Kind: "user", Path: "/h/missing.yaml", Missing: true},
			{Scope: ScopeEmbedded, Kind: "embedded", Name: "embedded:recommended"},
		}},
		texts: map[string]string{
			"/h/.config/moat/moat.yaml": "rules: []\n",
			"/w/a/moat.yaml":            "rules: [untrusted]\n",
			"embedded:recommended":      "default: ask\n",
			"/etc/shadow":               "root:x",
			"/h/missing.yaml":           "never",
		},
	}
	origin, c, _ := policyServer(t, p)
	for _, tc := range []struct {
		ref  string
		code int
		text string
	}{
		{"/h/.config/moat/moat.yaml", http.StatusOK, "rules: []\n"},
		{"/w/a/moat.yaml", http.StatusOK, "rules: [untrusted]\n"},
		{"embedded:recommended", http.StatusOK, "default: ask\n"},
		{"/etc/shadow", http.StatusNotFound, ""},
		{"/w/a/../../etc/shadow", http.StatusNotFound, ""},
		{"/h/missing.yaml", http.StatusNotFound, ""},
		{"", http.StatusBadRequest, ""},
		{strings.Repeat("a", maxPathRef+1), http.StatusBadRequest, ""},
	} {
		code, body := request(t, c, origin, "", "GET", "/api/policies/text?path="+url.QueryEscape(tc.ref), nil)
		var got policyText
		json.Unmarshal(body, &got)
		if code != tc.code || got.Text != tc.text {
			t.Errorf("text of %.40q: %d %s, want %d %q", tc.ref, code, body, tc.code, tc.text)
		}
	}
}

func TestTry(t *testing.T) {
	p := &fakePolicies{}
	origin, c, csrf := policyServer(t, p)
	for _, tc := range []struct {
		name string
		req  any
		code int
		want string // in the body
	}{
		{"deny with trace", TryRequest{Agent: "claude-code", Tool: "Bash", Input: "rm -rf ~", Cwd: "/w/a"}, http.StatusOK, `"trace":"unit 1: rm -rf ~\n  rule rm-home: deny"`},
		{"allow", TryRequest{Input: "ls", Cwd: "/w/a"}, http.StatusOK, `"decision":"allow"`},
		{"no findings is an empty list", TryRequest{Input: "ls", Cwd: "/w/a"}, http.StatusOK, `"findings":[]`},
		{"the request's fault", TryRequest{Input: "bad", Cwd: "/w/a"}, http.StatusBadRequest, "unknown tool"},
		{"the service's fault", TryRequest{Input: "broken", Cwd: "/w/a"}, http.StatusInternalServerError, "failed"},
		{"no input", TryRequest{Cwd: "/w/a"}, http.StatusBadRequest, "input"},
		{"relative cwd", TryRequest{Input: "ls", Cwd: "w/a"}, http.StatusBadRequest, "cwd"},
		{"no cwd", TryRequest{Input: "ls"}, http.StatusBadRequest, "cwd"},
		{"huge input", TryRequest{Input: strings.Repeat("x", maxTryInput+1), Cwd: "/w/a"}, http.StatusBadRequest, "longer"},
		{"unknown field", map[string]string{"input": "ls", "cwd": "/w/a", "record": "yes"}, http.StatusBadRequest, "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := request(t, c, origin, csrf, "POST", "/api/try", tc.req)
			if code != tc.code || !strings.Contains(string(body), tc.want) {
				t.Errorf("%d %s, want %d holding %q", code, body, tc.code, tc.want)
			}
		})
	}
	// Trying runs the decision service: it is a change, refused without the CSRF token.
	n := len(p.tried)
	if code, _ := request(t, c, origin, "wrong", "POST", "/api/try", TryRequest{Input: "ls", Cwd: "/w/a"}); code != http.StatusForbidden || len(p.tried) != n {
		t.Errorf("try without the CSRF token: %d, %d tries", code, len(p.tried)-n)
	}
}

func TestTryOptions(t *testing.T) {
	origin, c, _ := policyServer(t, &fakePolicies{})
	code, body := request(t, c, origin, "", "GET", "/api/try/options", nil)
	var o tryOptions
	if err := json.Unmarshal(body, &o); err != nil || code != http.StatusOK {
		t.Fatalf("%d %s %v", code, body, err)
	}
	if len(o.Agents) != len(call.Agents()) || o.Agents[0] != string(call.Agents()[0]) {
		t.Errorf("agents %v", o.Agents)
	}
	if !strings.Contains(strings.Join(o.Classes, " "), "shell") || strings.Contains(strings.Join(o.Classes, " "), "mcp") {
		t.Errorf("classes %v", o.Classes)
	}
	if tools := strings.Join(o.Tools["claude-code"], " "); !strings.Contains(tools, "Bash") || !strings.Contains(tools, "Read") {
		t.Errorf("claude-code tools %v", o.Tools["claude-code"])
	}
	for agent, tools := range o.Tools {
		for _, tool := range tools {
			if nt, ok := call.LookupTool(call.Agent(agent), tool); !ok || nt.Unsupported != "" {
				t.Errorf("%s offers %s, which moat check cannot decide", agent, tool)
			}
		}
	}
}
