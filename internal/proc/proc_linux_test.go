package proc

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/moatdev/moat/internal/testbin"
)

// fakeProc writes a /proc with the processes given, each as pid → (ppid, cmdline, the
// targets of fd 0 and 1).
func fakeProc(t *testing.T, procs map[int][4]string) string {
	t.Helper()
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(filepath.Join(dir, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		// A command name with spaces and parentheses, as a process may choose.
		stat := strconv.Itoa(pid) + " (a (b) c) S " + p[0] + " 1 1 0 -1\n"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cmdline"), []byte(p[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, target := range p[2:] {
			if target != "" {
				if err := os.Symlink(target, filepath.Join(dir, "fd", strconv.Itoa(i))); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return root
}

func TestAncestors(t *testing.T) {
	root := fakeProc(t, map[int][4]string{
		100: {"90", "moat\x00hook\x00gemini-cli\x00", "pipe:[1]", "pipe:[2]"},
		90:  {"80", "/bin/bash\x00-c\x00moat hook gemini-cli\x00", "pipe:[3]", "pipe:[4]"},
		80:  {"70", "node\x00/usr/lib/node_modules/@google/gemini-cli/dist/index.js\x00-p\x00hi\x00", "/dev/pts/3", "pipe:[5]"},
		70:  {"1", "-bash\x00", "/dev/pts/3", "/dev/pts/3"},
	})
	got := ancestors(root, 100, 10)
	if len(got) != 3 {
		t.Fatalf("got %d ancestors, want 3 (pid 1 ends the walk): %+v", len(got), got)
	}
	if got[0].PID != 90 || got[1].PID != 80 || got[2].PID != 70 {
		t.Errorf("pids %d %d %d", got[0].PID, got[1].PID, got[2].PID)
	}
	if strings.Join(got[1].Args, " ") != "node /usr/lib/node_modules/@google/gemini-cli/dist/index.js -p hi" {
		t.Errorf("args %q", got[1].Args)
	}
	if !got[1].StdinTTY || got[1].StdoutTTY || !got[2].StdoutTTY || got[0].StdinTTY {
		t.Errorf("terminals: %+v", got)
	}
	if got := ancestors(root, 100, 1); len(got) != 1 {
		t.Errorf("n=1: %d ancestors", len(got))
	}
	if got := ancestors(root, 999, 4); len(got) != 0 {
		t.Errorf("unknown pid: %+v", got)
	}
}

// TestAncestorsOfThisProcess reads the real /proc: a child started by this test sees the
// test as its parent.
func TestAncestorsOfThisProcess(t *testing.T) {
	if os.Getenv("MOAT_PROC_CHILD") == "1" {
		for _, a := range Ancestors(1) {
			os.Stdout.WriteString(strconv.Itoa(a.PID) + "\n")
		}
		os.Exit(0)
	}
	cmd := testbin.Rerun("TestAncestorsOfThisProcess", "MOAT_PROC_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("child saw parent %q, want %d", out, os.Getpid())
	}
}

// TestAncestorsOf reads a real process tree: this test starts a shell that starts a
// sleep, and the sleep's ancestors are the shell, then this test.
func TestAncestorsOf(t *testing.T) {
	sh := exec.Command("/bin/sh", "-c", "sleep 30 & echo $!; wait")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sh.Process.Kill()
		sh.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	sleep, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(sleep, syscall.SIGKILL) })
	tests := []struct {
		name     string
		pid, n   int
		wantPIDs []int
	}{
		{"the sleep's parents", sleep, 2, []int{sh.Process.Pid, os.Getpid()}},
		{"one", sleep, 1, []int{sh.Process.Pid}},
		{"unknown pid", 0, 4, nil},
		{"negative pid", -1, 4, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pids []int
			for _, a := range AncestorsOf(tt.pid, tt.n) {
				pids = append(pids, a.PID)
			}
			if !slices.Equal(pids, tt.wantPIDs) {
				t.Errorf("AncestorsOf(%d, %d) = %v, want %v", tt.pid, tt.n, pids, tt.wantPIDs)
			}
		})
	}
	if got := AncestorsOf(sleep, 2); len(got) > 0 && (len(got[0].Args) == 0 || got[0].Args[0] != "/bin/sh") {
		t.Errorf("the shell's arguments: %q", got[0].Args)
	}
}

func TestExecutable(t *testing.T) {
	want, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if want, err = filepath.EvalSymlinks(want); err != nil {
		t.Fatal(err)
	}
	if got, err := Executable(os.Getpid()); err != nil || got != want {
		t.Errorf("Executable(self) = %q, %v; want %q", got, err, want)
	}
	if _, err := Executable(-1); err == nil {
		t.Error("Executable of no process gave a program")
	}
}
