// Package trust records which project policy files the user has reviewed, by their real
// path and the SHA-256 of their content, and keeps a copy of each content trusted, so that
// a cloned repository cannot loosen the user's policy on its own and an edit cannot
// loosen it either.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/regfile"
)

// Limits on what is read: a policy copy is bounded as a policy is (see discover), the
// store by what thousands of entries take.
const (
	maxCopyBytes  = 4 << 20
	maxStoreBytes = 16 << 20
)

// Status says whether a policy file may be used.
type Status int

// Statuses.
const (
	// Untrusted: the user has never trusted this file.
	Untrusted Status = iota
	// Changed: the user trusted this file, but its content has changed since.
	Changed
	// Trusted: the user trusted exactly this content.
	Trusted
)

// Entry is one trusted file.
type Entry struct {
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trusted_at"`
}

type fileFormat struct {
	Version  int     `json:"version"`
	Policies []Entry `json:"policies"`
}

// Store is the trust store kept in one file.
type Store struct {
	path string
}

// Open returns the store kept at path; the file is created on the first Trust.
func Open(path string) *Store { return &Store{path: path} }

// Hash returns the hex SHA-256 of a policy's content.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Check reports whether the policy file at policyPath, whose content the caller has read as
// data, is trusted. The caller must then use exactly data, so that the file cannot change
// between the check and its use.
func (s *Store) Check(policyPath string, data []byte) (Status, error) {
	key, err := canonical(policyPath)
	if err != nil {
		return Untrusted, err
	}
	entries, err := s.load()
	if err != nil {
		return Untrusted, err
	}
	for _, e := range entries {
		if e.Path == key {
			if e.SHA256 == Hash(data) {
				return Trusted, nil
			}
			return Changed, nil
		}
	}
	return Untrusted, nil
}

// Trust records data as the trusted content of policyPath.
func (s *Store) Trust(policyPath string, data []byte, now time.Time) error {
	key, err := canonical(policyPath)
	if err != nil {
		return err
	}
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	entries, err := s.load()
	if err != nil {
		return err
	}
	// The copy is written first: a trusted entry whose copy is missing only costs the
	// diff of the next change, never the trust decision.
	if err := s.keep(data); err != nil {
		return err
	}
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.Path == key })
	entries = append(entries, Entry{Path: key, SHA256: Hash(data), TrustedAt: now.UTC()})
	return s.save(entries)
}

// lock serialises the updates of the store (Trust, Revoke), which read the file, change
// it and write it back: two at once, in one process or two, would otherwise both start
// from the same entries and the later write would drop the other's. Check and the other
// readers take no lock: the file is replaced atomically, so they see it whole.
func (s *Store) lock() (unlock func(), err error) {
	unlock, err = atomicfile.Lock(s.path)
	if err != nil {
		return nil, fmt.Errorf("locking trust store: %w", err)
	}
	return unlock, nil
}

// copies is the directory holding a copy of each trusted content, named by its hash, so
// that a changed policy can be shown against the version the user reviewed.
func (s *Store) copies() string { return filepath.Join(filepath.Dir(s.path), "trusted") }

func (s *Store) keep(data []byte) error {
	if err := os.MkdirAll(s.copies(), 0o700); err != nil {
		return fmt.Errorf("keeping the trusted copy: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(s.copies(), Hash(data)), data, 0o600); err != nil {
		return fmt.Errorf("keeping the trusted copy: %w", err)
	}
	return nil
}

// TrustedContent returns the content of policyPath as the user last trusted it. ok is
// false when the file was never trusted, or was trusted by a moat that kept no copy, or
// the copy no longer matches its hash.
func (s *Store) TrustedContent(policyPath string) (data []byte, ok bool, err error) {
	key, err := canonical(policyPath)
	if err != nil {
		return nil, false, err
	}
	entries, err := s.load()
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(entries, func(e Entry) bool { return e.Path == key })
	if i < 0 {
		return nil, false, nil
	}
	sum := entries[i].SHA256
	data, err = regfile.Read(filepath.Join(s.copies(), sum), maxCopyBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the trusted copy of %s: %w", policyPath, err)
	}
	if Hash(data) != sum {
		return nil, false, nil
	}
	return data, true, nil
}

// Revoke forgets policyPath; it reports whether it was trusted.
func (s *Store) Revoke(policyPath string) (bool, error) {
	key, err := canonical(policyPath)
	if err != nil {
		return false, err
	}
	unlock, err := s.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	entries, err := s.load()
	if err != nil {
		return false, err
	}
	n := len(entries)
	entries = slices.DeleteFunc(entries, func(e Entry) bool { return e.Path == key })
	if len(entries) == n {
		return false, nil
	}
	return true, s.save(entries)
}

// List returns every trusted file, sorted by path.
func (s *Store) List() ([]Entry, error) {
	entries, err := s.load()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return entries, nil
}

func (s *Store) load() ([]Entry, error) {
	// Read without blocking: a FIFO put in place of the store must not hang a hook.
	data, err := regfile.Read(s.path, maxStoreBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading trust store: %w", err)
	}
	var f fileFormat
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("trust store %s is corrupt: %w", s.path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("trust store %s has version %d; this moat reads version 1", s.path, f.Version)
	}
	for _, e := range f.Policies {
		// The hash names the trusted copy's file: anything but a hash could name another.
		if !isHash(e.SHA256) {
			return nil, fmt.Errorf("trust store %s is corrupt: %q is not a SHA-256 (entry for %s)", s.path, e.SHA256, e.Path)
		}
	}
	return f.Policies, nil
}

func (s *Store) save(entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	data, err := json.MarshalIndent(fileFormat{Version: 1, Policies: entries}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding trust store: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating state directory: %w", err)
	}
	if err := atomicfile.WriteFile(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("writing trust store: %w", err)
	}
	return nil
}

// isHash reports whether s is a SHA-256 as Hash writes it: 64 lowercase hex digits.
func isHash(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// canonical is the key a file is trusted under: absolute, with symlinks resolved, so that a
// link cannot borrow another file's trust.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", p, err)
	}
	return real, nil
}
