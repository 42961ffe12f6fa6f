package policysign

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/moatdev/moat/internal/policy"
)

// A signed policy is the policy's text followed by one last line,
//
//	# moat-signature: ed25519 KEYID BASE64SIG
//
// where the signature covers every byte before that line and KEYID is the signing key's
// KeyID. The line is a YAML comment, so a signed policy is still a policy file, and the
// signature travels in the one file that is distributed.
const (
	signaturePrefix = "# moat-signature: "
	algorithm       = "ed25519"
)

// Errors of Verify, compared with errors.Is. Each says, in its text, what to do.
var (
	// ErrUnsigned is a document with no signature line.
	ErrUnsigned = errors.New("the policy is not signed")
	// ErrMalformed is a signature line that is not one moat writes, or one that is not
	// the last line.
	ErrMalformed = errors.New("the policy's signature line is malformed")
	// ErrWrongKey is a signature by another key than the one verifying.
	ErrWrongKey = errors.New("the policy is signed by another key")
	// ErrBadSignature is a signature that does not match the text: the policy was changed
	// after it was signed, or the signature was.
	ErrBadSignature = errors.New("the policy's signature does not match its text")
)

// Sign returns doc signed by priv: doc without the signature line it may end with, a
// newline if its last line has none, and a new signature line. A document with a signature
// line anywhere but at its end is refused, as Verify would refuse it.
func Sign(doc []byte, priv PrivateKey) ([]byte, error) {
	if len(priv.key) != ed25519.PrivateKeySize {
		return nil, errors.New("signing: no private key")
	}
	payload, _ := splitSignature(doc)
	if hasSignatureLine(payload) {
		// Verify refuses a signature line anywhere but last, and signing would keep the
		// old line inside what is signed.
		return nil, fmt.Errorf("signing: %w: a signature line is followed by other lines; remove it and sign again", ErrMalformed)
	}
	out := make([]byte, 0, len(payload)+1+len(signaturePrefix)+120)
	out = append(out, payload...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	sig := ed25519.Sign(priv.key, out)
	out = append(out, signaturePrefix...)
	out = append(out, algorithm+" "+priv.Public().KeyID()+" "...)
	out = base64.StdEncoding.AppendEncode(out, sig)
	return append(out, '\n'), nil
}

// Verify checks that doc is signed by pub and returns the signed text (every byte before
// the signature line), which is what the caller must read as the policy. Its errors wrap
// ErrUnsigned, ErrMalformed, ErrWrongKey or ErrBadSignature.
func Verify(doc []byte, pub PublicKey) ([]byte, error) {
	if len(pub.key) != ed25519.PublicKeySize {
		return nil, errors.New("verifying: no public key")
	}
	payload, line := splitSignature(doc)
	if line == nil {
		if hasSignatureLine(payload) {
			return nil, fmt.Errorf("%w: the signature line must be the last line, and lines follow it", ErrMalformed)
		}
		return nil, fmt.Errorf("%w: it has no last line %sed25519 …; sign it with `moat policy sign`", ErrUnsigned, signaturePrefix)
	}
	if hasSignatureLine(payload) {
		return nil, fmt.Errorf("%w: the policy holds more than one signature line", ErrMalformed)
	}
	keyID, sig, err := parseSignatureLine(line)
	if err != nil {
		return nil, err
	}
	if keyID != pub.KeyID() {
		return nil, fmt.Errorf("%w: signed by key %s, verified with key %s", ErrWrongKey, keyID, pub.KeyID())
	}
	if !ed25519.Verify(pub.key, payload, sig) {
		return nil, fmt.Errorf("%w: it was changed after it was signed by key %s", ErrBadSignature, keyID)
	}
	return payload, nil
}

// SignedBy returns the key id a signed document names, without verifying anything: for
// messages that say which key a policy was signed with.
func SignedBy(doc []byte) (string, error) {
	_, line := splitSignature(doc)
	if line == nil {
		return "", ErrUnsigned
	}
	keyID, _, err := parseSignatureLine(line)
	return keyID, err
}

// Serial reads the top-level `serial:` of a verified policy text named name, with the
// policy package's parser and rules (see policy.Serial): it reports whether there is one,
// and errors with file:line for one that is not a positive whole number.
func Serial(name string, payload []byte) (int64, bool, error) {
	return policy.Serial(name, payload)
}

// splitSignature splits doc into the text before its last line and that line, when the
// last line is a signature line (with or without a final newline); otherwise it returns
// doc and nil.
func splitSignature(doc []byte) (payload, line []byte) {
	body := bytes.TrimSuffix(doc, []byte("\n"))
	start := bytes.LastIndexByte(body, '\n') + 1
	if !bytes.HasPrefix(body[start:], []byte(signaturePrefix)) {
		return doc, nil
	}
	return doc[:start], body[start:]
}

// hasSignatureLine reports whether a line of text starts as a signature line.
func hasSignatureLine(text []byte) bool {
	return bytes.HasPrefix(text, []byte(signaturePrefix)) || bytes.Contains(text, []byte("\n"+signaturePrefix))
}

// parseSignatureLine reads "# moat-signature: ed25519 KEYID BASE64SIG", exactly as Sign
// writes it.
func parseSignatureLine(line []byte) (keyID string, sig []byte, err error) {
	fields := bytes.Split(bytes.TrimPrefix(line, []byte(signaturePrefix)), []byte(" "))
	if len(fields) != 3 {
		return "", nil, fmt.Errorf("%w: want %sed25519 KEYID SIGNATURE, separated by single spaces", ErrMalformed, signaturePrefix)
	}
	if string(fields[0]) != algorithm {
		return "", nil, fmt.Errorf("%w: unknown algorithm %q (moat signs with %s)", ErrMalformed, clip(fields[0]), algorithm)
	}
	if !validKeyID(string(fields[1])) {
		return "", nil, fmt.Errorf("%w: key id %q is not 16 lowercase hex digits", ErrMalformed, clip(fields[1]))
	}
	sig = make([]byte, base64.StdEncoding.DecodedLen(len(fields[2])))
	n, err := base64.StdEncoding.Strict().Decode(sig, fields[2])
	// The decoder skips CR and LF even in strict mode; the one way to write a signature
	// is the way Sign writes it.
	if err != nil || n != ed25519.SignatureSize || base64.StdEncoding.EncodeToString(sig[:n]) != string(fields[2]) {
		return "", nil, fmt.Errorf("%w: the signature is not %d bytes of standard base64", ErrMalformed, ed25519.SignatureSize)
	}
	return string(fields[1]), sig[:n], nil
}

// validKeyID reports whether id is written as KeyID writes ids.
func validKeyID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// clip keeps a quoted piece of a malformed line short.
func clip(b []byte) string {
	if len(b) > 32 {
		return string(b[:32]) + "…"
	}
	return string(b)
}
