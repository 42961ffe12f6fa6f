package hookrelay

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
)

// OSEnv is the environment of the running process.
func OSEnv() Env {
	return Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Getwd: os.Getwd, Executable: os.Executable, LookPath: exec.LookPath,
		Fallback: execMoat,
	}
}

// runMoat runs moat as a child with payload on its standard input and this process's
// output, and exits with its status; a moat ended by a signal gave no answer, and the
// call is blocked. It returns only when moat could not be started.
func runMoat(path string, args []string, payload []byte) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &exit):
		if code := exit.ExitCode(); code >= 0 {
			os.Exit(code)
		}
		os.Stderr.WriteString("moat-hook: moat hook was ended by a signal; blocking\n")
		os.Exit(exitBlock)
	}
	return err
}
