package userservice

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/dirs"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var testDirs = dirs.Dirs{Home: "/home/u", Config: "/home/u/.config/moat", State: "/home/u/.local/state/moat"}

func TestForGolden(t *testing.T) {
	tests := []struct {
		name, goos, golden string
		spec               Spec
	}{
		{"systemd", "linux", "moat.service", Spec{Executable: "/usr/local/bin/moat", Args: []string{"daemon", "run"}}},
		{"systemd quoted", "linux", "quoted.service", Spec{
			Executable: "/opt/my tools/moat", Args: []string{"daemon", "run", "--tcp", "127.0.0.1:7000"},
			Env: []string{"XDG_CONFIG_HOME=/home/u/my cfg", "MOAT_POLICY=/p/100%$x.yaml"},
		}},
		{"launchd", "darwin", "dev.moat.daemon.plist", Spec{
			Executable: "/Users/u/bin/moat", Args: []string{"daemon", "run"},
			Env: []string{"TMPDIR=/var/folders/x/T/", "A=<&>"}, Log: "/Users/u/.local/state/moat/daemon.log",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := For(tt.goos, testDirs, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tt.golden)
			if *update {
				if err := os.WriteFile(golden, u.Content, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(u.Content) != string(want) {
				t.Errorf("content differs from %s:\n%s", golden, u.Content)
			}
		})
	}
}

func TestForPaths(t *testing.T) {
	spec := Spec{Executable: "/bin/moat", Args: []string{"daemon", "run"}, Log: "/l/daemon.log"}
	u, err := For("linux", testDirs, spec)
	if err != nil || u.Path != "/home/u/.config/systemd/user/moat.service" || u.Manager != Systemd || u.Name != "moat.service" {
		t.Errorf("linux: %+v, %v", u, err)
	}
	u, err = For("darwin", testDirs, spec)
	if err != nil || u.Path != "/home/u/Library/LaunchAgents/dev.moat.daemon.plist" || u.Manager != Launchd || u.Name != "dev.moat.daemon" {
		t.Errorf("darwin: %+v, %v", u, err)
	}
	xdg := testDirs
	xdg.Config = "/cfg/moat"
	if got := SystemdPath(xdg); got != "/cfg/systemd/user/moat.service" {
		t.Errorf("SystemdPath with XDG_CONFIG_HOME = %s", got)
	}
}

func TestForRefuses(t *testing.T) {
	tests := []struct {
		name, goos  string
		spec        Spec
		unsupported bool
	}{
		{"windows", "windows", Spec{Executable: "/bin/moat"}, true},
		{"relative program", "linux", Spec{Executable: "moat"}, false},
		{"newline in an argument", "linux", Spec{Executable: "/bin/moat", Args: []string{"daemon\nExecStartPre=/bin/evil"}}, false},
		{"newline in the program", "linux", Spec{Executable: "/bin/mo\nat"}, false},
		{"newline in the environment", "linux", Spec{Executable: "/bin/moat", Env: []string{"A=b\n[Service]"}}, false},
		{"environment without a name", "linux", Spec{Executable: "/bin/moat", Env: []string{"=x"}}, false},
		{"launchd without a log", "darwin", Spec{Executable: "/bin/moat"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := For(tt.goos, testDirs, tt.spec)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrUnsupported) != tt.unsupported {
				t.Errorf("err = %v; unsupported %v", err, tt.unsupported)
			}
		})
	}
}

func TestSystemdQuote(t *testing.T) {
	tests := []struct {
		in   string
		exec bool
		want string
	}{
		{"/usr/bin/moat", true, "/usr/bin/moat"},
		{"a b", true, `"a b"`},
		{`a"b`, true, `"a\"b"`},
		{`a\b`, true, `"a\\b"`},
		{"it's", true, `"it's"`},
		{"100%", true, "100%%"},
		{"$HOME", true, "$$HOME"},
		{"$HOME", false, "$HOME"},
		{"", true, `""`},
	}
	for _, tt := range tests {
		if got := systemdQuote(tt.in, tt.exec); got != tt.want {
			t.Errorf("systemdQuote(%q, %v) = %s, want %s", tt.in, tt.exec, got, tt.want)
		}
	}
}

// Every file that chooses what the service runs is protected: the unit itself, a
// drop-in that overrides its ExecStart=, and the launchd agent.
func TestProtected(t *testing.T) {
	got := Protected(testDirs)
	for _, want := range []string{
		"/home/u/.config/systemd/user/moat.service",
		"/home/u/.config/systemd/user/moat.service.d/**",
		"/home/u/.config/systemd/user.control/moat.service",
		"/home/u/.local/share/systemd/user/moat.service.d/**",
		"/home/u/.config/systemd/user/service.d/**",
		"/home/u/Library/LaunchAgents/dev.moat.daemon.plist",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("Protected lacks %s:\n%s", want, strings.Join(got, "\n"))
		}
	}
}

func TestRunsProgram(t *testing.T) {
	spec := Spec{Executable: "/opt/my tools/moat", Args: []string{"daemon", "run", "--tcp", "127.0.0.1:1"}, Log: "/l/daemon.log"}
	for _, goos := range []string{"linux", "darwin"} {
		u, err := For(goos, testDirs, spec)
		if err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			exe  string
			want bool
		}{
			{"/opt/my tools/moat", true},
			{"/opt/my", false},
			{"/opt/my tools/moat2", false},
			{"/usr/bin/moat", false},
		}
		for _, tt := range tests {
			if got := RunsProgram(u.Manager, u.Content, tt.exe); got != tt.want {
				t.Errorf("%s: RunsProgram(%q) = %v, want %v", goos, tt.exe, got, tt.want)
			}
		}
	}
	if RunsProgram("other", []byte("ExecStart=/bin/moat"), "/bin/moat") {
		t.Error("an unknown manager's file runs the program")
	}
}
