package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayerLines checks that the commands about policies say which layer decided and
// which settings the managed policy locks, with a managed policy in a temporary
// directory (Env.ManagedDir) above the user's own.
func TestLayerLines(t *testing.T) {
	home := t.TempDir()
	managed := filepath.Join(t.TempDir(), "managed")
	user := filepath.Join(home, ".config", "moat", "moat.yaml")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(managed, "managed.yaml"), "version: 1\nfail: closed\nrules:\n  - {id: corp-no-curl, command: \"curl **\", decision: deny}\n")
	write(user, "version: 1\ndefault: allow\nfail: open\nrules:\n  - {id: user-curl, command: \"curl **\", decision: allow}\n")

	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{
			args: []string{"check", "--explain", "--", "curl https://example.com"},
			code: 3,
			stdout: []string{
				"layer:  managed  " + filepath.Join(managed, "managed.yaml"),
				"layer:  user     " + user,
				"layer managed  " + filepath.Join(managed, "managed.yaml") + ": deny (corp-no-curl)",
				"layer user     " + user + ": allow (user-curl)",
				"decided by the managed layer",
				"decided by: " + filepath.Join(managed, "managed.yaml"),
			},
		},
		{args: []string{"validate", user}, stderr: []string{"fail is locked by the managed policy"}},
		{args: []string{"status"}, stdout: []string{"decides together with the managed policy", "fail is locked by the managed policy"}},
		{args: []string{"doctor"}, code: -1, stdout: []string{"policy.layers", "policy.locked"}},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			a, stdout, stderr := testApp(home)
			a.env.ManagedDir = managed
			a.env.Getenv = func(k string) string {
				return map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}[k]
			}
			code := Main(tt.args, a.env)
			if tt.code >= 0 && code != tt.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
		})
	}
}

func TestInitUser(t *testing.T) {
	home := t.TempDir()
	a, stdout, stderr := testApp(home)
	if code := Main([]string{"init", "--user", "--template", "strict"}, a.env); code != 0 {
		t.Fatalf("init --user: exit %d\n%s%s", code, stdout, stderr)
	}
	file := filepath.Join(home, ".config", "moat", "moat.yaml")
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(stdout.String(), "wrote "+file) {
		t.Fatalf("init --user wrote nothing: %v\n%s", err, stdout)
	}
	if _, err := os.Stat(filepath.Join(home, "moat.yaml")); err == nil {
		t.Error("init --user wrote a project policy too")
	}
	if code := Main([]string{"init", "--user"}, a.env); code == 0 {
		t.Error("init --user replaced an existing policy without --force")
	}
	if again, _ := os.ReadFile(file); string(again) != string(data) {
		t.Error("the user policy changed")
	}
}
