package sandbox

import (
	"os"
	"testing"

	"github.com/moatdev/moat/internal/pathset"
)

// BenchmarkBuild works out the default sandbox for a home with a key in it, as every
// launch does.
func BenchmarkBuild(b *testing.B) {
	home := b.TempDir()
	if err := os.MkdirAll(home+"/.ssh", 0o700); err != nil {
		b.Fatal(err)
	}
	sec, err := Effective(nil)
	if err != nil {
		b.Fatal(err)
	}
	o := Options{
		Section:   sec,
		Host:      pathset.Host{Home: home, Temp: []string{"/tmp", "/var/tmp", "/dev/shm"}},
		Workspace: []string{b.TempDir()},
		Environ:   os.Environ(),
		ABI:       7,
		Errata:    7,
	}
	for b.Loop() {
		if _, err := Build(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCarveKept gives the carving of BenchmarkBuild from a Cache: what checking
// that every answer it used still holds costs, against carving again.
func BenchmarkCarveKept(b *testing.B) {
	home := b.TempDir()
	if err := os.MkdirAll(home+"/.ssh", 0o700); err != nil {
		b.Fatal(err)
	}
	sec, err := Effective(nil)
	if err != nil {
		b.Fatal(err)
	}
	// A temporary directory of its own: the home is under /tmp, whose listing, on a
	// shared machine, changes between any two carvings.
	in := CarveInput{
		Section:   sec,
		Host:      pathset.Host{Home: home, Temp: []string{b.TempDir()}},
		Workspace: []string{b.TempDir()},
		ABI:       7,
	}
	c := NewCache(0, nil)
	if _, _, err := c.Carve(in); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, kept, err := c.Carve(in); err != nil || !kept {
			b.Fatalf("kept %v, %v", kept, err)
		}
	}
}
