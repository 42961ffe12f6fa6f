//go:build unix

package hookrelay

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAnswerWait(t *testing.T) {
	tests := []struct {
		value string
		want  time.Duration
	}{
		{"", 2*time.Second + answerMargin},
		{"5s", 5*time.Second + answerMargin},
		{"100ms", 100*time.Millisecond + answerMargin},
		{"nonsense", 2*time.Second + answerMargin},
		{"1ms", 2*time.Second + answerMargin},
		{"1h", 2*time.Second + answerMargin},
	}
	for _, tt := range tests {
		if got := AnswerWait(func(string) string { return tt.value }); got != tt.want {
			t.Errorf("MOAT_HOOK_DEADLINE=%q: wait %s, want %s", tt.value, got, tt.want)
		}
	}
}

// Without a daemon, Main hands moat hook the payload it read and the arguments; when no
// moat can be run, it blocks, saying why.
func TestMainFallback(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "bin", "moat-hook")
	if err := os.MkdirAll(filepath.Dir(client), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(client, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	moat := filepath.Join(dir, "bin", "moat")
	// The client as installed on PATH: a link to the real one, beside which moat is.
	link := filepath.Join(dir, "moat-hook-link")
	if err := os.Symlink(client, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		moatBeside bool
		onPath     string
		fallback   error
		wantPath   string
		wantStderr string
	}{
		{name: "moat beside the client", moatBeside: true, onPath: "/usr/bin/moat", wantPath: moat},
		{name: "moat on PATH", onPath: "/usr/bin/moat", wantPath: "/usr/bin/moat"},
		{name: "no moat", wantStderr: "no decision"},
		{name: "moat fails to start", moatBeside: true, fallback: errors.New("exec format error"), wantPath: moat, wantStderr: "exec format error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(moat)
			if tt.moatBeside {
				if err := os.WriteFile(moat, []byte("#!/bin/sh\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			var gotPath string
			var gotArgs []string
			var gotPayload []byte
			var stdout, stderr bytes.Buffer
			home := t.TempDir()
			code := Main([]string{"gemini-cli", "--policy", "p.yaml"}, Env{
				Stdin: strings.NewReader("{\"a\":\"\x00\"}"), Stdout: &stdout, Stderr: &stderr,
				Getenv: func(k string) string {
					return map[string]string{"HOME": home, "XDG_RUNTIME_DIR": filepath.Join(home, "run")}[k]
				},
				Getwd:      func() (string, error) { return home, nil },
				Executable: func() (string, error) { return link, nil },
				LookPath: func(string) (string, error) {
					if tt.onPath == "" {
						return "", errors.New("moat: not found in $PATH")
					}
					return tt.onPath, nil
				},
				Fallback: func(path string, args []string, payload []byte) error {
					gotPath, gotArgs, gotPayload = path, args, payload
					return tt.fallback
				},
			})
			if code != 2 {
				t.Errorf("exit %d, want 2 whenever moat hook cannot answer", code)
			}
			if gotPath != tt.wantPath {
				t.Errorf("ran %q, want %q", gotPath, tt.wantPath)
			}
			if tt.wantPath != "" && (strings.Join(gotArgs, " ") != "hook gemini-cli --policy p.yaml" || string(gotPayload) != "{\"a\":\"\x00\"}") {
				t.Errorf("moat got args %q and payload %q", gotArgs, gotPayload)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || stdout.Len() != 0 {
				t.Errorf("stdout %q, stderr %q, want stderr with %q", stdout.String(), stderr.String(), tt.wantStderr)
			}
		})
	}
}
