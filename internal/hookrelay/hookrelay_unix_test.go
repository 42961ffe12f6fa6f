//go:build unix

package hookrelay

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeDaemon listens on a unix socket in a fresh directory and answers each connection's
// first line with answer(request line); it returns the socket's path.
func fakeDaemon(t *testing.T, answer func(line []byte) string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hookrelay")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "daemon.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				line, err := bufio.NewReader(conn).ReadBytes('\n')
				if err != nil {
					return
				}
				conn.Write([]byte(answer(line)))
			}()
		}
	}()
	return sock
}

func TestRelay(t *testing.T) {
	req := Request{Agent: "claude-code", Args: []string{"--policy", "/p.yaml"}, Payload: []byte("{\"x\":1}\n\x00\xff"), Cwd: "/work", Env: map[string]string{"HOME": "/h", "CI": "true"}}
	good := `{"result":{"stdout":"eyJkZWNpc2lvbiI6ImRlbnkifQo=","stderr":"blocked\n","code":2}}` + "\n"
	tests := []struct {
		name    string
		answer  func(line []byte) string
		check   func(fd int) error
		wait    time.Duration
		want    Answer
		wantErr string
	}{
		{name: "good answer", answer: func([]byte) string { return good },
			want: Answer{Stdout: []byte("{\"decision\":\"deny\"}\n"), Stderr: "blocked\n", Code: 2}},
		{name: "allow, empty output", answer: func([]byte) string { return `{"result":{"stdout":"","stderr":"","code":0}}` + "\n" },
			want: Answer{Stdout: []byte{}, Code: 0}},
		{name: "garbage", answer: func([]byte) string { return "HTTP/1.1 400 Bad Request\r\n\r\n" }, wantErr: "the daemon's answer"},
		{name: "no newline, then closed", answer: func([]byte) string { return `{"result":` }, wantErr: "reading the daemon's answer"},
		{name: "an error", answer: func([]byte) string { return `{"error":"bind: the daemon serves 16 environments already"}` + "\n" }, wantErr: "16 environments"},
		{name: "no result", answer: func([]byte) string { return `{}` + "\n" }, wantErr: "no result"},
		{name: "null result", answer: func([]byte) string { return `{"result":null}` + "\n" }, wantErr: "no result"},
		{name: "no code", answer: func([]byte) string { return `{"result":{"stdout":"","stderr":""}}` + "\n" }, wantErr: "lacks"},
		{name: "null stdout", answer: func([]byte) string { return `{"result":{"stdout":null,"stderr":"","code":0}}` + "\n" }, wantErr: "lacks"},
		{name: "code not an integer", answer: func([]byte) string { return `{"result":{"stdout":"","stderr":"","code":"0"}}` + "\n" }, wantErr: "the daemon's answer"},
		{name: "stdout not base64", answer: func([]byte) string { return `{"result":{"stdout":"{}","stderr":"","code":0}}` + "\n" }, wantErr: "the daemon's answer"},
		{name: "an empty error and a result", answer: func([]byte) string { return `{"error":"","result":{"stdout":"","stderr":"","code":2}}` + "\n" }, want: Answer{Stdout: []byte{}, Code: 2}},
		{name: "error not a string", answer: func([]byte) string { return `{"error":1}` + "\n" }, wantErr: "the daemon's answer"},
		{name: "no stdout", answer: func([]byte) string { return `{"result":{"stderr":"","code":0}}` + "\n" }, wantErr: "lacks"},
		{name: "exit status hook never gives", answer: func([]byte) string { return `{"result":{"stdout":"","stderr":"","code":1}}` + "\n" }, wantErr: "exit status 1"},
		{name: "slow past the deadline", answer: func([]byte) string { time.Sleep(2 * time.Second); return good }, wait: 200 * time.Millisecond, wantErr: "timeout"},
		{name: "server of another user", answer: func([]byte) string { return good },
			check: func(int) error { return errors.New("the server runs as uid 65534, not 1000: refused") }, wantErr: "uid 65534"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The request line comes back through a channel: the client talks through
			// raw system calls, which the race detector does not see order the two sides.
			lines := make(chan []byte, 1)
			sock := fakeDaemon(t, func(line []byte) string {
				select {
				case lines <- line:
				default:
				}
				return tt.answer(line)
			})
			wait := tt.wait
			if wait == 0 {
				wait = 5 * time.Second
			}
			ans, err := Client{Socket: sock, Wait: wait, CheckPeer: tt.check}.Relay(req)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q (answer %+v)", err, tt.wantErr, ans)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(ans.Stdout) != string(tt.want.Stdout) || ans.Stderr != tt.want.Stderr || ans.Code != tt.want.Code {
				t.Errorf("answer %+v, want %+v", ans, tt.want)
			}
			var got []byte
			select {
			case got = <-lines:
			case <-time.After(5 * time.Second):
				t.Fatal("the daemon never read the request")
			}
			// The request, as the daemon's hook method reads it.
			var wire struct {
				Version int        `json:"version"`
				Method  string     `json:"method"`
				Params  wireParams `json:"params"`
			}
			if err := json.Unmarshal(got, &wire); err != nil {
				t.Fatalf("request %s: %v", got, err)
			}
			if payload, err := decodedPayload(got); err != nil || string(payload) != string(req.Payload) {
				t.Errorf("payload %q (%v), want %q", payload, err, req.Payload)
			}
			if wire.Version != 1 || wire.Method != "hook" ||
				wire.Params.Agent != req.Agent || strings.Join(wire.Params.Args, " ") != "--policy /p.yaml" ||
				wire.Params.Cwd != req.Cwd || wire.Params.Env["CI"] != "true" {
				t.Errorf("request %s", got)
			}
		})
	}
}

// The server's user is checked by the kernel's word: this test's own server passes.
func TestCheckServerUID(t *testing.T) {
	sock := fakeDaemon(t, func([]byte) string { return `{"result":{"stdout":"","stderr":"","code":0}}` + "\n" })
	if _, err := (Client{Socket: sock, Wait: 5 * time.Second}).Relay(Request{Agent: "cursor", Cwd: "/"}); err != nil {
		t.Fatalf("a server of this user: %v", err)
	}
}

func TestRelayNoDaemon(t *testing.T) {
	_, err := Client{Socket: filepath.Join(t.TempDir(), "daemon.sock"), Wait: time.Second}.Relay(Request{Agent: "cursor", Cwd: "/"})
	if err == nil || !strings.Contains(err.Error(), "connecting to the daemon") {
		t.Fatalf("err = %v", err)
	}
}
