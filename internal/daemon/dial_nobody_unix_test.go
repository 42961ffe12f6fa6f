//go:build linux || darwin

package daemon

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeServerSocketEnv names the socket the child test listens on as nobody.
const fakeServerSocketEnv = "MOAT_TEST_FAKE_SERVER_SOCKET"

// A socket served by another user, where the client looks for its daemon, is refused by
// the server's credentials before anything is sent: that server would see every call,
// and could answer each with allow.
func TestDialBoundRefusesAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a server as another user")
	}
	dir, err := os.MkdirTemp("", "moatd-other-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "daemon.sock")
	cmd := asNobody(t, dir, "TestFakeServerChild", fakeServerSocketEnv+"="+sock)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The server opens the socket to all once it listens: the file alone exists from
		// bind on, before connections are taken.
		if fi, err := os.Stat(sock); err == nil && fi.Mode().Perm() == 0o777 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server as nobody did not listen")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, err = DialBound(sock, BindParams{Env: map[string]string{"HOME": "/h"}})(context.Background())
	if err == nil || !strings.Contains(err.Error(), "served by uid 65534") {
		t.Fatalf("dialling another user's socket: %v", err)
	}
}

// TestFakeServerChild is the server of TestDialBoundRefusesAnotherUser, run as nobody: it
// answers every line with an empty result, as a daemon that binds would.
func TestFakeServerChild(t *testing.T) {
	sock := os.Getenv(fakeServerSocketEnv)
	if sock == "" {
		t.Skip("run by TestDialBoundRefusesAnotherUser")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o777); err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(10 * time.Second))
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer conn.Close()
			in := bufio.NewReader(conn)
			for {
				if _, err := in.ReadString('\n'); err != nil {
					return
				}
				conn.Write([]byte(`{"result":{}}` + "\n"))
			}
		}()
	}
}
