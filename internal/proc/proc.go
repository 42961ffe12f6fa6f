// Package proc reads what the hook needs to know about the processes that started it:
// their arguments and whether their standard input and output are terminals.
package proc

// Info is one process, as far as it could be read.
type Info struct {
	PID  int
	Args []string
	// StdinTTY and StdoutTTY say whether the process's standard input and output are
	// terminals.
	StdinTTY, StdoutTTY bool
}

// maxDepth bounds the walk up the process tree: a hook is started by its agent through
// a shell at most, and the agent may have relaunched itself once.
const maxDepth = 4
