package sandbox_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/sandbox"
)

// The environment filter drops what looks like a secret unless the policy keeps it.
func ExampleFilterEnv() {
	sec, err := sandbox.Effective(nil)
	if err != nil {
		panic(err)
	}
	sec.Env.Allow = []string{"ANTHROPIC_API_KEY"}
	kept, dropped := sandbox.FilterEnv([]string{"PATH=/usr/bin", "GITHUB_TOKEN=t", "ANTHROPIC_API_KEY=k", "SSH_AUTH_SOCK=/tmp/a"}, sec.Env)
	fmt.Println(kept)
	fmt.Println(dropped)
	// Output:
	// [PATH=/usr/bin ANTHROPIC_API_KEY=k]
	// [GITHUB_TOKEN SSH_AUTH_SOCK]
}
