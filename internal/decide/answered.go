package decide

import "errors"

// Answered reports whether err, from a Remote, is the service's own answer to the
// request (a policy that cannot be loaded, an unknown policy key, a request the daemon
// refused), rather than a failure to reach the service or to read its answer. A caller
// that can decide by other means (its own Local) does so on a failure of transport; an
// answer is the service's, whichever process gives it.
func Answered(err error) bool {
	var re *remoteError
	return errors.As(err, &re)
}
