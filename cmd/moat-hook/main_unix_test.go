//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/testbin"
)

// fakeMoat is a moat that records its arguments, standard input and parent process in
// $MOAT_FAKE_OUT, and answers as a blocking hook.
const fakeMoat = `#!/bin/sh
printf '%s\n' "$@" > "$MOAT_FAKE_OUT/args"
cat > "$MOAT_FAKE_OUT/payload"
echo "$PPID" > "$MOAT_FAKE_OUT/ppid"
echo '{"decision":"block"}'
echo 'blocked by the fake' >&2
exit 2
`

// Without a daemon, the built moat-hook hands the moat beside it exactly the payload
// and the arguments, replacing itself when the payload fits a pipe, and passes moat's
// answer and exit status on; without any moat it blocks, saying why.
func TestFallback(t *testing.T) {
	if testing.Short() {
		t.Skip("builds moat-hook")
	}
	dir := t.TempDir()
	client, err := testbin.Build(dir, "", testbin.MoatHook)
	if err != nil {
		t.Fatal(err)
	}
	// Every byte value, and a payload larger than a default pipe.
	var small bytes.Buffer
	for i := range 256 {
		small.WriteByte(byte(i))
	}
	large := bytes.Repeat([]byte("{\"tool_input\":\"x\"}\n"), 4<<20/19)
	tests := []struct {
		name     string
		payload  []byte
		moat     bool
		wantExec bool // moat replaced moat-hook: its parent is this test
	}{
		{"small payload, exec", small.Bytes(), true, true},
		{"large payload", large, true, false},
		{"no moat", small.Bytes(), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			moat := filepath.Join(dir, "moat")
			os.Remove(moat)
			if tt.moat {
				if err := os.WriteFile(moat, []byte(fakeMoat), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			out := t.TempDir()
			cmd := exec.Command(client, "claude-code", "--policy", "/p.yaml")
			cmd.Env = []string{"HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "PATH=/usr/bin:/bin", "MOAT_FAKE_OUT=" + out}
			r := testbin.Run(t, cmd, bytes.NewReader(tt.payload))
			if !tt.moat {
				if r.Code != 2 || !strings.Contains(string(r.Stderr), "no decision") || len(r.Stdout) != 0 {
					t.Errorf("exit %d, stdout %q, stderr %q; want a block saying why", r.Code, r.Stdout, r.Stderr)
				}
				return
			}
			if r.Code != 2 || string(r.Stdout) != "{\"decision\":\"block\"}\n" || string(r.Stderr) != "blocked by the fake\n" {
				t.Errorf("exit %d, stdout %q, stderr %q; want the fake moat's answer", r.Code, r.Stdout, r.Stderr)
			}
			args, _ := os.ReadFile(filepath.Join(out, "args"))
			if string(args) != "hook\nclaude-code\n--policy\n/p.yaml\n" {
				t.Errorf("moat got args %q", args)
			}
			payload, _ := os.ReadFile(filepath.Join(out, "payload"))
			if !bytes.Equal(payload, tt.payload) {
				t.Errorf("moat got a payload of %d bytes, want the %d sent", len(payload), len(tt.payload))
			}
			ppid, _ := os.ReadFile(filepath.Join(out, "ppid"))
			if tt.wantExec && strings.TrimSpace(string(ppid)) != strconv.Itoa(os.Getpid()) {
				t.Errorf("moat's parent is %s, not this test (%d): moat-hook did not exec it", ppid, os.Getpid())
			}
		})
	}
}
