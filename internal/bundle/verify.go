package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policysign"
)

// Compile checks that a bundle's text is a policy moat can decide with; name names it
// in errors.
type Compile func(name string, doc []byte) error

// Verified is a bundle that passed every check of Verify.
type Verified struct {
	// Doc is the signed file as fetched, signature line included: what is kept.
	Doc    []byte
	Serial int64
	KeyID  string
}

// Verify checks a fetched bundle (named name in errors): signed by pub, with a serial no
// older than the highest store accepted for pub (the store a managed.yaml signed by the
// same key is checked against, so that neither can be replayed over the other), and a
// policy compile accepts. It records nothing: Keep does, once the bundle is kept. Each
// error is a *RefusedError.
func Verify(name string, doc []byte, pub policysign.PublicKey, store *policysign.SerialStore, compile Compile) (Verified, error) {
	payload, err := policysign.Verify(doc, pub)
	if err != nil {
		return Verified{}, refused(signatureReason(err), fmt.Errorf("%s: %w", name, err))
	}
	serial, ok, err := policysign.Serial(name, payload)
	switch {
	case err != nil:
		return Verified{}, refused(ReasonNoSerial, err)
	case !ok:
		return Verified{}, refused(ReasonNoSerial, fmt.Errorf("%s: %w: a bundle needs a top-level `serial:` so that an older one can be refused", name, policysign.ErrNoSerial))
	}
	if err := store.Check(pub.KeyID(), serial); err != nil {
		if errors.Is(err, policysign.ErrRollback) {
			return Verified{}, refused(ReasonRollback, fmt.Errorf("%s: %w", name, err))
		}
		return Verified{}, refused(ReasonKeep, err)
	}
	if compile == nil {
		return Verified{}, refused(ReasonCompile, errors.New("no policy compiler to check the bundle with"))
	}
	if err := compile(name, doc); err != nil {
		return Verified{}, refused(ReasonCompile, err)
	}
	return Verified{Doc: doc, Serial: serial, KeyID: pub.KeyID()}, nil
}

// Keep makes v the bundle in force for d: the file is replaced atomically (a reader sees
// the old bundle or the new one), then its serial is recorded as accepted, so that no
// older bundle, and no older managed.yaml signed by the same key, is accepted after it.
func Keep(d dirs.Dirs, v Verified, store *policysign.SerialStore) error {
	path := Path(d)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return refused(ReasonKeep, fmt.Errorf("keeping the bundle: %w", err))
	}
	if err := atomicfile.WriteFile(path, v.Doc, 0o600); err != nil {
		return refused(ReasonKeep, fmt.Errorf("keeping the bundle: %w", err))
	}
	if err := store.Accept(v.KeyID, v.Serial); err != nil {
		return refused(ReasonKeep, fmt.Errorf("recording serial %d: %w", v.Serial, err))
	}
	return nil
}

// ReadKept returns the kept bundle of d, or nil when none was kept yet.
func ReadKept(d dirs.Dirs) ([]byte, error) {
	data, err := atomicfile.ReadBounded(Path(d), MaxBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kept policy bundle: %w", err)
	}
	return data, nil
}
