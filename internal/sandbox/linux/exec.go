package linux

import (
	"errors"
	"fmt"
	"syscall"
)

// ExecError is a failure of execve(2) itself.
type ExecError struct {
	Path string
	Err  error
}

func (e *ExecError) Error() string {
	msg := fmt.Sprintf("running %s: %v", e.Path, e.Err)
	if errors.Is(e.Err, syscall.EACCES) {
		msg += " (the sandbox may not grant exec on it: see moat launch --dry-run)"
	}
	return msg
}

func (e *ExecError) Unwrap() error { return e.Err }
