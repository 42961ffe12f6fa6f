package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// entries lists dir's names, so tests can see that no temporary file was left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// replacers are the two ways of replacing a file, which differ only in syncing.
var replacers = []struct {
	name  string
	write func(string, []byte, os.FileMode) error
}{
	{"WriteFile", WriteFile},
	{"WriteVolatile", WriteVolatile},
}

func TestWriteFile(t *testing.T) {
	for _, r := range replacers {
		t.Run(r.name, func(t *testing.T) { testReplace(t, r.write) })
	}
}

func testReplace(t *testing.T, write func(string, []byte, os.FileMode) error) {
	tests := []struct {
		name    string
		old     []byte // nil: the file does not exist beforehand
		data    []byte
		perm    os.FileMode
		wantErr bool
	}{
		{name: "new file", data: []byte("hello\n"), perm: 0o600},
		{name: "replace", old: []byte("old content that is longer"), data: []byte("new"), perm: 0o644},
		{name: "empty", old: []byte("x"), data: []byte{}, perm: 0o640},
		{name: "perm wider than umask", data: []byte("x"), perm: 0o666},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "policy.yaml")
			if tt.old != nil {
				if err := os.WriteFile(name, tt.old, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := write(name, tt.data, tt.perm); err != nil {
				t.Fatalf("write: %v", err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tt.data) {
				t.Errorf("content = %q, want %q", got, tt.data)
			}
			fi, err := os.Stat(name)
			if err != nil {
				t.Fatal(err)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != tt.perm {
				t.Errorf("perm = %v, want %v", fi.Mode().Perm(), tt.perm)
			}
			if got := entries(t, dir); !slices.Equal(got, []string{"policy.yaml"}) {
				t.Errorf("directory holds %q, want only policy.yaml", got)
			}
		})
	}
}

func TestWriteFileErrorsLeaveNothing(t *testing.T) {
	for _, r := range replacers {
		t.Run(r.name, func(t *testing.T) { testReplaceErrors(t, r.write) })
	}
}

func testReplaceErrors(t *testing.T, write func(string, []byte, os.FileMode) error) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the name to write
	}{
		{
			name:  "directory does not exist",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "missing", "f") },
		},
		{
			name: "target is a directory",
			setup: func(t *testing.T, dir string) string {
				name := filepath.Join(dir, "d")
				if err := os.Mkdir(name, 0o700); err != nil {
					t.Fatal(err)
				}
				return name
			},
		},
		{
			name: "target is a symlink to a file",
			setup: func(t *testing.T, dir string) string {
				target := filepath.Join(dir, "target")
				if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
					t.Fatal(err)
				}
				return symlink(t, target, filepath.Join(dir, "link"))
			},
		},
		{
			name: "target is a dangling symlink",
			setup: func(t *testing.T, dir string) string {
				return symlink(t, filepath.Join(dir, "nowhere"), filepath.Join(dir, "link"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := tt.setup(t, dir)
			before := entries(t, dir)
			if err := write(name, []byte("new"), 0o600); err == nil {
				t.Fatal("write succeeded, want an error")
			}
			if after := entries(t, dir); !slices.Equal(before, after) {
				t.Errorf("directory changed from %q to %q", before, after)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "target")); err == nil && string(b) != "keep" {
				t.Errorf("symlink target was overwritten: %q", b)
			}
		})
	}
}

func symlink(t *testing.T, target, name string) string {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	return name
}

func TestWriteNew(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, name string)
		wantExist bool
	}{
		{name: "absent", setup: func(t *testing.T, name string) {}},
		{
			name: "existing file",
			setup: func(t *testing.T, name string) {
				if err := os.WriteFile(name, []byte("keep"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantExist: true,
		},
		{
			name: "dangling symlink",
			setup: func(t *testing.T, name string) {
				symlink(t, filepath.Join(filepath.Dir(name), "nowhere"), name)
			},
			wantExist: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			name := filepath.Join(dir, "trust.json")
			tt.setup(t, name)
			before := entries(t, dir)
			err := WriteNew(name, []byte("new"), 0o600)
			if tt.wantExist {
				if !errors.Is(err, fs.ErrExist) {
					t.Fatalf("WriteNew error = %v, want one wrapping fs.ErrExist", err)
				}
				if after := entries(t, dir); !slices.Equal(before, after) {
					t.Errorf("directory changed from %q to %q", before, after)
				}
				if b, err := os.ReadFile(name); err == nil && string(b) != "keep" {
					t.Errorf("existing file was overwritten: %q", b)
				}
				if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
					t.Error("WriteNew wrote through a dangling symlink")
				}
				return
			}
			if err != nil {
				t.Fatalf("WriteNew: %v", err)
			}
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "new" {
				t.Errorf("content = %q, want %q", got, "new")
			}
			if got := entries(t, dir); !slices.Equal(got, []string{"trust.json"}) {
				t.Errorf("directory holds %q, want only trust.json", got)
			}
		})
	}
}

// TestWriteNewRace checks that of many concurrent WriteNew calls for one name exactly one
// succeeds and the file holds that writer's content in full.
func TestWriteNewRace(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "once")
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- WriteNew(name, []byte{byte('a' + i)}, 0o600) }()
	}
	wins := 0
	for range n {
		err := <-errs
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, fs.ErrExist):
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Errorf("%d writers succeeded, want exactly 1", wins)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"once"}) {
		t.Errorf("directory holds %q, want only once", got)
	}
}
