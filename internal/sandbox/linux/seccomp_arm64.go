//go:build linux && arm64

package linux

import "golang.org/x/sys/unix"

func seccompArchs() (seccompArch, *seccompArch, bool) {
	// 32-bit ARM programs: socket is 281, and there is no socketcall.
	return seccompArch{audit: unix.AUDIT_ARCH_AARCH64, socket: unix.SYS_SOCKET},
		&seccompArch{audit: unix.AUDIT_ARCH_ARM, socket: 281}, true
}
