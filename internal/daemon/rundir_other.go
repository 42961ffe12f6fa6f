//go:build !unix

package daemon

import "errors"

func privateDir(string, bool) error {
	return errors.New("the daemon runs on Linux and macOS only")
}
