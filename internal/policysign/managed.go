package policysign

import (
	"errors"
	"fmt"
)

// ErrNoSerial is a signed managed policy without a serial: without one, rollback to an
// older signed policy could not be refused.
var ErrNoSerial = errors.New("the signed policy has no serial")

// VerifyManaged checks the managed policy doc (read from name) against the pinned key pub
// and this machine's store: signed by pub, with a serial no older than the highest
// accepted for pub, which it then records. It returns the signed text, the only part to
// load as the policy, and its serial. Every error is a reason to refuse the policy, and
// so to fail closed.
func VerifyManaged(name string, doc []byte, pub PublicKey, store *SerialStore) (payload []byte, serial int64, err error) {
	payload, err = Verify(doc, pub)
	if err != nil {
		return nil, 0, fmt.Errorf("managed policy %s: %w", name, err)
	}
	serial, ok, err := Serial(name, payload)
	switch {
	case err != nil:
		return nil, 0, fmt.Errorf("managed policy %s: %w", name, err)
	case !ok:
		return nil, 0, fmt.Errorf("managed policy %s: %w: a policy signed for a pinned key needs a top-level `serial:`", name, ErrNoSerial)
	}
	if err := store.Accept(pub.KeyID(), serial); err != nil {
		return nil, 0, fmt.Errorf("managed policy %s: %w", name, err)
	}
	return payload, serial, nil
}
