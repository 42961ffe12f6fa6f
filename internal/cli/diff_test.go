package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDryRunDiffsReadAlike: setup --dry-run and mcp wrap --dry-run show what they would
// change in the same unified diff, whose headers name the file as it is now and after.
func TestDryRunDiffsReadAlike(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".gemini", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	const text = "{\n  // mine\n  \"theme\": \"dark\",\n  \"mcpServers\": {\"memory\": {\"command\": \"mcp-server-memory\"}}\n}\n"
	if err := os.WriteFile(settings, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	header := "\n--- " + settings + " (now)\n+++ " + settings + " (after)\n@@ -1,"
	for _, args := range [][]string{
		{"setup", "--dry-run", "gemini-cli"},
		{"mcp", "wrap", "--dry-run", "--agent", "gemini-cli"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr syncBuffer
			env := Env{
				Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(k string) string {
					if k == "HOME" {
						return home
					}
					return ""
				},
				Getwd:      func() (string, error) { return home, nil },
				Now:        time.Now,
				Executable: func() (string, error) { return filepath.Join(home, "bin", "moat"), nil },
			}
			if code := Main(args, env); code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			if out := stdout.String(); !strings.Contains(out, header) || !strings.Contains(out, "\n+") {
				t.Errorf("no diff under %q:\n%s", header, out)
			}
			if got, err := os.ReadFile(settings); err != nil || string(got) != text {
				t.Errorf("a dry run changed %s: %v\n%s", settings, err, got)
			}
		})
	}
}
