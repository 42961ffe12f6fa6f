package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policysign"
)

// maxStateBytes bounds what reading the state file reads.
const maxStateBytes = 64 << 10

// State is what the last fetches left: where the bundle in force came from, and how the
// last check went. It is kept beside the bundle, for status and doctor and for the
// validators that make an unchanged bundle cost one small request.
type State struct {
	// Source is where bundles are fetched from: the URL, or the database's host and name.
	Source string `json:"source,omitempty"`
	// Serial and KeyID are the bundle in force's; 0 and "" before the first one.
	Serial int64  `json:"serial,omitempty"`
	KeyID  string `json:"key_id,omitempty"`
	// FetchedAt is when the bundle in force was fetched.
	FetchedAt time.Time `json:"fetched_at,omitzero"`
	// LastCheck is when the source was last asked, whatever the answer.
	LastCheck time.Time `json:"last_check,omitzero"`
	// LastError is why the last check put nothing new in force ("" when it succeeded,
	// or found the bundle unchanged), and LastReason its Reason when it was a refusal.
	LastError  string `json:"last_error,omitempty"`
	LastReason Reason `json:"last_reason,omitempty"`
	// ETag and LastModified are the HTTP validators of the bundle in force.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
}

// ReadState returns the state kept for d; a missing file is the zero State.
func ReadState(d dirs.Dirs) (State, error) {
	data, err := atomicfile.ReadBounded(statePath(d), maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("reading the policy bundle's state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return State{}, fmt.Errorf("reading the policy bundle's state %s: %w", statePath(d), err)
	}
	return st, nil
}

func writeState(d dirs.Dirs, st State) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(statePath(d)), 0o700); err != nil {
		return fmt.Errorf("writing the policy bundle's state: %w", err)
	}
	if err := atomicfile.WriteFile(statePath(d), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing the policy bundle's state: %w", err)
	}
	return nil
}

// Status is the policy bundle of one installation as status and doctor show it.
type Status struct {
	State
	// Path is the kept bundle's file.
	Path string `json:"path"`
	// InForce says the kept bundle verifies with the pinned key and decides as the managed
	// layer; false before the first fetch, or when the kept file fails (Problem says why).
	InForce bool `json:"in_force"`
	// Kept says a bundle file is kept: when it is not InForce too, it fails to verify,
	// and every decision fails closed.
	Kept    bool   `json:"kept"`
	Problem string `json:"problem,omitempty"`
}

// Describe reads the state of d's bundle, and checks the kept bundle against the key
// pinned in keyPath as every decision does, without recording anything.
func Describe(d dirs.Dirs, keyPath string) Status {
	st, err := ReadState(d)
	s := Status{State: st, Path: Path(d)}
	if err != nil {
		s.Problem = err.Error()
		return s
	}
	doc, err := ReadKept(d)
	switch {
	case err != nil:
		s.Problem = err.Error()
		return s
	case doc == nil:
		s.Problem = "no bundle fetched yet: decisions use the other layers"
		return s
	}
	s.Kept = true
	pub, err := policysign.ReadPublic(keyPath)
	if err != nil {
		s.Problem = err.Error()
		return s
	}
	payload, err := policysign.Verify(doc, pub)
	if err != nil {
		s.Problem = fmt.Sprintf("the kept bundle %s: %v; every decision fails closed until a good bundle is fetched", s.Path, err)
		return s
	}
	serial, ok, err := policysign.Serial(s.Path, payload)
	if err != nil || !ok {
		s.Problem = fmt.Sprintf("the kept bundle %s has no valid serial; every decision fails closed", s.Path)
		return s
	}
	if err := policysign.NewSerialStore(d.ManagedSerials()).Check(pub.KeyID(), serial); err != nil {
		s.Problem = fmt.Sprintf("the kept bundle %s: %v", s.Path, err)
		return s
	}
	s.InForce, s.Serial, s.KeyID = true, serial, pub.KeyID()
	return s
}
