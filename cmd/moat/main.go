// Command moat is a guardrail for AI coding agents: it decides, before each action an agent
// takes, whether the action may run.
package main

import (
	"os"

	"github.com/moatdev/moat/internal/cli"
	"github.com/moatdev/moat/internal/hugeheap"
)

func main() {
	// Most runs of moat are hooks, one short process per tool call: back its heap with
	// huge pages before it is used.
	hugeheap.Advise()
	os.Exit(cli.Main(os.Args[1:], cli.OSEnv()))
}
