package policysign

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"

	"github.com/moatdev/moat/internal/atomicfile"
)

// Errors of the serial store, compared with errors.Is.
var (
	// ErrRollback is a signed policy older than one accepted before: an attacker who
	// cannot sign may still replay an older signed policy that allowed more.
	ErrRollback = errors.New("policy rollback refused")
	// ErrStoreCorrupt is a serial store that cannot be read. It is never reset: that would
	// forget the serials it guards, and accept every older policy again.
	ErrStoreCorrupt = errors.New("the store of accepted policy serials is corrupt")
)

const (
	// serialStoreVersion is the format of the store's file.
	serialStoreVersion = 1
	// maxSerialKeys bounds the keys the store remembers: a machine trusts one managed key
	// at a time, and a few more over the years as it is replaced.
	maxSerialKeys = 64
	// maxSerialFile bounds what reading the store reads.
	maxSerialFile = 16 << 10
)

// SerialStore keeps, per signing key, the highest policy serial this machine has
// accepted, in one small JSON file of moat's state directory (which self-protection keeps
// agents from changing). Writers serialise on the file's lock; readers see the old
// content or the new.
type SerialStore struct {
	path string
}

// NewSerialStore is the store kept in the file path.
func NewSerialStore(path string) *SerialStore { return &SerialStore{path: path} }

// serialFile is the store's file.
type serialFile struct {
	Version int              `json:"version"`
	Keys    map[string]int64 `json:"keys"`
}

// Highest returns the highest serial accepted for keyID, and whether there is one.
func (s *SerialStore) Highest(keyID string) (int64, bool, error) {
	if !validKeyID(keyID) {
		return 0, false, fmt.Errorf("serial store: key id %q is not 16 lowercase hex digits", keyID)
	}
	keys, err := s.read()
	if err != nil {
		return 0, false, err
	}
	v, ok := keys[keyID]
	return v, ok, nil
}

// Check returns nil when a policy signed by keyID with serial may be used: its serial is
// at least the highest accepted for that key (equal is the same policy, read again). An
// older serial is an error wrapping ErrRollback.
func (s *SerialStore) Check(keyID string, serial int64) error {
	if serial < 1 {
		return fmt.Errorf("serial store: serial %d is not a positive whole number", serial)
	}
	highest, ok, err := s.Highest(keyID)
	if err != nil {
		return err
	}
	if ok && serial < highest {
		return rollback(keyID, serial, highest)
	}
	return nil
}

// Accept records serial as accepted for keyID, when it is higher than the highest so
// far. An older serial is refused with ErrRollback, and the store keeps its serial.
func (s *SerialStore) Accept(keyID string, serial int64) error {
	if serial < 1 {
		return fmt.Errorf("serial store: serial %d is not a positive whole number", serial)
	}
	if !validKeyID(keyID) {
		return fmt.Errorf("serial store: key id %q is not 16 lowercase hex digits", keyID)
	}
	unlock, err := atomicfile.Lock(s.path)
	if err != nil {
		return fmt.Errorf("serial store: %w", err)
	}
	defer unlock()
	keys, err := s.read()
	if err != nil {
		return err
	}
	highest, ok := keys[keyID]
	switch {
	case ok && serial < highest:
		return rollback(keyID, serial, highest)
	case ok && serial == highest:
		return nil
	case !ok && len(keys) >= maxSerialKeys:
		return fmt.Errorf("serial store %s: it already holds the serials of %d keys, the most it keeps; remove the entries of keys no longer used", s.path, maxSerialKeys)
	}
	next := maps.Clone(keys)
	if next == nil {
		next = map[string]int64{}
	}
	next[keyID] = serial
	data, err := json.MarshalIndent(serialFile{Version: serialStoreVersion, Keys: next}, "", "  ")
	if err != nil {
		return fmt.Errorf("serial store: %w", err)
	}
	if err := atomicfile.WriteFile(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("serial store: %w", err)
	}
	return nil
}

func rollback(keyID string, serial, highest int64) error {
	return fmt.Errorf("%w: the policy signed by key %s has serial %d, older than serial %d accepted before on this machine; install the newer policy (an older one may allow what the newer one forbids)", ErrRollback, keyID, serial, highest)
}

// read returns the serials of the store; a store that does not exist yet holds none.
func (s *SerialStore) read() (map[string]int64, error) {
	data, err := atomicfile.ReadBounded(s.path, maxSerialFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, atomicfile.ErrTooLarge):
		return nil, fmt.Errorf("%w: %v", ErrStoreCorrupt, err)
	case err != nil:
		return nil, fmt.Errorf("serial store: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f serialFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStoreCorrupt, s.path, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: %s: text after the JSON object", ErrStoreCorrupt, s.path)
	}
	if f.Version != serialStoreVersion {
		return nil, fmt.Errorf("%w: %s: version %d, not %d", ErrStoreCorrupt, s.path, f.Version, serialStoreVersion)
	}
	if len(f.Keys) > maxSerialKeys {
		return nil, fmt.Errorf("%w: %s: %d keys, more than %d", ErrStoreCorrupt, s.path, len(f.Keys), maxSerialKeys)
	}
	for id, v := range f.Keys {
		if !validKeyID(id) || v < 1 {
			return nil, fmt.Errorf("%w: %s: entry %q: %d", ErrStoreCorrupt, s.path, clip([]byte(id)), v)
		}
	}
	return f.Keys, nil
}
