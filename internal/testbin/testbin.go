// Package testbin builds a program of this module once per test process and runs it as
// an agent would, for the tests that must see the real binary.
package testbin

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Import paths of the programs of this module.
const (
	// Moat is the moat command.
	Moat = "github.com/moatdev/moat/cmd/moat"
	// MoatHook is the thin hook client, installed beside moat (see Beside).
	MoatHook = "github.com/moatdev/moat/cmd/moat-hook"
)

// Binary is one program built on first use, static (CGO_ENABLED=0) as it is released, in
// a temporary directory that Remove deletes. A test package keeps one Binary per program
// it runs and calls Remove from its TestMain, after the tests.
type Binary struct {
	pkg    string
	beside *Binary // built into that program's directory
	once   sync.Once
	dir    string
	path   string
	err    error
}

// New returns the program with the given import path, not yet built.
func New(pkg string) *Binary {
	return &Binary{pkg: pkg}
}

// Path builds the program the first time it is asked for and returns its file name; a
// failed build fails every test that asks.
func (b *Binary) Path(tb testing.TB) string {
	tb.Helper()
	b.once.Do(b.build)
	if b.err != nil {
		tb.Fatal(b.err)
	}
	return b.path
}

// Beside returns the program pkg, built on first use into the directory of b's program,
// as moat-hook is installed beside moat (it falls back on the moat beside it). b's
// Remove deletes both.
func (b *Binary) Beside(pkg string) *Binary {
	return &Binary{pkg: pkg, beside: b}
}

func (b *Binary) build() {
	if b.beside != nil {
		b.beside.once.Do(b.beside.build)
		if b.err = b.beside.err; b.err == nil {
			b.path, b.err = Build(b.beside.dir, "", b.pkg)
		}
		return
	}
	dir, err := os.MkdirTemp("", "moat-testbin-")
	if err != nil {
		b.err = fmt.Errorf("building %s: %w", b.pkg, err)
		return
	}
	b.dir = dir
	b.path, b.err = Build(dir, "", b.pkg)
}

// Remove deletes the built program, if it was built; TestMain calls it after m.Run.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// Build compiles pkg with the release settings into outDir and returns the program's
// file name. pkg is resolved in srcDir, or in the current directory when srcDir is empty;
// a program of another module (srcDir set) does not inherit this module's GOFLAGS.
func Build(outDir, srcDir, pkg string) (string, error) {
	base := filepath.Base(pkg)
	if base == "." || base == string(filepath.Separator) {
		base = filepath.Base(srcDir)
	}
	name := filepath.Join(outDir, base)
	cmd := exec.Command("go", "build", "-o", name, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if srcDir != "" {
		cmd.Dir = srcDir
		cmd.Env = append(cmd.Env, "GOFLAGS=")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return name, nil
}

// Result is what one run of a program gave: its output and exit status.
type Result struct {
	Stdout, Stderr []byte
	Code           int
}

// Run runs cmd with stdin (nil for none) and returns its output and exit status (-1 when
// a signal ended it); a program that could not be started fails the test.
func Run(tb testing.TB, cmd *exec.Cmd, stdin io.Reader) Result {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		tb.Fatalf("%s: %v\nstderr:\n%s", cmd.Path, err, stderr.Bytes())
	}
	return Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), Code: code}
}

// Rerun returns a command that runs the test named test again, alone and once, in a new
// process of the running test binary, with env added to this process's environment: for
// tests whose child must be a process of its own (another lock holder, a restricted
// process, a fresh start). The child tells itself apart by a variable in env.
func Rerun(test string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	return cmd
}
