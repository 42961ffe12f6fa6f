// Package testpg runs a throwaway PostgreSQL server for tests, from the server binaries
// of the machine (Debian's postgresql package: /usr/lib/postgresql/N/bin), listening on
// loopback with password authentication. Tests that need one call Start; without the
// binaries they skip, except under CI=true, where .ci/run installs them and a missing
// server fails the test.
package testpg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BinEnv names the environment variable that points at the server binaries' directory
// (the one holding initdb, pg_ctl and postgres); without it the newest
// /usr/lib/postgresql/*/bin is used.
const BinEnv = "MOAT_TEST_POSTGRES_BIN"

// Superuser is the role the server is initialised with.
const Superuser = "moat"

// Options shape the server.
type Options struct {
	// MaxConnections is the server's max_connections (default 100).
	MaxConnections int
}

// Server is a running (or stopped) throwaway cluster.
type Server struct {
	// Port is the loopback TCP port it listens on.
	Port int
	// PasswordFile holds the superuser's password, as fleet.yaml's password_file reads it.
	PasswordFile string

	bin   string
	dir   string // holds data/, the socket and the log; removed at cleanup
	data  string
	runAs *user.User // the unprivileged user the server runs as when the test runs as root
	opts  Options
}

// Start initialises and starts a cluster, stopped and removed when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	bin, err := findBin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL is required under CI (.ci/run installs it): %v", err)
		}
		t.Skipf("no PostgreSQL server binaries (install Debian's postgresql or set %s): %v", BinEnv, err)
	}
	if opts.MaxConnections == 0 {
		opts.MaxConnections = 100
	}
	dir, err := os.MkdirTemp("", "moat-testpg-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), opts: opts}
	t.Cleanup(func() {
		s.stop(true)
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, PostgreSQL needs an unprivileged user: %v", err)
		}
		s.runAs = u
		// The server writes its log and socket beside the data.
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := s.chown(dir); err != nil {
			t.Fatal(err)
		}
	}
	password := "pw-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	s.PasswordFile = filepath.Join(dir, "password")
	if err := os.WriteFile(s.PasswordFile, []byte(password+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.chown(s.data); err != nil {
		t.Fatal(err)
	}
	if out, err := s.command("initdb", "-D", s.data, "-U", Superuser, "--pwfile", s.PasswordFile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	if s.Port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	return s
}

// DSN is the connection string of database db (without the password: read it from
// PasswordFile).
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", Superuser, s.Port, db)
}

// Password returns the superuser's password.
func (s *Server) Password() string {
	b, _ := os.ReadFile(s.PasswordFile)
	return strings.TrimSpace(string(b))
}

// CreateDatabase creates database name.
func (s *Server) CreateDatabase(t testing.TB, name string) {
	t.Helper()
	out, err := s.command("createdb", "-h", s.dir, "-p", strconv.Itoa(s.Port), "-U", Superuser, name).CombinedOutput()
	if err != nil {
		t.Fatalf("createdb %s: %v\n%s", name, err, out)
	}
}

// Stop stops the server at once (fast shutdown: sessions are ended, nothing committed is
// lost), as an outage would.
func (s *Server) Stop() error { return s.stop(false) }

func (s *Server) stop(quiet bool) error {
	if _, err := os.Stat(filepath.Join(s.data, "postmaster.pid")); err != nil {
		return nil
	}
	out, err := s.command("pg_ctl", "-D", s.data, "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil && !quiet {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Restart starts the server (again) on the same port and data.
func (s *Server) Restart() error {
	settings := fmt.Sprintf("-c listen_addresses=127.0.0.1 -c port=%d -c unix_socket_directories=%s -c max_connections=%d -c fsync=off -c full_page_writes=off",
		s.Port, s.dir, s.opts.MaxConnections)
	out, err := s.command("pg_ctl", "-D", s.data, "-l", filepath.Join(s.dir, "log"), "-o", settings, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		logText, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, logText)
	}
	return nil
}

// Log returns the server's log, for a failing test to show.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return string(b)
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.runAs == nil {
		return exec.CommandContext(context.Background(), path, args...)
	}
	return exec.CommandContext(context.Background(), "runuser", append([]string{"-u", s.runAs.Username, "--", path}, args...)...)
}

func (s *Server) chown(path string) error {
	if s.runAs == nil {
		return nil
	}
	uid, _ := strconv.Atoi(s.runAs.Uid)
	gid, _ := strconv.Atoi(s.runAs.Gid)
	return os.Chown(path, uid, gid)
}

func findBin() (string, error) {
	if dir := os.Getenv(BinEnv); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err != nil {
			return "", fmt.Errorf("%s=%s: %w", BinEnv, dir, err)
		}
		return dir, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(found) == 0 {
		return "", errors.New("no /usr/lib/postgresql/*/bin/pg_ctl")
	}
	// The newest major version: sort numerically on the directory's name.
	sort.Slice(found, func(i, j int) bool { return major(found[i]) < major(found[j]) })
	return filepath.Dir(found[len(found)-1]), nil
}

func major(pgctl string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(pgctl))))
	return n
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
