//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
)

// Exec is only implemented on Linux.
func Exec(p *Plan, path string, argv []string) error {
	return fmt.Errorf("moat launch on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
