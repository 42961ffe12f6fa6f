//go:build linux

package linux

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/sandbox"
	"github.com/moatdev/moat/internal/testbin"
)

// TestExec restricts a re-executed copy of the test binary, never the test process
// itself: the child builds a plan and becomes a shell under it.
func TestExec(t *testing.T) {
	if dir := os.Getenv("MOAT_SANDBOX_EXEC_CHILD"); dir != "" {
		execChild(t, dir)
		return
	}
	if _, err := KernelABI(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"home/.ssh/id_rsa", "home/notes", "ws/a"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := testbin.Rerun("TestExec", "MOAT_SANDBOX_EXEC_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := "home/notes\nno key\nws/a\nwritten\nnot written\n16\n"
	if string(out) != want {
		t.Errorf("the sandboxed shell printed %q, want %q", out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "home/new")); err == nil {
		t.Error("the write in home happened")
	}
}

func execChild(t *testing.T, dir string) {
	sec, err := sandbox.Effective(nil)
	if err != nil {
		t.Fatal(err)
	}
	sec.Write = []sandbox.Entry{{Pattern: "$workspace", Origin: "test"}}
	sec.Limits.OpenFiles = 16
	abi, _ := KernelABI()
	p, err := sandbox.Build(sandbox.Options{
		Section: sec, Host: pathset.Host{Home: filepath.Join(dir, "home")}, Workspace: []string{filepath.Join(dir, "ws")},
		Environ: []string{"PATH=/usr/bin:/bin"}, ABI: abi, Errata: KernelErrata(), MPTCPFilter: MPTCPFilterable(),
	})
	if err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		"cd " + dir,
		"cat home/notes",
		"cat home/.ssh/id_rsa 2>/dev/null || echo no key",
		"cat ws/a",
		"(echo x > ws/b) 2>/dev/null && echo written",
		"(echo x > home/new) 2>/dev/null || echo not written",
		"ulimit -n",
	}, "; ")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	t.Fatal(Exec(p, sh, []string{"sh", "-c", script}))
}
