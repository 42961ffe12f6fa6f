package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
)

// Exit statuses. Each number means one thing in every command (the README's table);
// `moat hook` answers in the agents' protocol instead, and `moat run` and moat-shell
// exit with the command's own status once it runs.
const (
	// exitOK: the command did what was asked; for check, the call is allowed.
	exitOK = 0
	// exitError: moat could not do what was asked (an invalid policy, failed tests, an
	// I/O error, a refused approval, no daemon where one is needed).
	exitError = 1
	// exitAsk: the call would be asked (check).
	exitAsk = 2
	// exitDeny: the call would be denied (check), or what was examined is dangerous
	// (mcp scan: a poisoned or changed tool, which the proxy refuses or holds).
	exitDeny = 3
	// exitUsage: the command line is wrong (an unknown command or flag, a missing or
	// extra argument, a value moat does not know), as sysexits' EX_USAGE.
	exitUsage = 64
	// exitHookUsage is `moat hook`'s status for a hook invoked wrongly (an unknown agent,
	// a bad flag): 2 is the status that blocks in every agent's protocol, so that a broken
	// hook configuration never lets calls through unchecked.
	exitHookUsage = 2
	// exitLaunchFailed: `moat launch` could not set up the sandbox, and nothing ran (as
	// env(1) and container runtimes use it).
	exitLaunchFailed = 125
	// exitGuardRefused: `moat run` and moat-shell did not run the command (the policy
	// denied it, the user did not approve it, or moat could not decide). It is the
	// shell's "cannot execute", which agents already read as a command that did not run.
	exitGuardRefused = 126
	// exitGuardNotFound is the shell's "command not found", for an allowed command that
	// names no program.
	exitGuardNotFound = 127
)

// usageError is a command line moat cannot read.
func usageError(err error) error { return &exitCode{code: exitUsage, err: err} }

// markErrors gives every error of the command tree under c its status: flag and argument
// errors are usage errors, a command's own plain errors are errors (exitError). Commands
// that answer in another protocol (hook) set their own flag error function, which wins.
func markErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error {
				if err := args(cmd, a); err != nil {
					var ec *exitCode
					if errors.As(err, &ec) {
						return err
					}
					return usageError(fmt.Errorf("%s: %w", cmd.CommandPath(), err))
				}
				return nil
			}
		}
		if run := c.RunE; run != nil {
			c.RunE = func(cmd *cobra.Command, a []string) error {
				err := run(cmd, a)
				var ec *exitCode
				if err != nil && !errors.As(err, &ec) {
					return &exitCode{code: exitError, err: err}
				}
				return err
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(c)
}
