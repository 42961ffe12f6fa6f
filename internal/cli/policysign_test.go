package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/policysign"
)

// policyEnv is a fake HOME with a working directory, for running moat policy in this
// process.
func policyEnv(t *testing.T) (env Env, out, errOut *bytes.Buffer, wd string) {
	t.Helper()
	home := t.TempDir()
	wd = filepath.Join(home, "keys")
	if err := os.MkdirAll(wd, 0o700); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "MOAT_DAEMON": "off"}
	out, errOut = &bytes.Buffer{}, &bytes.Buffer{}
	return Env{
		Stdin: strings.NewReader(""), Stdout: out, Stderr: errOut,
		Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return wd, nil },
		Now: time.Now, Executable: func() (string, error) { return "/usr/local/bin/moat", nil },
	}, out, errOut, wd
}

const signPolicy = "version: 1\nserial: 4\ndefault: ask\nrules:\n  - {id: no-push, command: \"git push **\", decision: deny}\n"

func TestPolicyKeygen(t *testing.T) {
	env, out, errOut, wd := policyEnv(t)
	if code := Main([]string{"policy", "keygen"}, env); code != 0 {
		t.Fatalf("keygen: exit %d: %s", code, errOut)
	}
	// By default the pair goes into moat's configuration, outside the project.
	keys := filepath.Join(filepath.Dir(wd), ".config", "moat", "keys")
	if fi, err := os.Stat(keys); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the keys directory: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(wd, "moat-policy.moat-key")); err == nil {
		t.Fatal("keygen wrote the private key into the working directory")
	}
	wd = keys
	priv, err := policysign.ReadPrivate(filepath.Join(wd, "moat-policy.moat-key"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := policysign.ReadPublic(filepath.Join(wd, "moat-policy.moat-pub"))
	if err != nil || pub.KeyID() != priv.Public().KeyID() {
		t.Fatalf("the public key is not the private key's: %v", err)
	}
	keyText, _ := os.ReadFile(filepath.Join(wd, "moat-policy.moat-key"))
	secret := strings.Split(string(keyText), "\n")[3]
	if !strings.Contains(out.String(), pub.KeyID()) || strings.Contains(out.String()+errOut.String(), secret) {
		t.Fatalf("keygen printed %q: want the key id and never the private key", out)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"policy", "keygen"}, exitError, "never replaces a key"},
		{[]string{"policy", "keygen", "--name", "../team"}, exitError, "must start with a letter or digit"},
		{[]string{"policy", "keygen", "extra"}, exitUsage, "unknown command"},
		{[]string{"policy", "keygen", "--size", "4096"}, exitUsage, "unknown flag"},
	} {
		out.Reset()
		errOut.Reset()
		if code := Main(tt.args, env); code != tt.code || !strings.Contains(errOut.String(), tt.want) {
			t.Errorf("moat %s: exit %d, want %d and %q:\n%s%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out, errOut)
		}
	}
	if again, _ := os.ReadFile(filepath.Join(wd, "moat-policy.moat-key")); !bytes.Equal(again, keyText) {
		t.Fatal("a second keygen replaced the private key")
	}
	if code := Main([]string{"policy", "keygen", "--name", "team", "--out", "sub/keys"}, env); code != 0 {
		t.Fatalf("keygen --out: exit %d: %s", code, errOut)
	}
	cwd, _ := env.Getwd()
	if _, err := policysign.ReadPrivate(filepath.Join(cwd, "sub", "keys", "team.moat-key")); err != nil {
		t.Fatal(err)
	}
}

// keyPair writes a key pair named name into the working directory with moat policy keygen.
func keyPair(t *testing.T, env Env, name string) {
	t.Helper()
	if code := Main([]string{"policy", "keygen", "--name", name, "--out", "."}, env); code != 0 {
		t.Fatalf("keygen %s: exit %d", name, code)
	}
}

func TestPolicySignAndVerify(t *testing.T) {
	env, out, errOut, wd := policyEnv(t)
	keyPair(t, env, "team")
	keyPair(t, env, "other")
	write := func(name, text string) string {
		p := filepath.Join(wd, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(args ...string) int {
		out.Reset()
		errOut.Reset()
		return Main(args, env)
	}
	p := write("managed.yaml", signPolicy)
	if code := run("policy", "sign", "--key", "team.moat-key", "managed.yaml"); code != 0 {
		t.Fatalf("sign: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out.String(), "serial 4") {
		t.Errorf("sign printed %q, want the serial", out)
	}
	signed, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(signed), signPolicy+"# moat-signature: ed25519 ") {
		t.Fatalf("signed file:\n%s", signed)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("signing changed the file's mode to %v", fi.Mode().Perm())
	}
	if code := run("policy", "verify", "--key", "team.moat-pub", "managed.yaml"); code != 0 || !strings.Contains(out.String(), "intact") {
		t.Fatalf("verify: exit %d: %s%s", code, out, errOut)
	}
	// Signing again replaces the signature and changes nothing else.
	if code := run("policy", "sign", "--key", "other.moat-key", "managed.yaml"); code != 0 {
		t.Fatalf("re-sign: exit %d: %s", code, errOut)
	}
	resigned, _ := os.ReadFile(p)
	if strings.Count(string(resigned), "# moat-signature:") != 1 || !strings.HasPrefix(string(resigned), signPolicy) {
		t.Fatalf("re-signed file:\n%s", resigned)
	}
	if err := os.WriteFile(p, signed, 0o644); err != nil {
		t.Fatal(err)
	}
	write("tampered.yaml", strings.Replace(string(signed), "decision: deny", "decision: allow", 1))
	write("appended.yaml", string(signed)+"default: allow\n")
	write("unsigned.yaml", signPolicy)
	write("noserial.yaml", strings.Replace(signPolicy, "serial: 4\n", "", 1))
	write("invalid.yaml", "version: 1\nserial: 2\nrules:\n  - {id: x, decison: deny}\n")
	write("badserial.yaml", strings.Replace(signPolicy, "serial: 4", "serial: 0", 1))
	for _, tt := range []struct {
		args   []string
		code   int
		want   string
		reason string // verify --json's reason
	}{
		{[]string{"verify", "--key", "other.moat-pub", "managed.yaml"}, exitError, "signed by another key", "wrong-key"},
		{[]string{"verify", "--key", "team.moat-pub", "tampered.yaml"}, exitError, "does not match its text", "bad-signature"},
		{[]string{"verify", "--key", "team.moat-pub", "appended.yaml"}, exitError, "must be the last line", "malformed"},
		{[]string{"verify", "--key", "team.moat-pub", "unsigned.yaml"}, exitError, "not signed", "unsigned"},
		{[]string{"verify", "--key", "team.moat-key", "managed.yaml"}, exitError, "wrong type of key", ""},
		{[]string{"verify", "--key", "team.moat-pub", "missing.yaml"}, exitError, "no such file", ""},
		{[]string{"verify", "managed.yaml"}, exitUsage, "needs --key", ""},
		{[]string{"verify", "--key", "team.moat-pub"}, exitUsage, "accepts 1 arg", ""},
		{[]string{"verify", "--key", "team.moat-pub", "a", "b"}, exitUsage, "accepts 1 arg", ""},
		{[]string{"verify", "--keys", "team.moat-pub", "managed.yaml"}, exitUsage, "unknown flag", ""},
		{[]string{"sign", "--key", "team.moat-key", "noserial.yaml"}, exitError, `has no serial; nothing was signed`, ""},
		{[]string{"sign", "--key", "team.moat-key", "invalid.yaml"}, exitError, `invalid.yaml:4:13: unknown key "decison"`, ""},
		{[]string{"sign", "--key", "team.moat-key", "badserial.yaml"}, exitError, "badserial.yaml:2:9: serial must be a positive whole number", ""},
		{[]string{"sign", "--key", "team.moat-pub", "unsigned.yaml"}, exitError, "named as a public key", ""},
		{[]string{"sign", "--key", "team.moat-key", "team.moat-key"}, exitError, "holds a moat key, not a policy", ""},
		{[]string{"sign", "--key", "team.moat-key", "appended.yaml"}, exitError, "signature line is followed by other lines", ""},
		{[]string{"sign", "unsigned.yaml"}, exitUsage, "needs --key", ""},
		{[]string{"sign", "--key", "team.moat-key"}, exitUsage, "accepts 1 arg", ""},
	} {
		args := append([]string{"policy"}, tt.args...)
		before := snapshot(t, wd)
		code := run(args...)
		if code != tt.code || !strings.Contains(out.String()+errOut.String(), tt.want) {
			t.Errorf("moat %s: exit %d, want %d and %q:\n%s%s", strings.Join(args, " "), code, tt.code, tt.want, out, errOut)
		}
		if after := snapshot(t, wd); after != before {
			t.Errorf("moat %s changed files", strings.Join(args, " "))
		}
		if tt.reason == "" {
			continue
		}
		code = run(append(args[:2:2], append([]string{"--json"}, args[2:]...)...)...)
		var res verifyResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != exitError || res.Valid || res.Reason != tt.reason {
			t.Errorf("moat %s --json: exit %d, %+v (%v); want exit 1 and reason %s", strings.Join(args, " "), code, res, err, tt.reason)
		}
	}
	if code := run("policy", "verify", "--json", "--key", "team.moat-pub", "managed.yaml"); code != 0 {
		t.Fatalf("verify --json: exit %d: %s", code, errOut)
	}
	var res verifyResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || !res.Valid || res.Serial != 4 || res.Key != res.SignedBy {
		t.Fatalf("verify --json = %s (%v)", out, err)
	}
	// --out leaves the file as it was.
	if code := run("policy", "sign", "--key", "team.moat-key", "--out", "signed.yaml", "unsigned.yaml"); code != 0 {
		t.Fatalf("sign --out: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(wd, "unsigned.yaml")); string(got) != signPolicy {
		t.Errorf("sign --out changed the file it signed")
	}
	if got, _ := os.ReadFile(filepath.Join(wd, "signed.yaml")); !bytes.Equal(got, signed) {
		t.Errorf("sign --out wrote:\n%s\nwant:\n%s", got, signed)
	}
}

// TestPolicySignRefusesBadKeyNames: moat signs only with a key named *.moat-key, the name
// self-protection guards, and leaves the policy as it was.
func TestPolicySignRefusesBadKeyNames(t *testing.T) {
	env, _, errOut, wd := policyEnv(t)
	keyPair(t, env, "team")
	key, _ := os.ReadFile(filepath.Join(wd, "team.moat-key"))
	if err := os.WriteFile(filepath.Join(wd, "team.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "p.yaml"), []byte(signPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Main([]string{"policy", "sign", "--key", "team.key", "p.yaml"}, env); code != exitError || !strings.Contains(errOut.String(), "must end in .moat-key") {
		t.Fatalf("sign with a key not named .moat-key: exit %d: %s", code, errOut)
	}
	if got, _ := os.ReadFile(filepath.Join(wd, "p.yaml")); string(got) != signPolicy {
		t.Fatal("the policy was changed")
	}
}

// snapshot names and hashes the files of dir, to tell whether a command changed any.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		b.WriteString(p + "\x00" + string(data) + "\x00")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
