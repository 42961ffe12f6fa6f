package policysign

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzVerify checks that Verify never panics, that every refusal is one of its four
// errors, and that what it accepts is exactly what Sign writes: a document that verifies
// is its payload signed by the key, so no byte outside the signed text can change what
// the policy says.
func FuzzVerify(f *testing.F) {
	priv, pub := testKey(f, 1)
	signed := signedTestPolicy(f)
	f.Add(signed)
	f.Add(bytes.TrimSuffix(signed, []byte("\n")))
	f.Add([]byte(testPolicy))
	f.Add(append(bytes.Clone(signed), "default: allow\n"...))
	f.Add([]byte(strings.Replace(string(signed), "serial: 3", "serial: 4", 1)))
	f.Add([]byte("# moat-signature: ed25519 0123456789abcdef AAAA\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		payload, err := Verify(doc, pub)
		if err != nil {
			if payload != nil {
				t.Fatal("a payload with an error")
			}
			if !errors.Is(err, ErrUnsigned) && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrWrongKey) && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("error %v is none of Verify's", err)
			}
			return
		}
		if !bytes.HasPrefix(doc, payload) {
			t.Fatal("the payload is not the start of the document")
		}
		again, err := Sign(payload, priv)
		if err != nil {
			t.Fatalf("Sign(payload): %v", err)
		}
		if !bytes.Equal(again, doc) && !bytes.Equal(again, append(bytes.Clone(doc), '\n')) {
			t.Fatalf("accepted %q, which is not what Sign writes for its payload (%q)", doc, again)
		}
	})
}
