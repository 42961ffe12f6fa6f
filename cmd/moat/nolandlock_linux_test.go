package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/moatdev/moat/internal/testbin"
)

// sysLandlockCreateRuleset is landlock_create_ruleset's number, the same on every
// architecture (it came after the numbering was unified).
const sysLandlockCreateRuleset = 444

// runNoLandlock is the no-landlock command: it runs its arguments as a kernel without
// Landlock would, under a seccomp filter that answers landlock_create_ruleset with ENOSYS.
// That is how moat learns whether the kernel has Landlock, so moat's refusal to launch
// unsandboxed can be tested on a kernel that has it.
func runNoLandlock() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: no-landlock COMMAND [ARG...]")
		os.Exit(2)
	}
	runtime.LockOSThread() // the filter holds for this thread, which then execs
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // the system call's number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: sysLandlockCreateRuleset, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no-landlock:", err)
		os.Exit(2)
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no-landlock:", err)
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[1])
	if err == nil {
		err = syscall.Exec(path, os.Args[1:], os.Environ())
	}
	fmt.Fprintln(os.Stderr, "no-landlock:", err)
	os.Exit(2)
}

// TestLaunchWithoutLandlock: on a kernel without Landlock, moat launch runs nothing and
// says why, unless --allow-unsandboxed, which runs the command with a warning; the dry
// run and moat sandbox status say that nothing of the file and network rules holds.
func TestLaunchWithoutLandlock(t *testing.T) {
	requireLandlock(t) // the filter must be what takes Landlock away
	e := newLaunchEnv(t, "")
	canary := filepath.Join(e.ws, "ran")
	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command("no-landlock", append([]string{moatBinary(t)}, args...)...)
		cmd.Dir = e.ws
		cmd.Env = e.env
		r := testbin.Run(t, cmd, nil)
		return string(r.Stdout), string(r.Stderr), r.Code
	}
	script := "echo ran > " + canary

	_, stderr, code := run("launch", "--policy", e.policy, "--profile", "none", "--", "sh", "-c", script)
	if code != 125 || !strings.Contains(stderr, "nothing was run") {
		t.Errorf("launch without Landlock: exit %d, stderr %q; want 125 and the reason", code, stderr)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("the command ran without a sandbox")
	}

	out, _, code := run("launch", "--dry-run", "--policy", e.policy, "--profile", "none", "--", "true")
	if code != 0 || !strings.Contains(out, "landlock: NOT AVAILABLE") {
		t.Errorf("dry run without Landlock: exit %d\n%s", code, out)
	}
	out, _, code = run("sandbox", "status")
	if code != 1 || !strings.Contains(out, "landlock: not available") || !strings.Contains(out, "not enforced  file system: read, write") {
		t.Errorf("sandbox status without Landlock: exit %d\n%s", code, out)
	}

	_, stderr, code = run("launch", "--allow-unsandboxed", "--policy", e.policy, "--profile", "none", "--", "sh", "-c", script)
	if code != 0 || !strings.Contains(stderr, "WITHOUT a sandbox") {
		t.Errorf("--allow-unsandboxed: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(canary); err != nil {
		t.Errorf("--allow-unsandboxed did not run the command: %v", err)
	}
}
