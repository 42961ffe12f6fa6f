package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/moatdev/moat/internal/daemon"
)

// The daemon reads Gemini CLI's headless mode from its client's process tree, not its
// own: a client whose parent runs as `gemini -p` gets the deny that headless Gemini
// needs instead of an ask it would leave pending; a client whose pid is unknown is
// answered as a hook that cannot read its parents (an ask).
func TestDaemonHookGeminiHeadless(t *testing.T) {
	// A stand-in for `node …/gemini-cli/index.js -p hi`, whose child is the client.
	gemini := exec.Command("/bin/sh", "-c", "sleep 30 & echo $!; wait", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js", "-p", "hi")
	out, err := gemini.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := gemini.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		gemini.Process.Kill()
		gemini.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	client, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(client, syscall.SIGKILL) })

	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s1","cwd":"` + project + `","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"file_path":"` + home + `/.ssh/id_ed25519"}}`
	params, err := json.Marshal(hookParams{Agent: "gemini-cli", Payload: []byte(payload), Cwd: project, Env: map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	_, method, _ := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, home)
	tests := []struct {
		name string
		pid  int
		want string
	}{
		{"client under headless gemini", client, `"decision":"deny"`},
		{"client under this test", os.Getpid(), `"decision":"ask"`},
		{"unknown client", 0, `"decision":"ask"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := method(context.Background(), params, daemon.Peer{Local: true, PID: tt.pid})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.(hookResult); !strings.Contains(string(got.Stdout), tt.want) {
				t.Errorf("stdout %s, want %s", got.Stdout, tt.want)
			}
		})
	}
}
