//go:build linux

package linux

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Landlock system calls are made here directly rather than through go-landlock: moat
// restricts only the thread that is about to exec (the exec'd program starts with that
// thread's domain), so it needs none of go-landlock's all-threads machinery, whose psx
// dependency the module does not otherwise carry.

func kernelABI() (int, error) {
	v, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		if errno == syscall.ENOSYS || errno == syscall.EOPNOTSUPP {
			return 0, fmt.Errorf("%w (not built into the kernel, or not enabled at boot: add landlock to the lsm= kernel parameter)", ErrNoLandlock)
		}
		return 0, fmt.Errorf("%w: landlock_create_ruleset: %v", ErrNoLandlock, errno)
	}
	if int(v) < 1 {
		return 0, ErrNoLandlock
	}
	return int(v), nil
}

// kernelErrata returns the set of Landlock errata fixed in the running kernel.
func kernelErrata() int {
	v, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// rulesetAttrSize is the size of struct landlock_ruleset_attr as the kernel of an ABI
// knows it: moat passes only the fields that kernel has.
func rulesetAttrSize(abi int) uintptr {
	switch {
	case abi >= 6:
		return 24 // handled_access_fs, handled_access_net, scoped
	case abi >= 4:
		return 16
	}
	return 8
}

func createRuleset(fs, net, scoped uint64, abi int) (int, error) {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: fs, Handled_access_net: net, Scoped: scoped}
	fd, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), rulesetAttrSize(abi), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(fd), nil
}

func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer unix.Close(fd)
	attr := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, errno := syscall.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		if errno == syscall.EINVAL {
			return fmt.Errorf("landlock rule for %s: directory rights on a file, or rights the ruleset does not handle: %w", path, errno)
		}
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowedAccess uint64
	port          uint64
}

const ruleNetPort = 2 // LANDLOCK_RULE_NET_PORT

func addPortRule(ruleset int, port uint16, access uint64) error {
	attr := netPortAttr{allowedAccess: access, port: uint64(port)}
	_, _, errno := syscall.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), ruleNetPort, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for TCP port %d: %w", port, errno)
	}
	return nil
}

// restrictSelf puts the calling thread, and everything it executes, in the ruleset's
// domain. It sets no_new_privs first, which Landlock requires of an unprivileged caller
// and which keeps set-user-id programs from shedding the domain's limits.
func restrictSelf(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	_, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0)
	if errno != 0 {
		if errno == syscall.E2BIG {
			return errors.New("landlock_restrict_self: this process is already nested in 16 Landlock domains")
		}
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}
