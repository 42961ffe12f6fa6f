//go:build linux || darwin

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// hookClientArms are the hook client's paths for BenchmarkHookVsFloor, for the user at
// home: with the daemon running ("client") and with no daemon ("fallback", moat-hook
// finding no socket and running moat hook). The daemon is started here and killed at the
// end of the benchmark.
func hookClientArms(b *testing.B, home string) []hookArm {
	b.Helper()
	client := moatHook.Path(b)
	// Short runtime directories: a socket's path is limited to about 100 bytes.
	runtime := shortPrivateDir(b)
	none := shortPrivateDir(b)
	path := "PATH=" + os.Getenv("PATH")
	withDaemon := []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, path}
	cmd := exec.Command(moatBinary(b), "daemon", "run")
	cmd.Env, cmd.Dir = withDaemon, home
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		status := exec.Command(moatBinary(b), "daemon", "status")
		status.Env = withDaemon
		if status.Run() == nil {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the daemon did not answer")
		}
	}
	return []hookArm{
		{name: "client", prog: client, args: []string{"claude-code"}, env: withDaemon},
		{name: "fallback", prog: client, args: []string{"claude-code"}, env: []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + none, path}},
	}
}

// shortPrivateDir is a new 0700 directory with a short path, removed at the end.
func shortPrivateDir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "moatrt-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	return filepath.Clean(dir)
}
