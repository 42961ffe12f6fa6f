//go:build !unix

package policysign

import "io/fs"

// checkPrivateMode accepts every mode: on Windows, who may read a file is said by its
// access control list, which the user's profile directory restricts to its owner.
func checkPrivateMode(fs.FileMode) error { return nil }
