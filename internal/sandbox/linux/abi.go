package linux

import "errors"

// ErrNoLandlock is returned by KernelABI when the kernel has no Landlock support, or has
// it disabled at boot.
var ErrNoLandlock = errors.New("landlock is not available on this kernel")

// KernelABI returns the Landlock ABI version the running kernel supports (1 or more), or
// 0 and an error wrapping ErrNoLandlock when it supports none.
func KernelABI() (int, error) { return kernelABI() }

// KernelErrata returns the set of Landlock errata the running kernel has fixed (0 when
// it has no Landlock, or fixed none).
func KernelErrata() int { return kernelErrata() }
