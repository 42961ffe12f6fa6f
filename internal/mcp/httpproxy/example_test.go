package httpproxy_test

import (
	"context"
	"fmt"
	"net/url"
	"os"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/mcp"
	"github.com/moatdev/moat/internal/mcp/httpproxy"
)

// A proxy for an MCP server at https://mcp.example.com/mcp, on a loopback port, that
// refuses every tool call the decider denies. The agent's config then points the
// server's url at the proxy.
func Example() {
	upstream, _ := url.Parse("https://mcp.example.com/mcp")
	// Every client must send "Authorization: Bearer TOKEN": hand the token to the agent's
	// config (its MCP entry's headers), never to other users of the machine.
	token, err := httpproxy.NewToken()
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := httpproxy.New(httpproxy.Options{
		Upstream: upstream,
		Token:    token,
		Proxy: &mcp.Proxy{
			Server: "example",
			Decide: func(ctx context.Context, c call.Call) call.Decision {
				return call.Decision{Verdict: call.Allow, Rule: "example"}
			},
			Log: os.Stderr,
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := httpproxy.Listen("127.0.0.1:0", false)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // an example stops at once; moat serves until it is told to stop
	fmt.Println(httpproxy.Serve(ctx, ln, h))

	_, err = httpproxy.Listen("0.0.0.0:0", false)
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}
