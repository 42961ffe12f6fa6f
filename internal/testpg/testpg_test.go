package testpg

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestStartStop checks the harness itself with the psql client: a query answers while
// the server runs, fails while it is stopped, and answers again after Restart.
func TestStartStop(t *testing.T) {
	s := Start(t, Options{MaxConnections: 20})
	s.CreateDatabase(t, "probe")
	query := func() (string, error) {
		cmd := exec.Command("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-U", Superuser, "-d", "probe", "-Atc", "SHOW max_connections")
		cmd.Env = append(cmd.Environ(), "PGPASSWORD="+s.Password())
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if _, err := exec.LookPath("psql"); err != nil {
		t.Skip("no psql client to probe the server with")
	}
	if out, err := query(); err != nil || out != "20" {
		t.Fatalf("running: %q %v\n%s", out, err, s.Log())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if out, err := query(); err == nil {
		t.Fatalf("stopped server answered %q", out)
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if out, err := query(); err != nil || out != "20" {
		t.Fatalf("restarted: %q %v", out, err)
	}
}
