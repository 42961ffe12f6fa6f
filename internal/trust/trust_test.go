package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrustLifecycle(t *testing.T) {
	dir := t.TempDir()
	store := Open(filepath.Join(dir, "state", "trusted.json"))
	policy := filepath.Join(dir, "moat.yaml")
	v1, v2 := []byte("version: 1\n"), []byte("version: 1\ndefault: allow\n")
	if err := os.WriteFile(policy, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		data []byte
		want Status
	}{
		{"never trusted", nil, v1, Untrusted},
		{"trusted", func() error { return store.Trust(policy, v1, time.Unix(0, 0)) }, v1, Trusted},
		{"content changed", nil, v2, Changed},
		{"trusted again", func() error { return store.Trust(policy, v2, time.Unix(1, 0)) }, v2, Trusted},
		{"old content no longer trusted", nil, v1, Changed},
		{"revoked", func() error { _, err := store.Revoke(policy); return err }, v2, Untrusted},
	}
	for _, s := range steps {
		if s.do != nil {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		got, err := store.Check(policy, s.data)
		if err != nil || got != s.want {
			t.Errorf("%s: Check = %v, %v; want %v", s.name, got, err, s.want)
		}
	}
	st, err := os.Stat(filepath.Join(dir, "state", "trusted.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("store file mode: %v %v", st, err)
	}
	if was, err := store.Revoke(policy); was || err != nil {
		t.Errorf("second revoke: %v %v", was, err)
	}
}

func TestListSortedAndKeyedByRealPath(t *testing.T) {
	dir := t.TempDir()
	store := Open(filepath.Join(dir, "trusted.json"))
	a, b := filepath.Join(dir, "b.yaml"), filepath.Join(dir, "a.yaml")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := store.Trust(p, []byte("x"), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	if st, _ := store.Check(link, []byte("x")); st != Trusted {
		t.Errorf("a link resolves to the trusted file: %v", st)
	}
	entries, err := store.List()
	if err != nil || len(entries) != 2 || !strings.HasSuffix(entries[0].Path, "a.yaml") {
		t.Fatalf("List = %+v, %v", entries, err)
	}
}

func TestCorruptStoreIsAnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trusted.json")
	for _, content := range []string{
		"{not json",
		`{"version":2,"policies":[]}`,
		// A hash that is not one would name another file as the trusted copy.
		`{"version":1,"policies":[{"path":"/p/moat.yaml","sha256":"../../etc/passwd"}]}`,
		`{"version":1,"policies":[{"path":"/p/moat.yaml","sha256":""}]}`,
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path).Check(path, nil); err == nil {
			t.Errorf("%q: want an error", content)
		}
	}
}

func TestTrustedContent(t *testing.T) {
	dir := t.TempDir()
	store := Open(filepath.Join(dir, "state", "trusted.json"))
	policy := filepath.Join(dir, "moat.yaml")
	if err := os.WriteFile(policy, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := store.TrustedContent(policy); ok || err != nil {
		t.Fatalf("never trusted: ok %v, err %v", ok, err)
	}
	v1, v2 := []byte("version: 1\n"), []byte("version: 1\ndefault: allow\n")
	for _, v := range [][]byte{v1, v2} {
		if err := store.Trust(policy, v, time.Unix(0, 0)); err != nil {
			t.Fatal(err)
		}
		got, ok, err := store.TrustedContent(policy)
		if !ok || err != nil || string(got) != string(v) {
			t.Errorf("after trusting %q: %q, %v, %v", v, got, ok, err)
		}
	}
	// A copy that no longer matches its hash is not shown as what was trusted.
	if err := os.WriteFile(filepath.Join(dir, "state", "trusted", Hash(v2)), []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := store.TrustedContent(policy); ok || err != nil {
		t.Errorf("tampered copy: %q, %v, %v", got, ok, err)
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

// FuzzStore reads arbitrary store files, seeded from the shapes the tests write: reading
// one must never panic, and a store that reads must answer every question about it.
func FuzzStore(f *testing.F) {
	f.Add([]byte(`{"version":1,"policies":[]}`))
	f.Add([]byte(`{"version":1,"policies":[{"path":"/p/moat.yaml","sha256":"` + Hash([]byte("x")) + `","trusted_at":"2026-01-02T03:04:05Z"}]}`))
	f.Add([]byte(`{"version":1,"policies":[{"path":"/p/moat.yaml","sha256":"../../etc/passwd"}]}`))
	f.Add([]byte(`{"version":1,"policies":[{"path":"/p/moat.yaml","sha256":""}]}`))
	f.Add([]byte("{not json"))
	f.Add([]byte(`{"version":2,"policies":[]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		policy := filepath.Join(dir, "moat.yaml")
		writeFile(t, policy, []byte("x"))
		path := filepath.Join(dir, "trusted.json")
		// The fuzzed entries name the policy written here.
		writeFile(t, path, []byte(strings.ReplaceAll(string(data), "/p/moat.yaml", policy)))
		store := Open(path)
		if _, err := store.List(); err != nil {
			return
		}
		if _, err := store.Check(policy, []byte("x")); err != nil {
			t.Fatalf("Check after a store that lists: %v", err)
		}
		// What is given as the trusted content is what Check trusts.
		got, ok, err := store.TrustedContent(policy)
		if ok {
			if st, cerr := store.Check(policy, got); err != nil || cerr != nil || st != Trusted {
				t.Fatalf("TrustedContent = %q, %v; Check of it = %v, %v", got, err, st, cerr)
			}
		}
	})
}
