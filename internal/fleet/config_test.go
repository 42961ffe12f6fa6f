package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/dirs"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string
		check   func(t *testing.T, c *Config)
	}{
		{name: "empty", doc: "", check: func(t *testing.T, c *Config) {
			if c.Audit != nil || c.OTLP != nil || c.Policy != nil || c.Machine == "" {
				t.Errorf("empty document: %+v", c)
			}
		}},
		{name: "everything", doc: `machine: dev-7
audit:
  postgres: postgres://moat@db.example:5432/audit?sslmode=verify-full
  password_file: pw
otlp:
  endpoint: http://127.0.0.1:4318/
  headers: {x-api-key: k}
  interval: 2s
policy:
  url: https://policy.example/moat.yaml
  key: keys/team.moat-pub
  interval: 1m
`, check: func(t *testing.T, c *Config) {
			if c.Machine != "dev-7" || c.Audit.Batch != DefaultBatch || c.Audit.PasswordFile != "/etc/moat/pw" {
				t.Errorf("audit: %+v %+v", c, c.Audit)
			}
			if c.OTLP.Endpoint != "http://127.0.0.1:4318" || c.OTLP.Interval != 2*time.Second || c.OTLP.Headers["x-api-key"] != "k" {
				t.Errorf("otlp: %+v", c.OTLP)
			}
			if c.Policy.Key != "/etc/moat/keys/team.moat-pub" || c.Policy.Interval != time.Minute {
				t.Errorf("policy: %+v", c.Policy)
			}
		}},
		{name: "unknown key", doc: "audit:\n  postgress: x\n", wantErr: "fleet.yaml: 2: field postgress not found"},
		{name: "password in url", doc: "audit:\n  postgres: postgres://u:secret@h/db\n", wantErr: "holds a password"},
		{name: "password pair", doc: "audit:\n  postgres: host=h password=secret\n", wantErr: "holds a password"},
		{name: "no dsn", doc: "audit:\n  batch: 5\n", wantErr: "postgres is required"},
		{name: "batch range", doc: "audit:\n  postgres: host=h\n  batch: 100000\n", wantErr: "out of range"},
		{name: "clear text otlp", doc: "otlp:\n  endpoint: http://collector.example:4318\n", wantErr: "plain http"},
		{name: "otlp credentials", doc: "otlp:\n  endpoint: https://u:p@collector.example\n", wantErr: "credentials"},
		{name: "short interval", doc: "otlp:\n  endpoint: https://c.example\n  interval: 10ms\n", wantErr: "shorter than"},
		{name: "policy both sources", doc: "policy:\n  url: https://p.example/b\n  postgres: host=h\n  key: k.moat-pub\n", wantErr: "exactly one"},
		{name: "policy unsigned", doc: "policy:\n  url: https://p.example/b\n", wantErr: "key is required"},
		{name: "policy ftp", doc: "policy:\n  url: ftp://p.example/b\n  key: k\n", wantErr: "want an https"},
		{name: "not a mapping", doc: "- a\n", wantErr: "fleet.yaml: 1:"},
		{name: "machine name too long", doc: "machine: " + strings.Repeat("m", 256) + "\n", wantErr: "machine: a name of 256 bytes is too long (at most 255)"},
		{name: "machine name with a control character", doc: "machine: \"lap\\ttop\"\n", wantErr: `machine: "lap\ttop" holds control characters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("/etc/moat/fleet.yaml", []byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func TestLoadPrefersManaged(t *testing.T) {
	root := t.TempDir()
	d := dirs.Dirs{Config: filepath.Join(root, "user"), State: filepath.Join(root, "state"), Managed: filepath.Join(root, "managed")}
	if c, err := Load(d); err != nil || c != nil {
		t.Fatalf("no files: %v %v", c, err)
	}
	write := func(dir, machine string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte("machine: "+machine+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(d.Config, "user")
	if c, err := Load(d); err != nil || c.Machine != "user" || c.Managed {
		t.Fatalf("user file: %+v %v", c, err)
	}
	write(d.Managed, "managed")
	if c, err := Load(d); err != nil || c.Machine != "managed" || !c.Managed {
		t.Fatalf("managed file: %+v %v", c, err)
	}
	if err := os.WriteFile(filepath.Join(d.Managed, FileName), []byte("machine: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(d); err == nil {
		t.Fatal("a broken managed file must be an error, not a fall-through to the user's")
	}
}

func TestMachineID(t *testing.T) {
	d := dirs.Dirs{State: filepath.Join(t.TempDir(), "state")}
	a, err := MachineID(d)
	if err != nil || !machineIDPattern.MatchString(a) {
		t.Fatalf("first: %q %v", a, err)
	}
	b, err := MachineID(d)
	if err != nil || a != b {
		t.Fatalf("second: %q %v, want %q", b, err, a)
	}
	if err := os.WriteFile(filepath.Join(d.State, machineIDFile), []byte("xyz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := MachineID(d); err == nil {
		t.Fatal("a malformed id must be refused")
	}
}
