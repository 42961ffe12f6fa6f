//go:build linux || darwin

package daemon

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// nobody is the unprivileged user a peer of another uid runs as.
const nobody = 65534

// peerSocketEnv names the socket the child test connects to as nobody.
const peerSocketEnv = "MOAT_TEST_PEER_SOCKET"

// A peer of another uid that reaches the socket (here one left open to all, unlike the
// daemon's) is refused by its credentials: it gets the refusal and no answer.
func TestPeerOfAnotherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a peer as another user")
	}
	env := newTestEnv(t)
	logged := make(chan string, 16)
	s := newServer(t, Options{Service: env.local(), Log: func(msg string) { logged <- msg }})
	dir, err := os.MkdirTemp("", "moatd-open-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	defer s.Shutdown(t.Context())

	cmd := asNobody(t, dir, "TestPeerChild", peerSocketEnv+"="+sock)
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", nobody, out)
	if err != nil {
		t.Fatalf("the peer's test failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestPeerChild") {
		t.Fatal("the peer's test did not run")
	}
	select {
	case msg := <-logged:
		if !strings.Contains(msg, "refused a peer of uid 65534") {
			t.Errorf("logged %q", msg)
		}
	default:
		t.Error("the refusal was not logged")
	}
}

// TestPeerChild is the peer of TestPeerOfAnotherUserRefused, run as nobody.
func TestPeerChild(t *testing.T) {
	sock := os.Getenv(peerSocketEnv)
	if sock == "" {
		t.Skip("run by TestPeerOfAnotherUserRefused")
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	conn.Write([]byte(`{"version":1,"method":"status","params":{}}` + "\n"))
	in := bufio.NewReader(conn)
	first, err := in.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, `"error":"refused: the daemon serves only its own user"`) {
		t.Errorf("answered %s", first)
	}
	if more, err := in.ReadString('\n'); err == nil {
		t.Errorf("answered again: %s", more)
	}
}

// asNobody is a command that runs this package's test named test as nobody, from a copy
// of the test binary in dir (which nobody may read: the original may sit where nobody
// cannot), with env added to the test's own.
func asNobody(t *testing.T, dir, test string, env ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "daemon.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+test+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "HOME="+dir, "TMPDIR="+dir), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	return cmd
}
