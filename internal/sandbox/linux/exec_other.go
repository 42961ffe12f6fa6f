//go:build !linux

package linux

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/moatdev/moat/internal/sandbox"
)

// Exec is only implemented on Linux.
func Exec(p *sandbox.Plan, path string, argv []string) error {
	return fmt.Errorf("moat launch on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
