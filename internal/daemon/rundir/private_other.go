//go:build !unix

package rundir

import "errors"

func privateDir(string, bool) error {
	return errors.New("the daemon runs on Linux and macOS only")
}
