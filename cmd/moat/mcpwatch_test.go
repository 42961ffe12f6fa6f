package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/trust"
)

// callEcho sends a tools/call of echo with id and returns the proxy's answer.
func (p *rawProxy) callEcho(t *testing.T, id int) string {
	t.Helper()
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, id))
	return p.receive(t)
}

// echoUntil calls echo until the answer satisfies ok, and returns it.
func (p *rawProxy) echoUntil(t *testing.T, what string, id *int, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		*id++
		got := p.callEcho(t, *id)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s; last answer %s\nstderr: %s", what, got, p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

const denyEcho = `
  - id: no-echo
    tool: mcp:peer/echo
    decision: deny
    reason: echo is off
`

// TestMCPProxyFollowsPolicyEdits: an edit of the policy decides the proxy's next calls
// without a restart, and a broken edit keeps the policy in force, with a notice in the
// next refusal.
func TestMCPProxyFollowsPolicyEdits(t *testing.T) {
	e := newMCPEnv(t)
	p := startRawProxy(t, e)
	id := 0
	if got := p.callEcho(t, id); strings.Contains(got, "blocked by moat") {
		t.Fatalf("echo under the first policy: %s", got)
	}

	if err := os.WriteFile(e.policy, []byte(mcpTestPolicy+denyEcho), 0o600); err != nil {
		t.Fatal(err)
	}
	p.echoUntil(t, "the edit denies echo", &id, func(s string) bool { return strings.Contains(s, "blocked by moat: echo is off") })
	firstDenied := id

	if err := os.WriteFile(e.policy, []byte("version: 1\nrules: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got := p.echoUntil(t, "the broken edit is told", &id, func(s string) bool { return strings.Contains(s, "not applied") })
	if !strings.Contains(got, "blocked by moat: echo is off") || !strings.Contains(got, "still enforcing "+e.policy) {
		t.Errorf("echo under a broken edit: %s; want the last good policy's refusal, with the notice", got)
	}
	id++
	if got := p.callEcho(t, id); !strings.Contains(got, "blocked by moat: echo is off") || strings.Contains(got, "not applied") {
		t.Errorf("the next call: %s; want refused, the notice told once", got)
	}
	log := e.serverLog(t)
	for n := firstDenied; n <= id; n++ {
		if strings.Contains(log, fmt.Sprintf(`"id":%d,"method":"tools/call"`, n)) {
			t.Errorf("call %d of echo reached the server after the edit denied it:\n%s", n, log)
		}
	}
}

// TestMCPProxyKeepsTrustedVersion: a trusted project policy edited without trusting it
// again still decides as trusted once the proxy has seen the edit.
func TestMCPProxyKeepsTrustedVersion(t *testing.T) {
	e := newMCPEnv(t)
	if err := os.MkdirAll(filepath.Join(e.project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(e.project, "moat.yaml")
	trusted := mcpTestPolicy + denyEcho
	if err := os.WriteFile(file, []byte(trusted), 0o600); err != nil {
		t.Fatal(err)
	}
	store := trust.Open(filepath.Join(e.home, ".local", "state", "moat", "trusted.json"))
	if err := store.Trust(file, []byte(trusted), time.Now()); err != nil {
		t.Fatal(err)
	}
	cmd := e.proxy(t, "mcp-raw-server")
	cmd.Args = []string{cmd.Args[0], "mcp", "proxy", "--name", "peer", "--", "mcp-raw-server"} // the project's policy
	p := &rawProxy{cmd: cmd, stderr: &syncBuffer{}}
	startProxyCmd(t, p)
	if got := p.callEcho(t, 1); !strings.Contains(got, "blocked by moat: echo is off") {
		t.Fatalf("echo under the trusted project policy: %s\nstderr: %s", got, p.stderr.String())
	}
	if err := os.WriteFile(file, []byte("version: 1\ndefault: allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.stderr.String(), "changed since you trusted it") {
		if time.Now().After(deadline) {
			t.Fatalf("the proxy did not look at the edit; stderr:\n%s", p.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := p.callEcho(t, 2); !strings.Contains(got, "blocked by moat: echo is off") {
		t.Errorf("echo after an edit not trusted: %s; want refused by the trusted version", got)
	}
}
