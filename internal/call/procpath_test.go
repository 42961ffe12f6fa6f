package call

import "testing"

func TestThroughProc(t *testing.T) {
	for _, tt := range []struct{ p, cwd, want string }{
		{"/proc/self/root/etc/shadow", "", "/etc/shadow"},
		{"/proc/1/root/home/u/.aws/credentials", "", "/home/u/.aws/credentials"},
		{"/proc/thread-self/root/proc/self/root/home/u/.ssh/id_rsa", "", "/home/u/.ssh/id_rsa"},
		{"/proc/self/root", "", "/"},
		{"/proc/self/cwd/../.ssh/id_rsa", "/home/u/project", "/home/u/.ssh/id_rsa"},
		{"/proc/self/cwd/x", "", "/proc/self/cwd/x"},    // the reading process's directory is not known
		{"/proc/42/cwd/x", "/home/u", "/proc/42/cwd/x"}, // another process's directory
		{"/proc/self/environ", "", "/proc/self/environ"},
		{"/proc/cpuinfo", "", "/proc/cpuinfo"},
		{"/proc/1x/root/etc", "", "/proc/1x/root/etc"},
		{"/etc/passwd", "", "/etc/passwd"},
		{"//proc//self/./root//etc/../etc/shadow", "", "/etc/shadow"},
		{"/proc/self/../1/root/etc/shadow", "", "/etc/shadow"},
		{"/home/u/project/../.ssh/id_rsa", "", "/home/u/.ssh/id_rsa"},
	} {
		if got := ThroughProc(tt.p, tt.cwd); got != tt.want {
			t.Errorf("ThroughProc(%q, %q) = %q, want %q", tt.p, tt.cwd, got, tt.want)
		}
	}
}
