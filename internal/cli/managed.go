package cli

import (
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/policysign"
)

// verifyManaged is the check of a managed policy whose key is pinned (managed.yaml, or
// the fleet's policy bundle): signed by that key, with a serial no older than the
// highest this user's moat accepted (kept in the state directory, which self-protection
// guards). Any failure refuses the policy, and every decision fails closed with the
// reason.
func (a *app) verifyManaged() source.VerifyFunc {
	return func(name string, data, pinnedKey []byte) (int64, error) {
		d, err := a.dirs()
		if err != nil {
			return 0, err
		}
		pub, err := policysign.ParsePublic(pinnedKey)
		if err != nil {
			return 0, err
		}
		_, serial, err := policysign.VerifyManaged(name, data, pub, policysign.NewSerialStore(d.ManagedSerials()))
		return serial, err
	}
}
