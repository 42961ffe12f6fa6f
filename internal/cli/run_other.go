//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execProgram runs the program in moat's place where a process cannot be replaced: as a
// child with moat's standard streams, and moat exits with its status.
func execProgram(path string, argv, env []string) error {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
