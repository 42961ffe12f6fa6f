package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// httpProxy is a running `moat mcp proxy --upstream`: where it listens, the token its
// clients must send, and what it said on stderr after that.
type httpProxy struct {
	cmd      *exec.Cmd
	endpoint string
	token    string
	stderr   *syncBuffer
}

// startHTTPProxy starts `moat mcp proxy --upstream upstream` with the test policy and the
// fake HOME of e, and reads from its stderr where it listens and which token it wants.
// With MOAT_MCP_TOKEN in env, the token is that one; else it is the one moat printed.
// The proxy is stopped with SIGINT at the end of the test.
func startHTTPProxy(t *testing.T, e *mcpEnv, upstream string, args []string, env ...string) *httpProxy {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, moatBinary(t), append([]string{"mcp", "proxy", "--policy", e.policy, "--name", "peer", "--upstream", upstream}, args...)...)
	cmd.Dir = e.project
	cmd.Env = append([]string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH")}, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &httpProxy{cmd: cmd, stderr: &syncBuffer{}}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "MOAT_MCP_TOKEN="); ok {
			p.token = v
		}
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Errorf("the proxy did not stop on SIGINT; stderr:\n%s", p.stderr)
			cancel()
			<-done
		}
		cancel()
	})
	lines := bufio.NewReader(stderr)
	said := make(chan error, 1)
	go func() {
		for p.endpoint == "" || p.token == "" {
			line, err := lines.ReadString('\n')
			if err != nil {
				said <- fmt.Errorf("%v after %q", err, p.stderr)
				return
			}
			p.stderr.Write([]byte(line))
			if i := strings.LastIndex(line, " on http://127.0.0.1:"); i >= 0 {
				p.endpoint = strings.TrimSpace(line[i+len(" on "):])
			}
			if rest, ok := strings.CutPrefix(line, `moat: clients must send "Authorization: Bearer `); ok && !strings.HasPrefix(rest, "$") {
				p.token, _, _ = strings.Cut(rest, `"`)
			}
		}
		said <- nil
	}()
	select {
	case err := <-said:
		if err != nil {
			t.Fatalf("the proxy did not say where it listens and which token it wants: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the proxy did not say where it listens and which token it wants in 30 s: %q", p.stderr)
	}
	go io.Copy(p.stderr, lines)
	return p
}

// bearer is an http.RoundTripper that sends a token, as an agent's MCP entry with
// "headers": {"Authorization": "Bearer TOKEN"} does.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// client is an HTTP client that sends the proxy's token.
func (p *httpProxy) client() *http.Client {
	return &http.Client{Transport: bearer{p.token, http.DefaultTransport}}
}
