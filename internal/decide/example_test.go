package decide_test

import (
	"context"
	"fmt"
	"os"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
)

// An entry point looks the policy up once, then decides (and, with Record, records) each
// call under its key. Here no policy file is found, so the embedded recommended policy
// applies.
func Example() {
	home, err := os.MkdirTemp("", "moat-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(home)
	getenv := func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	svc := decide.NewLocal(decide.Options{Getenv: getenv})
	ctx := context.Background()
	pol, err := svc.Lookup(ctx, decide.Scope{Cwd: home})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": "rm -rf ~"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c.Cwd = home
	res, err := svc.Decide(ctx, decide.CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pol.Name)
	fmt.Println(res.Decision.Verdict, res.Decision.Rule)
	// Output:
	// embedded:recommended
	// deny deny-delete-root-home-system
}
