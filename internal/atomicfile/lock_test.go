package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestLockSerialisesUpdates: writers that each add a line to one file under Lock, all at
// once, lose none of the lines (without the lock, several start from the same content).
func TestLockSerialisesUpdates(t *testing.T) {
	name := filepath.Join(t.TempDir(), "state", "store.txt")
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			unlock, err := Lock(name)
			if err != nil {
				errs <- err
				return
			}
			defer unlock()
			old, err := os.ReadFile(name)
			if err != nil && !os.IsNotExist(err) {
				errs <- err
				return
			}
			errs <- WriteFile(name, append(old, strconv.Itoa(i)+"\n"...), 0o600)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "\n"); got != writers {
		t.Errorf("%d of %d updates landed:\n%s", got, writers, data)
	}
	if fi, err := os.Stat(name + ".lock"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("lock file: %v, %v; want mode 0600", fi, err)
	}
}

// TestLockRefusesALink: a link planted where the lock file goes is not followed.
func TestLockRefusesALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, "store.json.lock")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if unlock, err := Lock(filepath.Join(dir, "store.json")); err == nil {
		unlock()
		t.Fatal("Lock opened a symbolic link")
	}
	if _, err := os.Lstat(target); !os.IsNotExist(err) {
		t.Errorf("Lock created the link's target: %v", err)
	}
}

func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "state.json")
	if _, err := ReadBounded(name, 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	for _, tt := range []struct {
		data    string
		tooLong bool
	}{{"", false}, {"abcd", false}, {"abcde", true}} {
		if err := os.WriteFile(name, []byte(tt.data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadBounded(name, 4)
		if errors.Is(err, ErrTooLarge) != tt.tooLong || (!tt.tooLong && (err != nil || string(got) != tt.data)) {
			t.Errorf("%q: %q, %v", tt.data, got, err)
		}
	}
}
