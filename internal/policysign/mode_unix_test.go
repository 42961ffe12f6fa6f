//go:build unix

package policysign

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadPrivateRefusesSharedKeys(t *testing.T) {
	priv, _ := testKey(t, 7)
	for _, tt := range []struct {
		perm os.FileMode
		want error
	}{
		{0o600, nil},
		{0o400, nil},
		{0o640, ErrKeyPermissions},
		{0o604, ErrKeyPermissions},
		{0o660, ErrKeyPermissions},
		{0o644, ErrKeyPermissions},
		{0o602, ErrKeyPermissions},
	} {
		p := filepath.Join(t.TempDir(), "team.moat-key")
		if err := os.WriteFile(p, MarshalPrivate(priv), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, tt.perm); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadPrivate(p); !errors.Is(err, tt.want) && !(tt.want == nil && err == nil) {
			t.Errorf("mode %04o: ReadPrivate error = %v, want %v", tt.perm, err, tt.want)
		}
	}
}

func TestWriteKeyPairModes(t *testing.T) {
	priv, _ := testKey(t, 7)
	privPath, pubPath, err := WriteKeyPair(t.TempDir(), "moat-policy", priv)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{privPath: 0o600, pubPath: 0o644} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", p, fi.Mode().Perm(), want)
		}
	}
}
