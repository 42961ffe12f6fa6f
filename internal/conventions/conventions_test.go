package conventions

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/testbin"
)

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s", dir)
	}
	return dir
}

// TestOnePackageComment: every package says its one job in exactly one package comment.
func TestOnePackageComment(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			return nil
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for name, pkg := range pkgs {
			n := 0
			for _, f := range pkg.Files {
				if f.Doc != nil {
					n++
				}
			}
			rel, _ := filepath.Rel(root, path)
			if n != 1 {
				t.Errorf("package %s (%s) has %d package comments, want 1", name, rel, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestForbiddenDependencies keeps the decision path small: the canonical model, the policy
// language and the engine must not link the CLI framework or the audit log, which belong
// to the commands that use them; nor the binary the MCP SDK.
func TestForbiddenDependencies(t *testing.T) {
	forbidden := map[string][]string{
		"github.com/moatdev/moat/internal/call":   {"github.com/spf13/cobra", "github.com/moatdev/moat/internal/policy", "github.com/moatdev/moat/internal/engine"},
		"github.com/moatdev/moat/internal/policy": {"github.com/spf13/cobra", "github.com/moatdev/moat/internal/engine", "github.com/moatdev/moat/internal/audit"},
		"github.com/moatdev/moat/internal/engine": {"github.com/spf13/cobra", "github.com/moatdev/moat/internal/audit", "github.com/moatdev/moat/internal/cli"},
		"github.com/moatdev/moat/internal/shell":  {"github.com/moatdev/moat/internal/policy", "github.com/moatdev/moat/internal/engine"},
		// The MCP SDK is a test peer: the proxy speaks the wire format itself, so that
		// what it relays is exactly what it read, and the binary stays small.
		"github.com/moatdev/moat/cmd/moat": {"github.com/modelcontextprotocol/go-sdk"},
		// A hook process starts once per tool call: it links no proxy.
		"github.com/moatdev/moat/internal/hook": {"github.com/moatdev/moat/internal/mcp"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, b := range bad {
			for _, d := range deps {
				if d == b || strings.HasPrefix(d, b+"/") {
					t.Errorf("%s depends on %s", pkg, b)
				}
			}
		}
	}
}

// maxInitBytes bounds what one of moat's packages may allocate when the binary starts.
// moat runs as one process per tool call (the hooks), so work done at init is paid by
// every call, and on the virtual machines agents run in every freshly touched page of
// memory costs tens of microseconds. Tables, patterns and indexes are built on first use
// (sync.OnceValue) instead.
const maxInitBytes = 16 << 10

// TestLittleWorkAtInit runs the built binary with the runtime's init trace and checks
// what each of moat's own packages allocates before main: the allocation figures are
// exact, unlike times, so the test is not at the mercy of a busy machine.
func TestLittleWorkAtInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := testbin.Build(t.TempDir(), "", testbin.Moat)
	if err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "version")
	run.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("moat version: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init github.com/moatdev/moat/internal/scan @6.7 ms, 0.011 ms clock, 232 bytes, 6 allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/moatdev/moat/") {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil || f[8] != "bytes," {
			t.Fatalf("cannot read the init trace line %q", line)
		}
		if bytes > maxInitBytes {
			t.Errorf("%s allocates %d bytes at init (at most %d): build its tables and patterns on first use", f[1], bytes, maxInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("the init trace names none of moat's packages:\n%s", out)
	}
}
