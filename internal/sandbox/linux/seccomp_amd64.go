//go:build linux && amd64

package linux

import "golang.org/x/sys/unix"

func seccompArchs() (seccompArch, *seccompArch, bool) {
	// 32-bit programs: socket is 359 and socketcall 102 on i386.
	return seccompArch{audit: unix.AUDIT_ARCH_X86_64, socket: unix.SYS_SOCKET},
		&seccompArch{audit: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102}, true
}
