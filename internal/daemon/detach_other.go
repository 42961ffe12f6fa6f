//go:build !unix

package daemon

import "syscall"

// Detached is how `moat daemon start` starts the daemon (which refuses to run here).
func Detached() *syscall.SysProcAttr { return nil }
