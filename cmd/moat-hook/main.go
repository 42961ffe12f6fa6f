// Command moat-hook is the thin hook client: `moat-hook AGENT [flags]` answers an
// agent's hook as `moat hook AGENT [flags]` does, through the user's moat daemon when it
// runs, else through moat hook itself.
package main

import (
	"os"

	"github.com/moatdev/moat/internal/hookrelay"
)

func main() {
	os.Exit(hookrelay.Main(os.Args[1:], hookrelay.OSEnv()))
}
