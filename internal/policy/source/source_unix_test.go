//go:build unix

package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Anything at a policy location that is not a regular file is an error, never a fall
// through to a weaker policy, and is refused without waiting on it.
func TestNonRegularPolicySourcesAreErrors(t *testing.T) {
	tests := []struct {
		name  string
		make  func(path string) error
		inErr string
	}{
		{"dangling link", func(p string) error { return os.Symlink(p+".gone", p) }, "which does not exist"},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o600) }, "FIFO"},
		{"device", func(p string) error { return os.Symlink("/dev/null", p) }, "character device"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o700) }, "directory"},
	}
	for _, where := range []string{"user", "project", "env"} {
		for _, tt := range tests {
			t.Run(where+" "+tt.name, func(t *testing.T) {
				f := newFixture(t)
				var path string
				o := Options{}
				switch where {
				case "user":
					path = f.d.UserPolicy()
				case "project":
					path = filepath.Join(f.repo, ProjectFile)
				case "env":
					path = filepath.Join(f.home, "env.yaml")
					o.Env = path
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := tt.make(path); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				src, err := f.tryFind(o)
				if took := time.Since(start); took > time.Second {
					t.Errorf("Find took %s", took)
				}
				if err == nil {
					t.Fatalf("Find = %s (%s); want an error", src.Name, src.Kind)
				}
				if errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), tt.inErr) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %q: want one naming %s and saying %q", err, path, tt.inErr)
				}
			})
		}
	}
}

// A dangling link at the user policy's directory is an error too; a user policy that is
// simply not there is the embedded policy.
func TestUserPolicyDirectoryLink(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(f.d.UserPolicy())), 0o700); err != nil {
		t.Fatal(err)
	}
	if src := f.find(t, Options{}); src.Kind != FromEmbedded {
		t.Fatalf("no user policy: %+v", src)
	}
	if err := os.Symlink(filepath.Join(f.home, "dotfiles", "moat"), filepath.Dir(f.d.UserPolicy())); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tryFind(Options{}); err == nil || !strings.Contains(err.Error(), "which does not exist") {
		t.Errorf("user policy in a dangling directory link: %v", err)
	}
}
