package source

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/moatdev/moat/internal/regfile"
)

// FromManaged is the Kind of the managed policy: the system directory's managed.yaml.
const FromManaged Kind = "managed"

// MaxKeyBytes bounds what moat reads as a pinned public key.
const MaxKeyBytes = 64 << 10

// VerifyFunc checks the managed policy data, read from name, against the pinned public
// key (the content of managed.pub, or of the fleet's pinned key for a policy bundle) and
// returns its serial: an intact signature by that key, and a serial no lower than the
// highest accepted before on this machine, or an error that says which of these failed.
type VerifyFunc func(name string, data, pinnedKey []byte) (serial int64, err error)

// FindLayers finds every policy that decides a call: the primary one, which Find
// returns, with the managed policy (see Managed) in its Managed, and the user's policy in
// its Also when the primary one is a trusted project policy. A flag or MOAT_POLICY
// replaces the user's and the project's policies but never the managed one, so that
// nothing an agent can set in its environment takes the managed layer away.
func FindLayers(o Options) (Source, error) {
	managed, err := Managed(o)
	if err != nil {
		return Source{}, err
	}
	src, err := Find(o)
	if err != nil {
		return Source{}, err
	}
	src.Managed = managed
	if src.Kind != FromProject {
		return src, nil
	}
	user, err := readSource(FromUser, o.Dirs.UserPolicy())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return src, nil
	case err != nil:
		return Source{}, err
	}
	src.Also = []Source{user}
	return src, nil
}

// Managed reads the managed policy of o.Dirs: the managed directory's managed.yaml, or
// the fleet's policy bundle (see Bundle); nil when there is none. A machine configured
// with both is refused (see Bundle). For managed.yaml: when a
// public key is pinned (managed.pub), the policy must be signed by it with a serial, as
// o.VerifyManaged checks; without a verifier, a missing policy, or any failure, Managed
// fails, and every decision with it: an unverified managed policy is never used, and a
// pinned key whose policy is gone does not mean "no managed policy".
func Managed(o Options) (*Source, error) {
	file, err := managedFile(o)
	if err != nil {
		return nil, err
	}
	return withBundle(o, file)
}

func managedFile(o Options) (*Source, error) {
	path := o.Dirs.ManagedPolicy()
	if path == "" {
		return nil, nil
	}
	src, err := readSource(FromManaged, path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return nil, err
	}
	keyPath := o.Dirs.ManagedKey()
	key, kerr := regfile.Read(keyPath, MaxKeyBytes)
	switch {
	case errors.Is(kerr, fs.ErrNotExist):
		if missing {
			return nil, nil
		}
		return &src, nil
	case kerr != nil:
		return nil, fmt.Errorf("reading the managed policy's pinned key: %w", kerr)
	case missing:
		return nil, fmt.Errorf("a key is pinned in %s but the managed policy %s is missing; moat refuses every call until the administrator restores it", keyPath, path)
	case o.VerifyManaged == nil:
		return nil, fmt.Errorf("the managed policy %s must be signed by the key pinned in %s, and this moat cannot verify signatures", path, keyPath)
	}
	serial, err := o.VerifyManaged(path, src.Data, key)
	if err != nil {
		// The verifier's error names the policy and what is wrong with it.
		return nil, fmt.Errorf("refusing the managed policy (key pinned in %s): %w", keyPath, err)
	}
	if serial < 1 {
		return nil, fmt.Errorf("the managed policy %s has no serial; a signed managed policy needs `serial:` (1 or more) so that an older one can be refused", path)
	}
	src.Serial = serial
	return &src, nil
}

// Layers lists s with the policies deciding together with it, highest first: the managed
// policy, s, then the user's below it.
func (s Source) Layers() []Source {
	var out []Source
	if s.Managed != nil {
		out = append(out, *s.Managed)
	}
	out = append(out, s)
	return append(out, s.Also...)
}
