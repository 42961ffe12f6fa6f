//go:build unix

package policysign

import (
	"fmt"
	"io/fs"
)

// checkPrivateMode refuses a private key file its group or others may use.
func checkPrivateMode(m fs.FileMode) error {
	if m.Perm()&0o077 != 0 {
		return fmt.Errorf("%w: its mode is %04o, so others than its owner can use it; run chmod 600 on it (and replace the key if others may have read it)", ErrKeyPermissions, m.Perm())
	}
	return nil
}
