package mcp

import (
	"os/exec"
	"syscall"
)

// endWithParent has the kernel kill the server if the proxy dies, so that a killed proxy
// leaves no orphan holding the agent's tools.
func endWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
