// Package policysign signs moat policies with Ed25519, verifies them against a pinned key, and refuses a policy older than the newest one accepted (rollback).
package policysign

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/moatdev/moat/internal/atomicfile"
)

// The suffixes of key files. Self-protection denies agents every access to a file named
// *.moat-key, and ReadPrivate reads a private key under that name only, so that a key moat
// can sign with is always one an agent cannot read, copy or move.
const (
	PrivateSuffix = ".moat-key"
	PublicSuffix  = ".moat-pub"
)

// The PEM block types of the key files: the header line names moat, so a key of another
// tool is never taken for one of moat's, nor the other way round.
const (
	privateType = "MOAT POLICY PRIVATE KEY"
	publicType  = "MOAT POLICY PUBLIC KEY"
	keyIDHeader = "Key-Id"
)

// maxKeyFile bounds what reading a key file reads: a key file is a few hundred bytes.
const maxKeyFile = 16 << 10

// Errors of reading key files, compared with errors.Is.
var (
	// ErrKeyMalformed is a key file that is not a moat key.
	ErrKeyMalformed = errors.New("not a moat policy key")
	// ErrKeyType is a private key where a public one is wanted, or the other way round.
	ErrKeyType = errors.New("wrong type of key")
	// ErrKeyPermissions is a private key file that others than its owner can read, or
	// one not named *.moat-key.
	ErrKeyPermissions = errors.New("private key file is not private")
)

// PublicKey is an Ed25519 key that verifies policy signatures. Its zero value verifies
// nothing.
type PublicKey struct {
	key ed25519.PublicKey
}

// PrivateKey is an Ed25519 key that signs policies. Its zero value signs nothing. Its
// String and Format never show the key.
type PrivateKey struct {
	key ed25519.PrivateKey
}

// GenerateKey makes a new key pair from the randomness of rand (crypto/rand.Reader).
func GenerateKey(rand io.Reader) (PrivateKey, PublicKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand)
	if err != nil {
		return PrivateKey{}, PublicKey{}, fmt.Errorf("generating a key: %w", err)
	}
	return PrivateKey{key: priv}, PublicKey{key: pub}, nil
}

// KeyID names a public key in signatures and in the serial store: the first 16 hex digits
// of the SHA-256 of the key's 32 bytes.
func (k PublicKey) KeyID() string {
	if len(k.key) != ed25519.PublicKeySize {
		return ""
	}
	sum := sha256.Sum256(k.key)
	return hex.EncodeToString(sum[:8])
}

// Public is the key that verifies what k signs.
func (k PrivateKey) Public() PublicKey {
	if len(k.key) != ed25519.PrivateKeySize {
		return PublicKey{}
	}
	return PublicKey{key: k.key.Public().(ed25519.PublicKey)}
}

// String names the key by its public key's id, never showing the key itself.
func (k PrivateKey) String() string { return "moat private key " + k.Public().KeyID() }

// GoString keeps %#v from showing the key.
func (k PrivateKey) GoString() string { return k.String() }

// MarshalPublic is the text of a .moat-pub file (and of a pinned managed.pub).
func MarshalPublic(k PublicKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: publicType, Headers: map[string]string{keyIDHeader: k.KeyID()}, Bytes: k.key})
}

// MarshalPrivate is the text of a .moat-key file: the key's 32-byte seed.
func MarshalPrivate(k PrivateKey) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: privateType, Headers: map[string]string{keyIDHeader: k.Public().KeyID()}, Bytes: k.key.Seed()})
}

// ParsePublic reads the text of a public key file.
func ParsePublic(data []byte) (PublicKey, error) {
	b, err := decodeKey(data, publicType, privateType)
	if err != nil {
		return PublicKey{}, err
	}
	if len(b.Bytes) != ed25519.PublicKeySize {
		return PublicKey{}, fmt.Errorf("%w: the public key holds %d bytes, not %d", ErrKeyMalformed, len(b.Bytes), ed25519.PublicKeySize)
	}
	k := PublicKey{key: ed25519.PublicKey(bytes.Clone(b.Bytes))}
	if err := checkKeyID(b, k); err != nil {
		return PublicKey{}, err
	}
	return k, nil
}

// ParsePrivate reads the text of a private key file. Its errors never hold the key.
func ParsePrivate(data []byte) (PrivateKey, error) {
	b, err := decodeKey(data, privateType, publicType)
	if err != nil {
		return PrivateKey{}, err
	}
	if len(b.Bytes) != ed25519.SeedSize {
		return PrivateKey{}, fmt.Errorf("%w: the private key holds %d bytes, not %d", ErrKeyMalformed, len(b.Bytes), ed25519.SeedSize)
	}
	k := PrivateKey{key: ed25519.NewKeyFromSeed(b.Bytes)}
	if err := checkKeyID(b, k.Public()); err != nil {
		return PrivateKey{}, err
	}
	return k, nil
}

// decodeKey reads the one PEM block of a key file of type want; other is the type of the
// other half of a pair, reported as ErrKeyType.
func decodeKey(data []byte, want, other string) (*pem.Block, error) {
	trimmed := bytes.TrimSpace(data)
	if !bytes.HasPrefix(trimmed, []byte("-----BEGIN ")) {
		return nil, fmt.Errorf("%w: it does not start with a -----BEGIN %s----- line", ErrKeyMalformed, want)
	}
	b, rest := pem.Decode(trimmed)
	switch {
	case b == nil:
		return nil, fmt.Errorf("%w: it is not a PEM block", ErrKeyMalformed)
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, fmt.Errorf("%w: it holds more than one key block", ErrKeyMalformed)
	case b.Type == other:
		return nil, fmt.Errorf("%w: it is a %s, not a %s", ErrKeyType, strings.ToLower(other), strings.ToLower(want))
	case b.Type != want:
		return nil, fmt.Errorf("%w: it is a %q block, not a %s", ErrKeyMalformed, b.Type, strings.ToLower(want))
	}
	for h := range b.Headers {
		if h != keyIDHeader {
			return nil, fmt.Errorf("%w: unknown header %q", ErrKeyMalformed, h)
		}
	}
	return b, nil
}

// checkKeyID checks the block's Key-Id header, when it has one, against the key: an id
// edited by hand would otherwise mislead whoever reads the file.
func checkKeyID(b *pem.Block, k PublicKey) error {
	if id, ok := b.Headers[keyIDHeader]; ok && id != k.KeyID() {
		return fmt.Errorf("%w: its Key-Id header %q does not match the key (%s)", ErrKeyMalformed, id, k.KeyID())
	}
	return nil
}

// ReadPublic reads the public key file at path (a .moat-pub, or a pinned managed.pub).
func ReadPublic(path string) (PublicKey, error) {
	data, err := atomicfile.ReadBounded(path, maxKeyFile)
	if err != nil {
		return PublicKey{}, fmt.Errorf("reading public key: %w", err)
	}
	k, err := ParsePublic(data)
	if err != nil {
		return PublicKey{}, fmt.Errorf("public key %s: %w", path, err)
	}
	return k, nil
}

// ReadPrivate reads the private key file at path. It refuses a file not named *.moat-key
// (self-protection guards that name only) and, on unix, one that its group or others may
// read or write: a key others can read is not a secret any more, and signing with it
// would vouch for policies anyone could have written.
func ReadPrivate(path string) (PrivateKey, error) {
	if !strings.HasSuffix(filepath.Base(path), PrivateSuffix) {
		if strings.HasSuffix(filepath.Base(path), PublicSuffix) {
			return PrivateKey{}, fmt.Errorf("private key %s: %w: it is named as a public key (%s); sign with the private key, named *%s", path, ErrKeyType, PublicSuffix, PrivateSuffix)
		}
		return PrivateKey{}, fmt.Errorf("private key %s: %w: its name must end in %s, the name moat keeps agents from reading", path, ErrKeyPermissions, PrivateSuffix)
	}
	f, err := os.Open(path)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("reading private key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return PrivateKey{}, fmt.Errorf("reading private key: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return PrivateKey{}, fmt.Errorf("private key %s: %w: it is not a regular file", path, ErrKeyMalformed)
	}
	if err := checkPrivateMode(fi.Mode()); err != nil {
		return PrivateKey{}, fmt.Errorf("private key %s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return PrivateKey{}, fmt.Errorf("reading private key %s: %w", path, err)
	}
	if len(data) > maxKeyFile {
		return PrivateKey{}, fmt.Errorf("private key %s: %w: larger than %d bytes", path, ErrKeyMalformed, maxKeyFile)
	}
	k, err := ParsePrivate(data)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("private key %s: %w", path, err)
	}
	return k, nil
}

// WriteKeyPair writes priv and its public key as dir/NAME.moat-key (mode 0600) and
// dir/NAME.moat-pub (mode 0644). It replaces nothing: when either file exists, it writes
// neither and returns an error wrapping fs.ErrExist.
func WriteKeyPair(dir, name string, priv PrivateKey) (privPath, pubPath string, err error) {
	if !validKeyName(name) {
		return "", "", fmt.Errorf("key name %q must start with a letter or digit and hold only letters, digits and . _ -", name)
	}
	privPath = filepath.Join(dir, name+PrivateSuffix)
	pubPath = filepath.Join(dir, name+PublicSuffix)
	for _, p := range []string{privPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("%s: %w: moat never replaces a key; choose another --name or --out", p, fs.ErrExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("checking %s: %w", p, err)
		}
	}
	if err := atomicfile.WriteNew(privPath, MarshalPrivate(priv), 0o600); err != nil {
		return "", "", err
	}
	if err := atomicfile.WriteNew(pubPath, MarshalPublic(priv.Public()), 0o644); err != nil {
		// Half a pair is of no use, and a private key left behind is one more to guard.
		if rmErr := os.Remove(privPath); rmErr != nil {
			return "", "", fmt.Errorf("%w (and removing %s: %v)", err, privPath, rmErr)
		}
		return "", "", err
	}
	return privPath, pubPath, nil
}

// validKeyName reports whether name can name a key pair: a letter or digit, then letters,
// digits and . _ -, so that it names a file in the directory and nothing else.
func validKeyName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return name != "" && len(name) <= 100
}
