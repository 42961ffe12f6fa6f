package linux

import (
	"os"

	"github.com/moatdev/moat/internal/sandbox"
)

// Feature is one thing a sandbox can restrict, and whether this kernel lets moat
// restrict it.
type Feature struct {
	Name     string `json:"name"`
	MinABI   int    `json:"min_abi,omitempty"` // 0: not a Landlock feature
	Enforced bool   `json:"enforced"`
	Note     string `json:"note,omitempty"`
}

// Status is what `moat sandbox status` reports about this machine.
type Status struct {
	ABI      int       `json:"landlock_abi"`
	Error    string    `json:"error,omitempty"`
	Features []Feature `json:"features"`
}

// KernelStatus reports what moat launch can enforce on the running kernel.
func KernelStatus() Status {
	abi, err := KernelABI()
	s := Status{ABI: abi}
	if err != nil {
		s.Error = err.Error()
	}
	s.Features = features(abi, kernelErrata(), sandbox.MPTCPEnabled())
	return s
}

// features lists what moat restricts, per Landlock ABI.
func features(abi, errata int, mptcp bool) []Feature {
	scopes := abi >= 6 && errata&2 != 0
	scopeNote := ""
	if abi >= 6 && !scopes {
		scopeNote = "this kernel lacks the fix of Landlock erratum 2 (signal scoping), so scoping is not used"
	}
	tcpNote := "connect and bind, by port: Landlock does not see host names or addresses"
	switch {
	case MPTCPFilterable():
		tcpNote += "; Landlock does not see multipath TCP sockets, so moat refuses to create them (seccomp) when ports are restricted"
	case mptcp:
		tcpNote += "; multipath TCP is enabled on this kernel, Landlock does not see MPTCP sockets, and moat has no filter for this architecture: a program that opens one is not held to the port lists"
	}
	return []Feature{
		{Name: "file system: read, write, execute, create, delete", MinABI: 1, Enforced: abi >= 1},
		{Name: "file system: move and link between directories", MinABI: 2, Enforced: abi >= 2, Note: "below ABI 2 every such move is refused"},
		{Name: "file system: truncate", MinABI: 3, Enforced: abi >= 3},
		{Name: "network: TCP connect and bind ports", MinABI: 4, Enforced: abi >= 4, Note: tcpNote},
		{Name: "devices: ioctl", MinABI: 5, Enforced: abi >= 5},
		{Name: "scope: abstract unix sockets", MinABI: 6, Enforced: scopes, Note: scopeNote},
		{Name: "scope: signals", MinABI: 6, Enforced: scopes, Note: scopeNote},
		{Name: "pathname unix sockets", MinABI: 9, Enforced: false, Note: "not restricted by moat: agents reach ssh-agent, Docker and D-Bus through them"},
		{Name: "network: UDP", MinABI: 10, Enforced: false, Note: "not restricted by moat: DNS needs it"},
		{Name: "resource limits: memory, open files, processes, CPU time", Enforced: true, Note: rootNote()},
		{Name: "environment: secret-looking variables dropped", Enforced: true},
	}
}

func rootNote() string {
	if os.Geteuid() == 0 {
		return "running as root: the kernel does not apply the process limit to root"
	}
	return ""
}
