// Package bundle fetches the fleet's signed policy bundle, verifies it against the pinned key, and keeps the last good one in the state directory, where it decides as the managed layer.
package bundle

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policysign"
)

// MaxBytes bounds what moat fetches as a bundle: a policy file (source.MaxPolicyBytes).
const MaxBytes = 4 << 20

// Path is the last good bundle of the installation whose directories are d: the signed
// file exactly as it was fetched. The state directory is one self-protection keeps
// agents from changing, and the file is verified again whenever it is read.
func Path(d dirs.Dirs) string { return d.FleetBundle() }

// statePath is the file that says where the kept bundle came from and how the last
// fetch went, for status and doctor.
func statePath(d dirs.Dirs) string { return filepath.Join(d.State, "fleet", "bundle-state.json") }

// Reason says why a bundle was refused: the label of the refused-bundles metric.
type Reason string

// The reasons a bundle is refused.
const (
	ReasonFetch     Reason = "fetch"     // it could not be fetched (network, TLS, HTTP status, size, database)
	ReasonUnsigned  Reason = "unsigned"  // no signature line
	ReasonMalformed Reason = "malformed" // a signature line moat does not write
	ReasonWrongKey  Reason = "wrong_key" // signed by another key than the pinned one
	ReasonSignature Reason = "signature" // the text was changed after it was signed
	ReasonNoSerial  Reason = "no_serial" // no top-level serial, or not a positive number
	ReasonRollback  Reason = "rollback"  // older than a serial accepted before on this machine
	ReasonCompile   Reason = "compile"   // not a valid policy
	ReasonKeep      Reason = "keep"      // it could not be kept (the key, the serial store, the file)
)

// Reasons lists every Reason, for tests and metrics.
var Reasons = []Reason{ReasonFetch, ReasonUnsigned, ReasonMalformed, ReasonWrongKey, ReasonSignature, ReasonNoSerial, ReasonRollback, ReasonCompile, ReasonKeep}

// RefusedError is a bundle that was not put in force, and why; the last good one stays.
type RefusedError struct {
	Reason Reason
	Err    error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("policy bundle refused (%s): %v", e.Reason, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

func refused(r Reason, err error) error { return &RefusedError{Reason: r, Err: err} }

// ReasonOf is the Reason of err, or "" for an error that is no refusal.
func ReasonOf(err error) Reason {
	var r *RefusedError
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}

// signatureReason maps policysign.Verify's errors to their Reason.
func signatureReason(err error) Reason {
	switch {
	case errors.Is(err, policysign.ErrUnsigned):
		return ReasonUnsigned
	case errors.Is(err, policysign.ErrWrongKey):
		return ReasonWrongKey
	case errors.Is(err, policysign.ErrBadSignature):
		return ReasonSignature
	default:
		return ReasonMalformed
	}
}
