//go:build unix

package auditdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/scan"
)

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the database path
	}{
		{"database is a link", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "elsewhere.db")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, FileName)
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			return path
		}},
		{"directory is a link", func(t *testing.T, dir string) string {
			real := filepath.Join(dir, "real")
			if err := os.Mkdir(real, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(real, filepath.Join(dir, "state")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "state", FileName)
		}},
		{"database others may read", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, FileName)
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			return path
		}},
		{"directory others may write", func(t *testing.T, dir string) string {
			state := filepath.Join(dir, "state")
			if err := os.Mkdir(state, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(state, 0o777); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(state, FileName)
		}},
		{"database is a directory", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, FileName)
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
			return path
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.setup(t, t.TempDir())
			d, err := Open(context.Background(), Options{Path: path, Redactor: scan.Redactor{}})
			if err == nil {
				d.Close()
			}
			if !errors.Is(err, ErrRefused) {
				t.Fatalf("Open = %v, want ErrRefused", err)
			}
		})
	}
}

// A database Open creates is the user's alone, in a directory of the user's alone.
func TestOpenCreatesPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	d := open(t, filepath.Join(dir, FileName), Options{})
	if err := d.Append(context.Background(), record(0, 1)); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, FileName)
	for path, want := range map[string]os.FileMode{dir: 0o700, db: 0o600, db + "-wal": 0o600, db + "-shm": 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
}
