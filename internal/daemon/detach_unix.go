//go:build unix

package daemon

import "syscall"

// Detached is how `moat daemon start` starts the daemon: in a session of its own, so
// that the terminal's hangup and job-control signals do not reach it.
func Detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
