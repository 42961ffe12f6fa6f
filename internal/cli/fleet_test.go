package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/testpg"
)

// writeFleetConfig writes the user's fleet.yaml (home's ~/.config/moat/fleet.yaml).
func writeFleetConfig(t *testing.T, home, text string) string {
	t.Helper()
	path := filepath.Join(home, ".config", "moat", "fleet.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFleetMigrate(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	pg.CreateDatabase(t, "other")
	home := t.TempDir()
	writeFleetConfig(t, home, fmt.Sprintf("machine: laptop\naudit:\n  postgres: %s\n  password_file: %s\n", pg.DSN("fleet"), pg.PasswordFile))
	target := fmt.Sprintf("127.0.0.1:%d/", pg.Port)
	v := fleetdb.SchemaVersion
	tests := []struct {
		name   string
		home   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"from the configuration", home, nil, 0, fmt.Sprintf("%sfleet: schema version 0 → %d\n", target, v), ""},
		{"again", home, nil, 0, fmt.Sprintf("%sfleet: schema version %d, up to date\n", target, v), ""},
		{"json", home, []string{"--json"}, 0, fmt.Sprintf(`{"target":"%sfleet","from":%d,"to":%d}`+"\n", target, v, v), ""},
		{"another database", t.TempDir(), []string{"--postgres", pg.DSN("other"), "--password-file", pg.PasswordFile}, 0,
			fmt.Sprintf("%sother: schema version 0 → %d\n", target, v), ""},
		{"no configuration", t.TempDir(), nil, exitUsage, "", "no database given"},
		{"wrong password", home, []string{"--password-file", "/dev/null"}, exitError, "", "connect to postgres"},
		{"an argument", home, []string{"extra"}, exitUsage, "", "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, stdout, stderr := testApp(tt.home)
			code := Main(append([]string{"fleet", "migrate"}, tt.args...), a.env)
			if code != tt.code || stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout, stderr, tt.code, tt.stdout, tt.stderr)
			}
			if strings.Contains(stdout.String()+stderr.String(), pg.Password()) {
				t.Error("the password was printed")
			}
		})
	}
	var res fleetMigrateResult
	a, stdout, _ := testApp(home)
	if Main([]string{"fleet", "migrate", "--json"}, a.env) != 0 || json.Unmarshal([]byte(stdout.String()), &res) != nil || res.To != v {
		t.Errorf("--json: %q", stdout)
	}
}
