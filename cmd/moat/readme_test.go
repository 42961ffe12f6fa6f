package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeFirstCommand is the first line of the README's first code block: the command
// that installs moat and runs its main job.
func readmeFirstCommand(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inBlock := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			inBlock = true
			continue
		}
		if inBlock {
			cmd, _, _ := strings.Cut(line, "   #")
			return strings.TrimSpace(cmd)
		}
	}
	t.Fatal("the README has no code block")
	return ""
}

// TestReadmeFirstCommand runs the README's first command as a newcomer would, on a
// machine where the Go binary directory is not on PATH: it must install moat and show
// the embedded policy denying the README's example (exit status 3).
func TestReadmeFirstCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("installs moat with go install: not in -short runs")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the README's command cannot run here")
	}
	line := readmeFirstCommand(t)
	if !strings.HasPrefix(line, "go install ") {
		t.Fatalf("the README's first command does not install moat: %q", line)
	}
	gopath := t.TempDir()
	home := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = filepath.Join("..", "..")
	// PATH holds the go command and the system, not $(go env GOPATH)/bin; the module
	// and build caches are the machine's, so nothing is downloaded again.
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Dir(goBin)+":/usr/bin:/bin",
		"GOPATH="+gopath,
		"GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"GOCACHE="+goEnv(t, "GOCACHE"),
		"GOFLAGS=",
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"),
		"XDG_RUNTIME_DIR=",
		"MOAT_DAEMON=off",
		"MOAT_POLICY=",
	)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("%s: %v (want exit status 3, deny)\n%s", line, err, out)
	}
	if !strings.Contains(string(out), "deny") {
		t.Errorf("the output does not say deny:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(gopath, "bin", "moat")); err != nil {
		t.Errorf("moat was not installed into GOPATH/bin: %v", err)
	}
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}
