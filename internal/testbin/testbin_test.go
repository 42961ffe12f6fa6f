package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuildAndRun(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"go.mod":  "module probe\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() {\n\tin, _ := io.ReadAll(os.Stdin)\n\tfmt.Printf(\"out:%s\", in)\n\tfmt.Fprint(os.Stderr, \"err\")\n\tos.Exit(3)\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := Build(t.TempDir(), src, ".")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(bin) != filepath.Base(src) {
		t.Errorf("program named %s, want the directory's name %s", bin, filepath.Base(src))
	}
	r := Run(t, exec.Command(bin), strings.NewReader("in"))
	if string(r.Stdout) != "out:in" || string(r.Stderr) != "err" || r.Code != 3 {
		t.Errorf("got stdout %q stderr %q exit %d", r.Stdout, r.Stderr, r.Code)
	}
}

func TestBinaryBuildsOnceAndRemoves(t *testing.T) {
	if testing.Short() {
		t.Skip("builds moat")
	}
	b := New(Moat)
	first := b.Path(t)
	if second := b.Path(t); second != first {
		t.Fatalf("built twice: %s, then %s", first, second)
	}
	r := Run(t, exec.Command(first, "version"), nil)
	if r.Code != 0 || !strings.Contains(string(r.Stdout), "moat") {
		t.Errorf("moat version: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	// The hook client, beside moat: run without an agent and without a daemon, it is
	// answered by the moat beside it.
	client := b.Beside(MoatHook).Path(t)
	if filepath.Dir(client) != filepath.Dir(first) {
		t.Errorf("moat-hook built in %s, not beside moat in %s", client, first)
	}
	cmd := exec.Command(client)
	cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "PATH=/nonexistent"}
	if r := Run(t, cmd, nil); r.Code != 2 || !strings.Contains(string(r.Stderr), "hook takes one agent name") {
		t.Errorf("moat-hook without an agent: exit %d, stderr %q; want moat hook's answer", r.Code, r.Stderr)
	}
	b.Remove()
	for _, p := range []string{first, client} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("after Remove, %s: %v", p, err)
		}
	}
}

func TestBuildFailureIsReported(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module broken\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nfunc main() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(t.TempDir(), src, "."); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("err = %v, want the compiler's message", err)
	}
}

// TestRerun runs itself again as a child, which reports through its exit status that it
// saw the variable.
func TestRerun(t *testing.T) {
	if os.Getenv("MOAT_TESTBIN_CHILD") == "1" {
		os.Exit(7)
	}
	r := Run(t, Rerun(t.Name(), "MOAT_TESTBIN_CHILD=1"), nil)
	if r.Code != 7 {
		t.Errorf("the child exited %d, want 7:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
