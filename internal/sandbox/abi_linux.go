//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func kernelABI() (int, error) {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) {
			return 0, fmt.Errorf("%w (not built in, or not enabled at boot: add landlock to the lsm= kernel parameter)", ErrNoLandlock)
		}
		return 0, fmt.Errorf("%w: landlock_create_ruleset: %v", ErrNoLandlock, err)
	}
	if v < 1 {
		return 0, ErrNoLandlock
	}
	return v, nil
}

// kernelErrata returns the bit set of Landlock errata fixed in the running kernel.
func kernelErrata() int {
	e, err := llsys.LandlockGetErrata()
	if err != nil {
		return 0
	}
	return e
}
