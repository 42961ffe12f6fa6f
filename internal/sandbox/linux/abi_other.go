//go:build !linux

package linux

import "fmt"

func kernelABI() (int, error) {
	return 0, fmt.Errorf("%w: Landlock is a Linux security module", ErrNoLandlock)
}

func kernelErrata() int { return 0 }
