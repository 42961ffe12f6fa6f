package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/fleetdb"
	"github.com/moatdev/moat/internal/policysign"
	"github.com/moatdev/moat/internal/testpg"
)

func TestFleetPublish(t *testing.T) {
	pg := testpg.Start(t, testpg.Options{})
	pg.CreateDatabase(t, "fleet")
	dsn := pg.DSN("fleet")
	ctx := context.Background()
	conn, err := fleetdb.Connect(ctx, dsn, pg.PasswordFile)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, _, err := fleetdb.Migrate(ctx, conn); err != nil {
		t.Fatal(err)
	}
	env, out, errOut, wd := policyEnv(t)
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		t.Helper()
		path := filepath.Join(wd, name)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	signed := func(name string, key policysign.PrivateKey, text string) string {
		t.Helper()
		doc, err := policysign.Sign([]byte(text), key)
		if err != nil {
			t.Fatal(err)
		}
		return write(name, doc)
	}
	write("corp.moat-pub", policysign.MarshalPublic(pub))
	v4 := signed("v4.yaml", priv, signPolicy)
	tampered := write("tampered.yaml", []byte(strings.Replace(readTestFile(t, v4), "decision: deny", "decision: allow", 1)))
	wrongKey := signed("wrong.yaml", other, strings.Replace(signPolicy, "serial: 4", "serial: 9", 1))
	invalid := signed("invalid.yaml", priv, "version: 1\nserial: 8\nrules: [{id: x, decision: maybe}]\n")
	noSerial := signed("noserial.yaml", priv, "version: 1\ndefault: ask\n")
	older := signed("older.yaml", priv, strings.Replace(signPolicy, "serial: 4", "serial: 3", 1))
	db := []string{"--postgres", dsn, "--password-file", pg.PasswordFile}

	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"published", append([]string{"fleet", "publish", "--key", "corp.moat-pub", v4}, db...), exitOK, "as serial 4 (key " + pub.KeyID() + ") to postgres 127.0.0.1:"},
		{"same serial again", append([]string{"fleet", "publish", "--key", "corp.moat-pub", v4}, db...), exitError, "not above the newest"},
		{"older", append([]string{"fleet", "publish", "--key", "corp.moat-pub", older}, db...), exitError, "not above the newest"},
		{"tampered", append([]string{"fleet", "publish", "--key", "corp.moat-pub", tampered}, db...), exitError, "does not match its text"},
		{"wrong key", append([]string{"fleet", "publish", "--key", "corp.moat-pub", wrongKey}, db...), exitError, "signed by another key"},
		{"invalid policy", append([]string{"fleet", "publish", "--key", "corp.moat-pub", invalid}, db...), exitError, "maybe"},
		{"no serial", append([]string{"fleet", "publish", "--key", "corp.moat-pub", noSerial}, db...), exitError, "no serial"},
		{"no key", append([]string{"fleet", "publish", v4}, db...), exitUsage, "needs --key"},
		{"no database", []string{"fleet", "publish", "--key", "corp.moat-pub", v4}, exitUsage, "needs --postgres"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out.Reset()
			errOut.Reset()
			code := Main(tt.args, env)
			if code != tt.code || !strings.Contains(out.String()+errOut.String(), tt.want) {
				t.Fatalf("exit %d, want %d; output %q %q, want it to contain %q", code, tt.code, out, errOut, tt.want)
			}
		})
	}
	serial, doc, ok, err := fleetdb.LatestBundle(ctx, conn)
	if err != nil || !ok || serial != 4 || doc != readTestFile(t, v4) {
		t.Fatalf("the table's newest: serial %d, ok %v, %v; want v4 as signed", serial, ok, err)
	}

	// --json, and the database from fleet.yaml's policy section.
	v5 := signed("v5.yaml", priv, strings.Replace(signPolicy, "serial: 4", "serial: 5", 1))
	cfg := filepath.Join(filepath.Dir(wd), ".config", "moat")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	fleetYAML := "policy:\n  postgres: " + dsn + "\n  password_file: " + pg.PasswordFile + "\n  key: " + filepath.Join(wd, "corp.moat-pub") + "\n"
	if err := os.WriteFile(filepath.Join(cfg, "fleet.yaml"), []byte(fleetYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main([]string{"fleet", "publish", "--key", "corp.moat-pub", "--json", v5}, env); code != 0 {
		t.Fatalf("publish from fleet.yaml: exit %d: %s", code, errOut)
	}
	var res fleetPublishResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Serial != 5 || res.Key != pub.KeyID() || res.File != v5 {
		t.Fatalf("--json: %s (%v)", out, err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestDoctorBundle: doctor's finding on the policy bundle, from none configured to a
// kept bundle that no longer verifies.
func TestDoctorBundle(t *testing.T) {
	env, _, _, wd := policyEnv(t)
	a := &app{env: env}
	d, err := a.dirs()
	if err != nil {
		t.Fatal(err)
	}
	if got := a.doctorBundle(); got != nil {
		t.Fatalf("without fleet.yaml: %+v, want no finding", got)
	}
	priv, pub, err := policysign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(wd, "corp.moat-pub")
	mustWrite(t, key, policysign.MarshalPublic(pub))
	mustWrite(t, filepath.Join(d.Config, "fleet.yaml"), []byte("policy:\n  url: https://policy.example.com/b.yaml\n  key: "+key+"\n"))
	doc, err := policysign.Sign([]byte(signPolicy), priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		kept   []byte
		status string
		want   string
	}{
		{"not fetched yet", nil, "warn", "no policy bundle from https://policy.example.com/b.yaml is in force yet"},
		{"in force", doc, "ok", "policy bundle serial 4 (key " + pub.KeyID() + ") in force"},
		{"kept file modified", []byte(strings.Replace(string(doc), "deny", "allow", 1)), "fail", "fails closed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.kept != nil {
				mustWrite(t, d.FleetBundle(), tt.kept)
			}
			got := a.doctorBundle()
			if len(got) != 1 || string(got[0].Status) != tt.status || !strings.Contains(got[0].Message, tt.want) {
				t.Fatalf("finding %+v, want %s containing %q", got, tt.status, tt.want)
			}
		})
	}
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
