//go:build linux || darwin

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/sandbox"
)

// carveHome makes a home with a key in it and returns the input of a launch's carving.
func carveHome(t *testing.T) (string, sandbox.CarveInput) {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	sec, err := sandbox.Effective(nil)
	if err != nil {
		t.Fatal(err)
	}
	return home, sandbox.CarveInput{Section: sec, Host: pathset.Host{Home: home, Temp: []string{t.TempDir()}}, Workspace: []string{t.TempDir()}, ABI: 7}
}

// shortDir is a directory whose path fits in a unix socket's address.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mtl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serveLaunch runs a daemon server with the launch's methods on a socket, and returns
// its dial.
func serveLaunch(t *testing.T) decide.Dial {
	t.Helper()
	sock := filepath.Join(shortDir(t), "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := daemon.New(daemon.Options{Service: decide.NewLocal(decide.Options{}), Methods: launchMethods()})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return decide.DialUnix(sock)
}

// TestSandboxCarveMethod asks a real server for a carving, again (kept), and after a new
// directory appeared in the walked home (carved again): each time what a fresh carving
// gives.
func TestSandboxCarveMethod(t *testing.T) {
	home, in := carveHome(t)
	dial := serveLaunch(t)
	ctx := context.Background()
	for i, step := range []struct {
		change func()
		kept   bool
	}{
		{func() {}, false},
		{func() {}, true},
		{func() {
			if err := os.Mkdir(filepath.Join(home, "new"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
		{func() {}, true},
	} {
		step.change()
		res, err := carveThroughDaemon(ctx, dial, in)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		fresh, err := sandbox.Carve(in.Options())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Carving, fresh) {
			t.Fatalf("step %d: the daemon's carving differs from a fresh one", i)
		}
		if res.Kept != step.kept {
			t.Errorf("step %d: kept = %v, want %v", i, res.Kept, step.kept)
		}
	}
}

func TestSandboxCarveMethodRefuses(t *testing.T) {
	_, in := carveHome(t)
	good, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	m := sandboxCarveMethod(sandbox.NewCache(0, nil))
	tests := []struct {
		name   string
		params string
		peer   daemon.Peer
		want   string
	}{
		{"a TCP peer", string(good), daemon.Peer{}, "unix socket"},
		{"not JSON", `{"section":`, daemon.Peer{Local: true}, "params"},
		{"an unknown field", `{"bogus":1}`, daemon.Peer{Local: true}, "unknown field"},
		{"no section", `{"abi":7,"host":{"Home":"/h"}}`, daemon.Peer{Local: true}, "no sandbox section"},
		{"a relative home", strings.Replace(string(good), `"Home":"`+in.Host.Home, `"Home":"rel`, 1), daemon.Peer{Local: true}, "not absolute"},
	}
	for _, tt := range tests {
		_, err := m(context.Background(), json.RawMessage(tt.params), tt.peer)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := m(context.Background(), good, daemon.Peer{Local: true}); err != nil {
		t.Fatalf("a good request: %v", err)
	}
}

// fakeDaemon answers every request line with answer (or closes the connection when
// answer is empty).
func fakeDaemon(t *testing.T, dir, answer string) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, "daemon.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			if answer != "" {
				c.Write([]byte(answer + "\n"))
			}
			c.Close()
		}
	}()
}

// TestLaunchCarvingFallsBack: with no daemon, or one that fails or answers garbage or a
// carving that does not validate, the launch carves itself, exactly as without a daemon.
func TestLaunchCarvingFallsBack(t *testing.T) {
	_, in := carveHome(t)
	weak, err := json.Marshal(sandboxCarveResult{Carving: &sandbox.Carving{ABI: 7, Handled: 1, Rules: []sandbox.Rule{{Path: "/", Access: 0xffff}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		warns        bool
	}{
		{"no daemon", "", false},
		{"hangs up", "-", true},
		{"garbage", "not json", true},
		{"an error", `{"error":"boom"}`, true},
		{"an unknown result", `{"result":{"rules":[]}}`, true},
		{"a carving handling fewer rights", `{"result":` + string(weak) + `}`, true},
	}
	fresh, err := sandbox.Carve(in.Options())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime := shortDir(t)
			if err := os.Chmod(runtime, 0o700); err != nil {
				t.Fatal(err)
			}
			a, _, stderr := testApp(in.Host.Home)
			getenv := a.env.Getenv
			a.env.Getenv = func(k string) string {
				if k == "XDG_RUNTIME_DIR" {
					return runtime
				}
				return getenv(k)
			}
			paths, err := a.daemonPaths(true)
			if err != nil {
				t.Fatal(err)
			}
			switch tt.answer {
			case "":
			case "-":
				fakeDaemon(t, paths.Dir, "")
			default:
				fakeDaemon(t, paths.Dir, tt.answer)
			}
			got, err := a.launchCarving(in.Options())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, fresh) {
				t.Fatal("the fallback carving differs from a fresh one")
			}
			if warned := strings.Contains(stderr.String(), "carving it here"); warned != tt.warns {
				t.Errorf("warned = %v, want %v: %s", warned, tt.warns, stderr.String())
			}
		})
	}
}

// TestCarveThroughDaemonRefusesBadCarvings checks each way a daemon's answer is refused.
func TestCarveThroughDaemonRefusesBadCarvings(t *testing.T) {
	_, in := carveHome(t)
	otherABI, _ := json.Marshal(sandboxCarveResult{Carving: &sandbox.Carving{ABI: 6}})
	for _, answer := range []string{"", "{", `{"error":"x"}`, `{"result":null}`, `{"result":` + string(otherABI) + `}`} {
		dir := shortDir(t)
		fakeDaemon(t, dir, answer)
		_, err := carveThroughDaemon(context.Background(), decide.DialUnix(filepath.Join(dir, "daemon.sock")), in)
		if err == nil {
			t.Errorf("answer %q: accepted", answer)
		}
	}
	_, err := carveThroughDaemon(context.Background(), decide.DialUnix(filepath.Join(shortDir(t), "none.sock")), in)
	if !errors.Is(err, errNoDaemon) {
		t.Errorf("no daemon: err = %v, want errNoDaemon", err)
	}
}
