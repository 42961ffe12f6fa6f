//go:build !unix

package hookrelay

import "errors"

// exchange fails: the daemon serves unix sockets on Linux and macOS only, and the client
// decides without it.
func (c Client) exchange([]byte) ([]byte, error) {
	return nil, errors.New("connecting to the daemon: the daemon runs on Linux and macOS only")
}
