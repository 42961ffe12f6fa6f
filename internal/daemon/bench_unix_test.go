//go:build linux || darwin

package daemon

import (
	"context"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
)

// BenchmarkDecide compares, for one shell call, deciding in the process (Local) with
// asking a daemon in the same process over its socket (Remote): the difference is the
// cost of the wire, one JSON encoding each way and a round trip on the socket.
func BenchmarkDecide(b *testing.B) {
	env := newTestEnv(b)
	local := env.local()
	p := serve(b, newServer(b, Options{Service: env.local()}))
	remote := decide.NewRemote(decide.DialUnix(p.Socket))
	defer remote.Close()
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": "git status && rm -rf build"})
	if err != nil {
		b.Fatal(err)
	}
	c.Cwd = env.project
	for _, svc := range []struct {
		name string
		s    decide.Service
	}{{"local", local}, {"remote", remote}} {
		b.Run(svc.name, func(b *testing.B) {
			ctx := context.Background()
			pol, err := svc.s.Lookup(ctx, decide.Scope{Cwd: env.project})
			if err != nil {
				b.Fatal(err)
			}
			req := decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}}
			for b.Loop() {
				if _, err := svc.s.Decide(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
