//go:build unix

package cli

import "syscall"

// execProgram replaces moat with the program: same process, standard streams, terminal
// and signals, and the program's exit status is the status of the command moat ran.
func execProgram(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
