package shell

import (
	"strings"
	"testing"
)

// Every security service is switched off by every service manager's stop verbs, and
// only by those.
func TestSecurityServicesTable(t *testing.T) {
	for name := range securityServices() {
		for _, verb := range []string{"stop", "disable", "mask"} {
			for _, line := range []string{"systemctl " + verb + " " + name, "sudo systemctl " + verb + " " + name + ".service"} {
				if !gives(line, findSecurityOff) {
					t.Errorf("%s: want %s:\n%s", line, findSecurityOff, render(Analyze(line, testEnv)))
				}
			}
		}
		for _, line := range []string{"service " + name + " stop", "pkill " + name, "kill -9 $(pidof " + name + ")", "invoke-rc.d " + name + " stop",
			"systemctl status " + name, "systemctl restart " + name} {
			want := !strings.HasPrefix(line, "systemctl")
			if got := gives(line, findSecurityOff); got != want {
				t.Errorf("%s: %s %v, want %v", line, findSecurityOff, got, want)
			}
		}
	}
	for _, line := range []string{"systemctl stop nginx", "service postgresql stop", "pkill node"} {
		if gives(line, findSecurityOff) {
			t.Errorf("%s: an ordinary service is no defence", line)
		}
	}
}

// Every power verb and target stops the machine.
func TestPowerTables(t *testing.T) {
	for _, verb := range strings.Split(powerVerbs, "|") {
		if line := "systemctl " + verb; !gives(line, findShutdown) {
			t.Errorf("%s: want %s", line, findShutdown)
		}
	}
	for _, target := range powerTargets {
		if line := "systemctl isolate " + target; !gives(line, findShutdown) {
			t.Errorf("%s: want %s", line, findShutdown)
		}
	}
	if gives("systemctl isolate multi-user.target", findShutdown) {
		t.Errorf("multi-user.target keeps the machine running")
	}
}

// Every weakening kernel setting is found written with sysctl, and its safe value is not.
func TestWeakeningSysctlsTable(t *testing.T) {
	for key, weak := range weakeningSysctls {
		if line := "sysctl -w " + key + "=" + weak; !gives(line, findSecurityOff) {
			t.Errorf("%s: want %s", line, findSecurityOff)
		}
		if line := "sysctl -w " + key + "=2"; gives(line, findSecurityOff) {
			t.Errorf("%s: a stronger value is no weakening", line)
		}
	}
}

func TestKillsEveryProcess(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"kill -9 -1", true}, {"kill -KILL -1", true}, {"kill -SIGKILL -1", true}, {"kill -s KILL -1", true},
		{"kill --signal=9 -- -1", true}, {"kill -- -1", true}, {"kill -9 1", true}, {"kill 1", true},
		{"kill -HUP 1", false}, {"kill -0 1", false}, {"kill -1 1234", false}, {"kill -9 1234", false},
		{"kill -l", false}, {"kill %1", false},
		{"pkill -u root", true}, {"pkill -9 -U 1000", true}, {"pkill .", true}, {"killall -u dev", true},
		{"pkill -u dev node", false}, {"pkill -f 'npm run dev'", false}, {"killall node", false},
		{"killall5 -9", true}, {"killall5", true}, {"killall5 -0", false},
	}
	for _, tt := range tests {
		if got := gives(tt.line, findKillAll); got != tt.want {
			t.Errorf("%s: %s %v, want %v", tt.line, findKillAll, got, tt.want)
		}
	}
}

func TestBootArgsAndDbus(t *testing.T) {
	for _, arg := range weakeningBootArgs {
		if line := "grubby --update-kernel ALL --args " + arg + "x"; !gives(line, findSecurityOff) {
			t.Errorf("%s: want %s", line, findSecurityOff)
		}
	}
	if gives("grubby --update-kernel ALL --args quiet", findSecurityOff) {
		t.Errorf("quiet is no weakening")
	}
	for _, m := range []string{"PowerOff", "Reboot", "Halt", "Suspend"} {
		line := "dbus-send --system --dest=org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager." + m + " boolean:true"
		if !gives(line, findShutdown) {
			t.Errorf("%s: want %s", line, findShutdown)
		}
	}
	if gives("dbus-send --session --dest=org.freedesktop.Notifications / org.freedesktop.Notifications.Notify", findShutdown) {
		t.Errorf("a notification is no shutdown")
	}
}
