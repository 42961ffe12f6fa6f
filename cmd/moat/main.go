// Command moat is a guardrail for AI coding agents: it decides, before each action an agent
// takes, whether the action may run.
package main

import (
	"os"

	"github.com/moatdev/moat/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], cli.OSEnv())) }
