package policysign

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyFilesRoundTrip(t *testing.T) {
	priv, pub := testKey(t, 7)
	if got := priv.Public(); got.KeyID() != pub.KeyID() || len(pub.KeyID()) != 16 {
		t.Fatalf("Public().KeyID() = %q, want %q (16 hex digits)", got.KeyID(), pub.KeyID())
	}
	pubText := MarshalPublic(pub)
	privText := MarshalPrivate(priv)
	for _, text := range [][]byte{pubText, privText} {
		if !bytes.HasPrefix(text, []byte("-----BEGIN MOAT POLICY ")) || !bytes.Contains(text, []byte("Key-Id: "+pub.KeyID()+"\n")) {
			t.Errorf("key file text does not name moat and the key id:\n%s", text)
		}
	}
	gotPub, err := ParsePublic(pubText)
	if err != nil || gotPub.KeyID() != pub.KeyID() {
		t.Fatalf("ParsePublic = %v, %v", gotPub.KeyID(), err)
	}
	gotPriv, err := ParsePrivate(privText)
	if err != nil {
		t.Fatalf("ParsePrivate: %v", err)
	}
	doc, err := Sign([]byte(testPolicy), gotPriv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(doc, gotPub); err != nil {
		t.Fatalf("a key read back does not verify what the other read back signs: %v", err)
	}
}

func TestPrivateKeyIsNeverPrinted(t *testing.T) {
	priv, _ := testKey(t, 7)
	seed := priv.key.Seed()
	text := string(MarshalPrivate(priv))
	body := strings.Split(strings.TrimSpace(text), "\n")[3] // BEGIN, Key-Id, blank, base64
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
		out := fmt.Sprintf(verb, priv)
		if strings.Contains(out, body) || strings.Contains(out, fmt.Sprintf("%x", seed)) || strings.Contains(out, string(seed)) {
			t.Errorf("Sprintf(%s) shows the key: %s", verb, out)
		}
	}
}

func TestParseKeyErrors(t *testing.T) {
	priv, pub := testKey(t, 7)
	pubText := string(MarshalPublic(pub))
	privText := string(MarshalPrivate(priv))
	_, other := testKey(t, 8)
	tests := []struct {
		name    string
		text    string
		private bool
		want    error
	}{
		{name: "public given as private", text: pubText, private: true, want: ErrKeyType},
		{name: "private given as public", text: privText, want: ErrKeyType},
		{name: "empty", text: "", want: ErrKeyMalformed},
		{name: "a policy", text: testPolicy, want: ErrKeyMalformed},
		{name: "text before the block", text: "hello\n" + pubText, want: ErrKeyMalformed},
		{name: "two blocks", text: pubText + pubText, want: ErrKeyMalformed},
		{name: "another tool's key", text: strings.ReplaceAll(pubText, "MOAT POLICY PUBLIC KEY", "PUBLIC KEY"), want: ErrKeyMalformed},
		{name: "unknown header", text: strings.Replace(pubText, "Key-Id:", "Comment: x\nKey-Id:", 1), want: ErrKeyMalformed},
		{name: "key id of another key", text: strings.Replace(pubText, pub.KeyID(), other.KeyID(), 1), want: ErrKeyMalformed},
		{name: "private key id of another key", text: strings.Replace(privText, pub.KeyID(), other.KeyID(), 1), private: true, want: ErrKeyMalformed},
		{name: "short key", text: string(MarshalPublic(PublicKey{key: pub.key[:31]})), want: ErrKeyMalformed},
		{name: "broken base64", text: strings.Replace(pubText, "\n-----END", "!\n-----END", 1), want: ErrKeyMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.private {
				_, err = ParsePrivate([]byte(tt.text))
			} else {
				_, err = ParsePublic([]byte(tt.text))
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			seed := priv.key.Seed()
			if strings.Contains(err.Error(), string(seed)) || strings.Contains(err.Error(), strings.Split(privText, "\n")[3]) {
				t.Fatalf("error shows the private key: %v", err)
			}
		})
	}
}

func TestWriteKeyPair(t *testing.T) {
	dir := t.TempDir()
	priv, pub := testKey(t, 7)
	privPath, pubPath, err := WriteKeyPair(dir, "team", priv)
	if err != nil {
		t.Fatal(err)
	}
	if privPath != filepath.Join(dir, "team.moat-key") || pubPath != filepath.Join(dir, "team.moat-pub") {
		t.Fatalf("paths = %s, %s", privPath, pubPath)
	}
	gotPriv, err := ReadPrivate(privPath)
	if err != nil || gotPriv.Public().KeyID() != pub.KeyID() {
		t.Fatalf("ReadPrivate = %v, %v", gotPriv, err)
	}
	gotPub, err := ReadPublic(pubPath)
	if err != nil || gotPub.KeyID() != pub.KeyID() {
		t.Fatalf("ReadPublic = %v, %v", gotPub.KeyID(), err)
	}
	// Never a second time, and nothing is replaced.
	other, _ := testKey(t, 8)
	if _, _, err := WriteKeyPair(dir, "team", other); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("writing over a key pair: %v, want fs.ErrExist", err)
	}
	if again, err := ReadPrivate(privPath); err != nil || again.Public().KeyID() != pub.KeyID() {
		t.Fatalf("the first key was replaced: %v", err)
	}
	// Only the public half there is enough to refuse, and no private key is left behind.
	if err := os.Remove(privPath); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WriteKeyPair(dir, "team", other); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("writing over a public key: %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(privPath); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a private key was written beside an existing public key: %v", err)
	}
	for _, name := range []string{"", ".hidden", "../up", "a/b", "a b", strings.Repeat("x", 101)} {
		if _, _, err := WriteKeyPair(dir, name, priv); err == nil {
			t.Errorf("WriteKeyPair accepted the name %q", name)
		}
	}
}

func TestReadPrivateRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	priv, pub := testKey(t, 7)
	write := func(name string, data []byte, perm os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name string
		path string
		want error
	}{
		{name: "not named .moat-key", path: write("team.key", MarshalPrivate(priv), 0o600), want: ErrKeyPermissions},
		{name: "a public key file", path: write("team.moat-pub", MarshalPublic(pub), 0o600), want: ErrKeyType},
		{name: "public key content", path: write("pub.moat-key", MarshalPublic(pub), 0o600), want: ErrKeyType},
		{name: "garbage", path: write("junk.moat-key", []byte("not a key"), 0o600), want: ErrKeyMalformed},
		{name: "too large", path: write("big.moat-key", bytes.Repeat([]byte("x"), maxKeyFile+1), 0o600), want: ErrKeyMalformed},
		{name: "missing", path: filepath.Join(dir, "none.moat-key"), want: fs.ErrNotExist},
		{name: "a directory", path: mkdir(t, filepath.Join(dir, "dir.moat-key")), want: ErrKeyMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ReadPrivate(tt.path); !errors.Is(err, tt.want) {
				t.Fatalf("ReadPrivate error = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := ReadPublic(write("priv.moat-pub", MarshalPrivate(priv), 0o600)); !errors.Is(err, ErrKeyType) {
		t.Errorf("ReadPublic of a private key: %v, want ErrKeyType", err)
	}
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}
