//go:build !linux && !darwin

package hookrelay

import "errors"

// checkServerUID refuses every server where the kernel cannot say who listens: the
// client then decides without the daemon, which runs on Linux and macOS only.
func checkServerUID(int) error {
	return errors.New("the server's user cannot be read on this system")
}
