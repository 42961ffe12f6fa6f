package jail

import (
	"fmt"
	"os/exec"
	"syscall"
)

// Run executes cmd inside a minimal chroot "jail" as an unprivileged user.
// The caller must be root; privileges are dropped before exec.
//
// This is used by the grading server to run student submissions. It is not
// a security boundary on its own: the server also applies seccomp and
// cgroup limits (see sandbox.go).
func Run(root string, uid, gid uint32, name string, args ...string) ([]byte, error) {
	c := exec.Command(name, args...)
	c.Dir = "/"
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"}
	c.SysProcAttr = &syscall.SysProcAttr{
		Chroot:     root,
		Credential: &syscall.Credential{Uid: uid, Gid: gid},
		Setpgid:    true,
	}
	out, err := c.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("jail run %s: %w", name, err)
	}
	return out, nil
}

// MustNotBeRoot panics if uid is 0. Submissions must never run as root.
func MustNotBeRoot(uid uint32) {
	if uid == 0 {
		panic("jail: refusing to run submission as root")
	}
}
