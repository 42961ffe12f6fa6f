package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/trust"
)

func denyingPolicy(word string) string {
	return fmt.Sprintf("version: 1\ndefault: allow\nrules:\n  - id: deny-%s\n    command: \"%s **\"\n    decision: deny\n    reason: no %s\n", word, word, word)
}

// stream is a `moat check --stdin` running through Main, asked one request at a time.
type stream struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	stderr *syncBuffer
	cwd    string
	done   chan int
}

// startStream runs check --stdin for a user whose home is home, in cwd.
func startStream(t *testing.T, home, cwd string) *stream {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a, _, stderr := testApp(home)
	env := a.env
	env.Stdin, env.Stdout = inR, outW
	env.Getwd = func() (string, error) { return cwd, nil }
	s := &stream{t: t, in: inW, out: bufio.NewReader(outR), stderr: stderr, cwd: cwd, done: make(chan int, 1)}
	go func() {
		code := Main([]string{"check", "--stdin"}, env)
		outW.Close()
		s.done <- code
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		if code := <-s.done; code != 0 {
			t.Errorf("check --stdin exited %d; stderr:\n%s", code, stderr.String())
		}
	})
	return s
}

type streamAnswer struct {
	Decision string  `json:"decision"`
	Reason   *string `json:"reason"`
	Error    string  `json:"error"`
}

func (s *stream) ask(command string) streamAnswer {
	s.t.Helper()
	req, _ := json.Marshal(map[string]any{"version": 1, "tool": "Bash", "args": map[string]any{"command": command}, "cwd": s.cwd})
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		s.t.Fatal(err)
	}
	line, err := s.out.ReadBytes('\n')
	if err != nil {
		s.t.Fatalf("reading the answer: %v; stderr:\n%s", err, s.stderr.String())
	}
	var ans streamAnswer
	if err := json.Unmarshal(line, &ans); err != nil {
		s.t.Fatal(err)
	}
	if ans.Error != "" {
		s.t.Fatalf("answer: %s", ans.Error)
	}
	return ans
}

// until asks command until the answer satisfies ok.
func (s *stream) until(what, command string, ok func(streamAnswer) bool) streamAnswer {
	s.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		ans := s.ask(command)
		if ok(ans) {
			return ans
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting: %s; last answer %+v; stderr:\n%s", what, ans, s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func reason(a streamAnswer) string {
	if a.Reason == nil {
		return ""
	}
	return *a.Reason
}

func writeTestFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCheckStreamFollowsPolicyEdits(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".config", "moat", "moat.yaml")
	writeTestFile(t, user, denyingPolicy("rm"))
	s := startStream(t, home, home)
	if a := s.ask("rm x"); a.Decision != "deny" {
		t.Fatalf("rm under the first policy: %+v", a)
	}

	writeTestFile(t, user, denyingPolicy("curl"))
	s.until("the edit applies", "curl x", func(a streamAnswer) bool { return a.Decision == "deny" })
	if a := s.ask("rm x"); a.Decision != "allow" {
		t.Errorf("rm after the edit: %+v", a)
	}

	writeTestFile(t, user, "version: 1\nrules: [\n")
	a := s.until("the broken edit is told", "curl x", func(a streamAnswer) bool { return strings.Contains(reason(a), "not applied") })
	if a.Decision != "deny" || !strings.Contains(reason(a), "still enforcing "+user) {
		t.Errorf("under a broken edit: %s, %q; want deny by the last good policy, with the notice", a.Decision, reason(a))
	}
	if a := s.ask("curl x"); a.Decision != "deny" || strings.Contains(reason(a), "not applied") {
		t.Errorf("the next answer: %s, %q; want deny, the notice told once", a.Decision, reason(a))
	}
}

// A trusted project policy edited without trusting it again decides as trusted, also
// after the watcher saw the edit.
func TestCheckStreamKeepsTrustedVersion(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "app")
	writeTestFile(t, filepath.Join(project, ".git", "HEAD"), "ref: refs/heads/main\n")
	file := filepath.Join(project, "moat.yaml")
	trusted := denyingPolicy("rm")
	writeTestFile(t, file, trusted)
	a, _, _ := testApp(home)
	d, err := a.dirs()
	if err != nil {
		t.Fatal(err)
	}
	if err := trust.Open(d.TrustStore()).Trust(file, []byte(trusted), time.Now()); err != nil {
		t.Fatal(err)
	}
	s := startStream(t, home, project)
	if a := s.ask("rm x"); a.Decision != "deny" {
		t.Fatalf("rm under the trusted policy: %+v", a)
	}
	writeTestFile(t, file, "version: 1\ndefault: allow\n")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.stderr.String(), "changed since you trusted it") {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not look at the edit; stderr:\n%s", s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a := s.ask("rm x"); a.Decision != "deny" {
		t.Errorf("rm after an edit not trusted: %+v; want deny by the trusted version", a)
	}
}
