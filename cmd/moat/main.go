// Command moat is a guardrail for AI coding agents: it decides, before each action an agent
// takes, whether the action may run.
package main

import (
	"os"

	"github.com/moatdev/moat/internal/cli"
)

func main() {
	// Run as moat-shell (a link to this binary), moat is the guarded shell.
	os.Exit(cli.Main(cli.ProgramArgs(os.Args), cli.OSEnv()))
}
