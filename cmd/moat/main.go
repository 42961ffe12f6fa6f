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
	// Run as moat-shell (a link to this binary), moat is the guarded shell.
	os.Exit(cli.Main(cli.ProgramArgs(os.Args), cli.OSEnv()))
}
