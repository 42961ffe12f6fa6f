//go:build !linux

package mcp

import "os/exec"

// endWithParent does nothing where the kernel cannot tie a child's life to its parent's:
// there the proxy ends the server on every exit path it controls.
func endWithParent(cmd *exec.Cmd) {}
