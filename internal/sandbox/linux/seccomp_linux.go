//go:build linux

package linux

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock's TCP rules see only classic TCP sockets: a multipath TCP socket (IPPROTO_MPTCP)
// can connect to any port and serve plain TCP clients on any port. When the sandbox
// restricts ports, moat installs a seccomp filter that makes creating such a socket fail
// with EPROTONOSUPPORT, as on a kernel without MPTCP, so programs fall back to plain TCP,
// which the port rules hold. Like the Landlock domain, the filter is installed on the
// thread about to exec, and every process started inside inherits it.

// seccompArch is what the filter needs to know about the system calls of an architecture.
type seccompArch struct {
	audit      uint32
	socket     uint32
	socketcall uint32 // 0: the architecture has no socketcall multiplexer
}

// seccomp_data offsets: nr, arch, then the arguments, 8 bytes each (the low half first on
// the little-endian architectures below).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg2 = 32
)

// sysSocketcallSocket is socketcall(2)'s call number for socket(2). socketcall passes the
// protocol in memory, which seccomp cannot read, so a 32-bit program's socketcall(SOCKET)
// is refused whole; current 32-bit C libraries call socket(2) directly.
const sysSocketcallSocket = 1

// bpf is a small assembler: instructions whose jumps name labels.
type bpfInsn struct {
	code   uint16
	k      uint32
	jt, jf string
	label  string
}

func mptcpFilter(native seccompArch, compat *seccompArch) ([]unix.SockFilter, error) {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []bpfInsn{
		{code: ld, k: offArch},
		{code: jeq, k: native.audit, jt: "native", jf: "foreign"},
		{label: "native", code: ld, k: offNr},
		{code: jeq, k: native.socket, jt: "socket-args", jf: "allow"},
		{label: "socket-args", code: ld, k: offArg2},
		{code: jeq, k: unix.IPPROTO_MPTCP, jt: "deny", jf: "allow"},
	}
	if compat != nil {
		prog = append(prog,
			bpfInsn{label: "foreign", code: jeq, k: compat.audit, jt: "compat", jf: "allow"},
			bpfInsn{label: "compat", code: ld, k: offNr},
			bpfInsn{code: jeq, k: compat.socket, jt: "compat-socket-args", jf: "compat-socketcall"},
			bpfInsn{label: "compat-socket-args", code: ld, k: offArg2},
			bpfInsn{code: jeq, k: unix.IPPROTO_MPTCP, jt: "deny", jf: "allow"},
		)
		if compat.socketcall != 0 {
			prog = append(prog,
				bpfInsn{label: "compat-socketcall", code: jeq, k: compat.socketcall, jt: "socketcall-args", jf: "allow"},
				bpfInsn{label: "socketcall-args", code: ld, k: offArg0},
				bpfInsn{code: jeq, k: sysSocketcallSocket, jt: "deny", jf: "allow"},
			)
		} else {
			prog = append(prog, bpfInsn{label: "compat-socketcall", code: ret, k: unix.SECCOMP_RET_ALLOW})
		}
	} else {
		prog = append(prog, bpfInsn{label: "foreign", code: ret, k: unix.SECCOMP_RET_ALLOW})
	}
	prog = append(prog,
		bpfInsn{label: "allow", code: ret, k: unix.SECCOMP_RET_ALLOW},
		bpfInsn{label: "deny", code: ret, k: unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)},
	)
	labels := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			labels[in.label] = i
		}
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k}
		for _, j := range []struct {
			label string
			dst   *uint8
		}{{in.jt, &out[i].Jt}, {in.jf, &out[i].Jf}} {
			if j.label == "" {
				continue
			}
			to, ok := labels[j.label]
			if !ok || to <= i || to-i-1 > 255 {
				return nil, fmt.Errorf("seccomp filter: bad jump from %d to %q", i, j.label)
			}
			*j.dst = uint8(to - i - 1)
		}
	}
	return out, nil
}

// MPTCPFilterable reports whether moat has a filter that refuses multipath TCP sockets
// for this architecture (a plan needs to know: sandbox.Options.MPTCPFilter).
func MPTCPFilterable() bool {
	_, _, ok := seccompArchs()
	return ok
}

// refuseMPTCP installs the filter on the calling thread; no_new_privs must be set.
func refuseMPTCP() error {
	native, compat, ok := seccompArchs()
	if !ok {
		return nil
	}
	filter, err := mptcpFilter(native, compat)
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := syscall.Syscall(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("installing the seccomp filter against multipath TCP: %w", errno)
	}
	return nil
}
