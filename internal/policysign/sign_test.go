package policysign

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// testKey makes the key pair numbered seed, the same in every run.
func testKey(t testing.TB, seed byte) (PrivateKey, PublicKey) {
	t.Helper()
	priv, pub, err := GenerateKey(bytes.NewReader(bytes.Repeat([]byte{seed}, 32)))
	if err != nil {
		t.Fatal(err)
	}
	return priv, pub
}

const testPolicy = "version: 1\nserial: 3\ndefault: ask\nrules:\n  - {id: no-rm, command: \"rm -rf *\", decision: deny}\n"

// signedTestPolicy is testPolicy signed by key 1.
func signedTestPolicy(t testing.TB) []byte {
	t.Helper()
	priv, _ := testKey(t, 1)
	doc, err := Sign([]byte(testPolicy), priv)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSignWritesOneLastLine(t *testing.T) {
	priv, pub := testKey(t, 1)
	doc := signedTestPolicy(t)
	payload, line := splitSignature(doc)
	if string(payload) != testPolicy {
		t.Fatalf("signed text = %q, want the policy unchanged", payload)
	}
	want := "# moat-signature: ed25519 " + pub.KeyID() + " "
	if !strings.HasPrefix(string(line), want) || !bytes.HasSuffix(doc, []byte("\n")) {
		t.Fatalf("signature line = %q, want it to start %q and end the file with a newline", line, want)
	}
	// Signing a signed policy replaces its signature: the same key gives the same file.
	again, err := Sign(doc, priv)
	if err != nil || !bytes.Equal(again, doc) {
		t.Fatalf("signing again = %q, %v; want the same file", again, err)
	}
	// A last line without a newline gets one before the signature.
	noNL, err := Sign([]byte(strings.TrimSuffix(testPolicy, "\n")), priv)
	if err != nil || !bytes.Equal(noNL, doc) {
		t.Fatalf("signing without a final newline = %q, %v; want %q", noNL, err, doc)
	}
	// Another key replaces the first's signature.
	other, _ := testKey(t, 2)
	resigned, err := Sign(doc, other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(resigned, pub); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("verify re-signed by another key: %v, want ErrWrongKey", err)
	}
	if _, err := Verify(resigned, other.Public()); err != nil {
		t.Fatalf("verify re-signed by its key: %v", err)
	}
}

func TestVerify(t *testing.T) {
	_, pub := testKey(t, 1)
	_, otherPub := testKey(t, 2)
	signed := string(signedTestPolicy(t))
	payloadEnd := len(testPolicy)
	sigLine := signed[payloadEnd:]
	flip := func(i int) string {
		b := []byte(signed)
		b[i] ^= 0x01
		return string(b)
	}
	tests := []struct {
		name string
		doc  string
		pub  PublicKey
		want error // nil: valid
	}{
		{name: "valid", doc: signed, pub: pub},
		{name: "valid without the final newline", doc: strings.TrimSuffix(signed, "\n"), pub: pub},
		{name: "unsigned", doc: testPolicy, pub: pub, want: ErrUnsigned},
		{name: "empty", doc: "", pub: pub, want: ErrUnsigned},
		{name: "wrong key", doc: signed, pub: otherPub, want: ErrWrongKey},
		{name: "first byte changed", doc: flip(0), pub: pub, want: ErrBadSignature},
		{name: "a byte in the middle changed", doc: flip(payloadEnd / 2), pub: pub, want: ErrBadSignature},
		{name: "the payload's last newline changed", doc: flip(payloadEnd - 1), pub: pub, want: ErrUnsigned},
		{name: "serial raised", doc: strings.Replace(signed, "serial: 3", "serial: 4", 1), pub: pub, want: ErrBadSignature},
		{name: "rule loosened", doc: strings.Replace(signed, "deny}", "allow}", 1), pub: pub, want: ErrBadSignature},
		{name: "line inserted", doc: strings.Replace(signed, "default: ask\n", "default: ask\nfail: open\n", 1), pub: pub, want: ErrBadSignature},
		{name: "line added after", doc: signed + "default: allow\n", pub: pub, want: ErrMalformed},
		{name: "blank line added after", doc: signed + "\n", pub: pub, want: ErrMalformed},
		{name: "comment added after", doc: signed + "# ok\n", pub: pub, want: ErrMalformed},
		{name: "signature byte changed", doc: strings.Replace(signed, sigLine, sigLine[:len(sigLine)-6]+flipChar(sigLine[len(sigLine)-6])+sigLine[len(sigLine)-5:], 1), pub: pub, want: ErrBadSignature},
		{name: "key id edited to the verifier's", doc: strings.Replace(signed, pub.KeyID(), otherPub.KeyID(), 1), pub: otherPub, want: ErrBadSignature},
		{name: "key id edited", doc: strings.Replace(signed, pub.KeyID(), "0000000000000000", 1), pub: pub, want: ErrWrongKey},
		{name: "key id in capitals", doc: strings.Replace(signed, pub.KeyID(), strings.ToUpper(pub.KeyID()), 1), pub: pub, want: ErrMalformed},
		{name: "another algorithm", doc: strings.Replace(signed, "ed25519 ", "rsa ", 1), pub: pub, want: ErrMalformed},
		{name: "two spaces", doc: strings.Replace(signed, "ed25519 ", "ed25519  ", 1), pub: pub, want: ErrMalformed},
		{name: "signature truncated", doc: strings.Replace(signed, "==\n", "\n", 1), pub: pub, want: ErrMalformed},
		{name: "signature not base64", doc: strings.Replace(signed, "==\n", "!!\n", 1), pub: pub, want: ErrMalformed},
		{name: "carriage return", doc: strings.Replace(signed, "==\n", "==\r\n", 1), pub: pub, want: ErrMalformed},
		{name: "no signature at all", doc: testPolicy + "# moat-signature: \n", pub: pub, want: ErrMalformed},
		{name: "two signature lines", doc: testPolicy + sigLine + sigLine, pub: pub, want: ErrMalformed},
		{name: "signature line moved up", doc: sigLine + testPolicy, pub: pub, want: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			payload, err := Verify([]byte(tt.doc), tt.pub)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				if string(payload) != testPolicy {
					t.Fatalf("payload = %q, want %q", payload, testPolicy)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Verify error = %v, want %v", err, tt.want)
			}
			if payload != nil {
				t.Fatalf("Verify returned a payload with its error")
			}
		})
	}
}

// flipChar changes one base64 digit into another.
func flipChar(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestVerifyEveryByte(t *testing.T) {
	_, pub := testKey(t, 1)
	signed := signedTestPolicy(t)
	for i := range signed {
		doc := bytes.Clone(signed)
		doc[i] ^= 0x20
		if _, err := Verify(doc, pub); err == nil {
			t.Errorf("changing byte %d (%q) left a valid signature", i, signed[i])
		}
	}
}

func TestSignRefusesAMisplacedSignatureLine(t *testing.T) {
	priv, _ := testKey(t, 1)
	signed := signedTestPolicy(t)
	for _, doc := range []string{string(signed) + "default: allow\n", "# moat-signature: x\n" + testPolicy} {
		if _, err := Sign([]byte(doc), priv); !errors.Is(err, ErrMalformed) {
			t.Errorf("Sign(%q) error = %v, want ErrMalformed", doc, err)
		}
	}
}

func TestZeroKeysDoNothing(t *testing.T) {
	if _, err := Sign([]byte(testPolicy), PrivateKey{}); err == nil {
		t.Error("the zero private key signed")
	}
	if _, err := Verify(signedTestPolicy(t), PublicKey{}); err == nil {
		t.Error("the zero public key verified")
	}
	if id := (PublicKey{}).KeyID(); id != "" {
		t.Errorf("zero key id = %q", id)
	}
}

func TestSignedBy(t *testing.T) {
	_, pub := testKey(t, 1)
	if id, err := SignedBy(signedTestPolicy(t)); err != nil || id != pub.KeyID() {
		t.Errorf("SignedBy = %q, %v; want %q", id, err, pub.KeyID())
	}
	if _, err := SignedBy([]byte(testPolicy)); !errors.Is(err, ErrUnsigned) {
		t.Errorf("SignedBy(unsigned) error = %v", err)
	}
}

func TestSerialOfSignedText(t *testing.T) {
	payload, err := Verify(signedTestPolicy(t), testPub(t))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok, err := Serial("p.yaml", payload); n != 3 || !ok || err != nil {
		t.Errorf("Serial = %d, %v, %v; want 3", n, ok, err)
	}
	// A comment or a nested key is no serial.
	for _, doc := range []string{"version: 1\n# serial: 9\n", "version: 1\nsandbox: {serial: 9}\n", "version: 1\nx: \"\\nserial: 9\"\n"} {
		if n, ok, _ := Serial("p.yaml", []byte(doc)); ok {
			t.Errorf("Serial(%q) = %d, want none", doc, n)
		}
	}
}

func testPub(t testing.TB) PublicKey {
	_, pub := testKey(t, 1)
	return pub
}
