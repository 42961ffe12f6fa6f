package pathset

import (
	"testing"

	"github.com/moatdev/moat/internal/glob"
)

// TestSystemLeavesTheHome: wherever the home is, $system does not hold it, and still
// holds the system around it; $secrets keeps the secrets inside it.
func TestSystemLeavesTheHome(t *testing.T) {
	in := func(r Resolved, p string) bool {
		hit := false
		for _, s := range r.Include {
			if g, err := glob.CompilePath(s, glob.Options{}); err == nil && g.Match(p) {
				hit = true
			}
		}
		for _, s := range r.Exclude {
			if g, err := glob.CompilePath(s, glob.Options{}); err == nil && g.Match(p) {
				return false
			}
		}
		return hit
	}
	for _, home := range []string{"/root", "/var/lib/jenkins", "/home/u"} {
		h := Host{Home: home}
		sys, err := Resolve("$system", h)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{home + "/projects/x", home + "/notes/a"} {
			if in(sys, p) {
				t.Errorf("home %s: $system holds %s", home, p)
			}
		}
		for _, p := range []string{"/etc/passwd", "/usr/bin/ls", "/var/lib/dpkg/status"} {
			if !in(sys, p) {
				t.Errorf("home %s: $system lost %s", home, p)
			}
		}
		sec, err := Resolve("$secrets", h)
		if err != nil {
			t.Fatal(err)
		}
		if !in(sec, home+"/.ssh/id_rsa") {
			t.Errorf("home %s: $secrets lost the ssh key", home)
		}
	}
	// Root's home stays the system's for anyone else.
	sys, _ := Resolve("$system", Host{Home: "/home/u"})
	if !in(sys, "/root/.profile") {
		t.Error("for /home/u, /root is the system's")
	}
}
