package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestProgramArgs(t *testing.T) {
	tests := []struct {
		argv []string
		want []string
	}{
		{[]string{"moat", "check", "--", "ls"}, []string{"check", "--", "ls"}},
		{[]string{"/usr/local/bin/moat"}, []string{}},
		{[]string{"moat-shell", "-c", "ls"}, []string{"shell", "-c", "ls"}},
		{[]string{"/home/me/.local/bin/moat-shell", "-lc", "ls"}, []string{"shell", "-lc", "ls"}},
		{[]string{"-moat-shell"}, []string{"shell"}},
		{[]string{"moat-shell.exe", "-c", "x"}, []string{"shell", "-c", "x"}},
		{[]string{"moat-shellx", "-c", "x"}, []string{"-c", "x"}},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := ProgramArgs(tt.argv); strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("ProgramArgs(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

// shellArgsTests are the command lines agents and tools give $SHELL, with what moat
// decides; they seed FuzzParseShellArgs.
var shellArgsTests = []struct {
	args    []string
	command string
	params  []string
	err     string
}{
	{[]string{"-c", "ls -la"}, "ls -la", nil, ""},
	{[]string{"-lc", "ls"}, "ls", nil, ""},
	{[]string{"-ic", "ls"}, "ls", nil, ""},
	{[]string{"-ec", "ls"}, "ls", nil, ""},
	{[]string{"-ce", "ls"}, "ls", nil, ""},
	{[]string{"-e", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-c", "-e", "ls"}, "ls", nil, ""},
	{[]string{"-l", "-c", "ls"}, "ls", nil, ""},
	{[]string{"--login", "-c", "ls"}, "ls", nil, ""},
	{[]string{"--noprofile", "--norc", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-i", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-eo", "pipefail", "-c", "ls | wc"}, "ls | wc", nil, ""},
	{[]string{"-o", "errexit", "+o", "nounset", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-O", "extglob", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-xeuc", "ls"}, "ls", nil, ""},
	{[]string{"+e", "-c", "ls"}, "ls", nil, ""},
	{[]string{"-c", "rm -rf \"$1\"", "sh", "/home/me"}, "rm -rf \"$1\"", []string{"sh", "/home/me"}, ""},
	{[]string{"-c", "echo", "--", "-x"}, "echo", []string{"--", "-x"}, ""},
	{[]string{"-c", "--", "ls"}, "ls", nil, ""},
	{[]string{"-ceo", "pipefail", "ls"}, "ls", nil, ""},
	{[]string{"-oc", "pipefail", "ls"}, "ls", nil, ""},
	{[]string{"-c", "-", "ls"}, "ls", nil, ""},
	{[]string{"-c", ""}, "", nil, ""},
	{[]string{"-c"}, "", nil, "-c needs a command string"},
	{[]string{}, "", nil, "command strings (-c 'COMMAND') only"},
	{[]string{"-l"}, "", nil, "command strings (-c 'COMMAND') only"},
	{[]string{"-i"}, "", nil, "command strings (-c 'COMMAND') only"},
	{[]string{"script.sh", "arg"}, "", nil, "not script files"},
	{[]string{"-e", "script.sh"}, "", nil, "not script files"},
	{[]string{"-s"}, "", nil, "-s reads commands from standard input"},
	{[]string{"-sc", "ls"}, "", nil, "-s reads commands"},
	{[]string{"-o"}, "", nil, "-o needs an option name"},
	{[]string{"-co"}, "", nil, "-o needs an option name"},
	{[]string{"--rcfile", "x", "-c", "ls"}, "", nil, "option --rcfile"},
	{[]string{"--init-file", "x", "-c", "ls"}, "", nil, "option --init-file"},
	{[]string{"-D", "-c", "ls"}, "", nil, "option -D"},
	{[]string{"+c", "ls"}, "", nil, "option +c"},
	{[]string{"-q", "-c", "ls"}, "", nil, "option -q"},
	{[]string{"-k", "-c", "ls"}, "", nil, "option -k"},
	{[]string{"-o", "keyword", "-c", "ls"}, "", nil, "option -o keyword"},
	{[]string{"-O", "expand_aliases", "-c", "ls"}, "", nil, "option -O expand_aliases"},
	{[]string{"+O", "expand_aliases", "-c", "ls"}, "", nil, "option +O expand_aliases"},
	{[]string{"-o", "-c", "ls"}, "", nil, "option -o -c"},
}

func TestParseShellArgs(t *testing.T) {
	for _, tt := range shellArgsTests {
		got, err := parseShellArgs(tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if got.command != tt.command || strings.Join(got.params, "|") != strings.Join(tt.params, "|") {
			t.Errorf("%q: got %q %q, want %q %q", tt.args, got.command, got.params, tt.command, tt.params)
		}
	}
}

// Whatever the arguments, the string decided is one of them, and what follows it are the
// parameters: moat decides what the shell is given, never something it made up.
func FuzzParseShellArgs(f *testing.F) {
	for _, tt := range shellArgsTests {
		f.Add(strings.Join(tt.args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		got, err := parseShellArgs(args)
		if err != nil {
			return
		}
		k := len(args) - len(got.params) - 1
		if k < 1 || args[k] != got.command || strings.Join(args[k+1:], "\x00") != strings.Join(got.params, "\x00") {
			t.Fatalf("%q: decided %q with %q", args, got.command, got.params)
		}
		// Only -c strings are decided: some option before the string holds a c.
		sawC := false
		for _, a := range args[:k] {
			sawC = sawC || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'c')
		}
		if !sawC {
			t.Fatalf("%q: decided %q without -c", args, got.command)
		}
	})
}

// shellEnv builds a moat shell in a temporary directory whose binary ("moat") has a link
// named bash: a real shell that is moat itself.
func shellEnv(t *testing.T, env map[string]string) (*app, *fakeExec, guardDeps, string) {
	t.Helper()
	if env == nil {
		env = map[string]string{}
	}
	a, _, pol := guardApp(t, guardPolicy, env)
	env["MOAT_POLICY"] = pol
	dir := filepath.Dir(pol)
	self := filepath.Join(dir, "moat")
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, filepath.Join(dir, "bash")); err != nil {
		t.Fatal(err)
	}
	fe := &fakeExec{}
	deps := guardDeps{
		openTTY: func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") },
		exec:    fe.exec,
		environ: func() []string { return []string{"SHELL=/x/moat-shell", "MOAT_SHELL_EXEC=stale"} },
	}
	return a, fe, deps, dir
}

func shellCmd(t *testing.T, a *app, deps guardDeps, args ...string) int {
	t.Helper()
	cmd := newShellCmdWith(a, deps)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	var ec *exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		if ec.err != nil {
			a.env.Stderr.Write([]byte(ec.err.Error() + "\n"))
		}
		return ec.code
	}
	t.Fatalf("unexpected error %v", err)
	return -1
}

func TestShellCmd(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		ran  bool
	}{
		{"allowed", []string{"-lc", "go version"}, 0, true},
		{"denied", []string{"-c", "rm -rf ~"}, exitGuardRefused, false},
		{"denied through a parameter", []string{"-c", `rm -rf "$1"`, "sh", "x"}, exitGuardRefused, false},
		{"ask without a terminal", []string{"-ec", "touch x"}, exitGuardRefused, false},
		{"interactive", []string{"-i"}, exitUsage, false},
		{"script", []string{"x.sh"}, exitUsage, false},
		{"version runs no command", []string{"--version"}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, fe, deps, _ := shellEnv(t, nil)
			if code := shellCmd(t, a, deps, tt.args...); code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, a.env.Stderr)
			}
			if fe.called != tt.ran {
				t.Fatalf("ran = %v (%q), want %v", fe.called, fe.argv, tt.ran)
			}
			if !tt.ran {
				return
			}
			// The real shell gets moat shell's arguments unchanged.
			if fe.path != "/bin/bash" || strings.Join(fe.argv, "\x00") != strings.Join(append([]string{"/bin/bash"}, tt.args...), "\x00") {
				t.Errorf("exec(%q, %q)", fe.path, fe.argv)
			}
			env := strings.Join(fe.env, " ")
			if !strings.Contains(env, "SHELL=/x/moat-shell") || strings.Contains(env, "stale") || !strings.Contains(env, "MOAT_SHELL_EXEC="+strconv.Itoa(os.Getpid())+":") {
				t.Errorf("env %q", fe.env)
			}
		})
	}
}

func TestRealShellSkipsMoat(t *testing.T) {
	if _, err := os.Stat("/bin/bash"); err != nil {
		t.Skip("no /bin/bash")
	}
	args := []string{"-c", "ls"}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	marker := func(n int) string {
		return strconv.Itoa(os.Getpid()) + ":" + hex.EncodeToString(sum[:8]) + ":" + strconv.Itoa(n)
	}
	tests := []struct {
		name     string
		real     string // MOAT_REAL_SHELL, relative to the test directory when not absolute
		exec     string // MOAT_SHELL_EXEC
		want     string
		wantN    int
		err      string
		warnings string
	}{
		{"default", "", "", "/bin/bash", 0, "", ""},
		{"configured", "/bin/sh", "", "/bin/sh", 0, "", ""},
		{"configured as moat itself", "bash", "", "/bin/bash", 1, "", "is moat itself"},
		{"configured as moat itself, by the binary's path", "moat", "", "/bin/bash", 1, "", "is moat itself"},
		{"missing", "/nonexistent/zsh", "", "/bin/bash", 1, "", "MOAT_REAL_SHELL=/nonexistent/zsh"},
		// This process was started by moat-shell with these arguments as the real shell:
		// it is a moat, so the next shell is used.
		{"started again by moat", "/bin/sh", marker(0), "/bin/bash", 1, "", "started moat again"},
		{"started again twice", "/bin/sh", marker(1), "/bin/sh", 2, "", "started moat again"},
		{"no shell left", "/bin/sh", marker(2), "", 0, "no real shell", "started moat again"},
		{"another process's marker", "", "1:" + hex.EncodeToString(sum[:8]) + ":0", "/bin/bash", 0, "", ""},
		{"other arguments", "", strconv.Itoa(os.Getpid()) + ":0000000000000000:0", "/bin/bash", 0, "", ""},
		{"garbage marker", "", "x:y:z", "/bin/bash", 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{envShellExec: tt.exec}
			a, _, _, dir := shellEnv(t, env)
			if tt.real != "" && !filepath.IsAbs(tt.real) {
				tt.real = filepath.Join(dir, tt.real)
			}
			env[envRealShell] = tt.real
			got, m, err := a.realShell(args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if got != tt.want || m != marker(tt.wantN) {
				t.Errorf("realShell = %q %q, want %q %q", got, m, tt.want, marker(tt.wantN))
			}
			stderr := a.env.Stderr.(interface{ String() string }).String()
			if tt.warnings == "" && stderr != "" || !strings.Contains(stderr, tt.warnings) {
				t.Errorf("stderr = %q, want %q", stderr, tt.warnings)
			}
		})
	}
}

func TestInstallShellLink(t *testing.T) {
	a, _, _ := guardApp(t, guardPolicy, nil)
	exe, _ := a.env.Executable()
	if err := os.WriteFile(exe, []byte("moat"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "bin")
	for i := range 2 { // the second time it is already there
		if err := a.installShellLink(dir); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if got, err := os.Readlink(filepath.Join(dir, ShellName)); err != nil || got != exe {
			t.Fatalf("run %d: link to %q, %v", i, got, err)
		}
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, ShellName), []byte("not moat"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := a.installShellLink(other); err == nil || !strings.Contains(err.Error(), "is not moat") {
		t.Fatalf("replaced another file: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(other, ShellName)); string(data) != "not moat" {
		t.Fatal("the other file changed")
	}
}
