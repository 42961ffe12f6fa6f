//go:build unix

package trust

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO in place of the store or of a trusted copy is an error at once: a hook that
// reads the store must never wait on it.
func TestNonRegularStoreIsAnError(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "moat.yaml")
	store := Open(filepath.Join(dir, "state", "trusted.json"))
	v := []byte("version: 1\n")
	writeFile(t, policy, v)
	if err := store.Trust(policy, v, time.Now()); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(dir, "state", "trusted", Hash(v))
	mustRemove(t, copyPath)
	if err := syscall.Mkfifo(copyPath, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, ok, err := store.TrustedContent(policy); ok || err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("FIFO as the trusted copy: ok %v, err %v", ok, err)
	}
	mustRemove(t, store.path)
	if err := syscall.Mkfifo(store.path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Check(policy, v); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("FIFO as the store: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %s", took)
	}
}
