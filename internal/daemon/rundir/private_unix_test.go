//go:build unix

package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/dirs"
)

func TestPrivateDir(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		create  bool
		wantErr string
	}{
		{"created", func(*testing.T, string) {}, true, ""},
		{"absent, not created", func(*testing.T, string) {}, false, "no such file"},
		{"exists private", func(t *testing.T, dir string) { mkdir(t, dir, 0o700) }, false, ""},
		{"other mode", func(t *testing.T, dir string) { mkdir(t, dir, 0o755) }, true, "has mode 0755, not 0700"},
		{"a link", func(t *testing.T, dir string) {
			target := filepath.Join(filepath.Dir(dir), "elsewhere")
			mkdir(t, target, 0o700)
			if err := os.Symlink(target, dir); err != nil {
				t.Fatal(err)
			}
		}, true, "is a link"},
		{"a file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, true, "not a directory"},
		{"another owner", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory away")
			}
			mkdir(t, dir, 0o700)
			if err := os.Chown(dir, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}, true, "belongs to uid 65534"},
		{"parent of another owner, not sticky", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory away")
			}
			if err := os.Chown(filepath.Dir(dir), nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}, true, "not sticky"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "moat")
			tt.setup(t, dir)
			err := privateDir(dir, tt.create)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				fi, err := os.Lstat(dir)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Errorf("dir %v, %v", fi.Mode(), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// A refused $XDG_RUNTIME_DIR/moat gives way to the per-user directory.
func TestPrepareFallsBack(t *testing.T) {
	root := t.TempDir()
	xdg := filepath.Join(root, "xdg", "moat")
	mkdir(t, xdg, 0o777)
	os.Chmod(xdg, 0o777)
	fallback := filepath.Join(root, "moat-1")
	p, err := Prepare(dirs.Dirs{Runtime: []string{xdg, fallback}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir != fallback || p.Socket != filepath.Join(fallback, "daemon.sock") {
		t.Errorf("paths %+v", p)
	}
	if _, err := Prepare(dirs.Dirs{Runtime: []string{xdg}}); err == nil || !strings.Contains(err.Error(), "no safe runtime directory") {
		t.Errorf("only a refused directory: %v", err)
	}
}

func mkdir(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

// nobody is the uid a directory is given to in the tests that run as root.
const nobody = 65534
