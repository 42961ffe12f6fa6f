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
	"time"

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

// A hook the daemon cannot answer in time (the audit log's lock is held by another
// process) gets the hook's failure form at its deadline, as in process, and the timeout
// is recorded after the answer is sent.
func TestDaemonHookDeadline(t *testing.T) {
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state", "moat")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(state, "audit.jsonl.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	payload := `{"session_id":"s","cwd":"` + home + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`
	params, err := json.Marshal(hookParams{Agent: "claude-code", Payload: []byte(payload), Cwd: home,
		Env: map[string]string{"HOME": home, "PATH": "/usr/bin:/bin", "MOAT_HOOK_DEADLINE": "100ms"}})
	if err != nil {
		t.Fatal(err)
	}
	_, method, _ := hookDaemon(t, map[string]string{"HOME": t.TempDir(), "PATH": "/bin"}, home)
	res, err := method(context.Background(), params, daemon.Peer{Local: true})
	if err != nil {
		t.Fatal(err)
	}
	got := res.(hookResult)
	if got.Code != 2 || !strings.Contains(string(got.Stdout)+got.Stderr, "deadline of 100ms") {
		t.Fatalf("exit %d, stdout %s, stderr %q; want the failure form naming the deadline", got.Code, got.Stdout, got.Stderr)
	}
	// The timeout is recorded in the background: in the log's spool, while the lock is
	// held.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var found bool
		filepath.WalkDir(state, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if data, _ := os.ReadFile(path); strings.Contains(string(data), "deadline of 100ms") {
					found = true
				}
			}
			return nil
		})
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the timeout was not recorded")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
