package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/moatdev/moat/internal/cli"
)

// runInProcess runs moat through cli.Main in this process, as the binary would run with
// environment env (KEY=VALUE, the last of a key winning, as for a process), working
// directory dir and stdin: the hook, check, trust, logs and setup tests need no process.
// The moat binary is still built, because moat protects its own file and the tests
// check that: Executable names the built binary, as it would in the released program.
func runInProcess(t testing.TB, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runInProcessAs(t, moatBinary(t), dir, env, stdin, args...)
}

// runInProcessAs is runInProcess with exe as the path of the running moat binary, as if
// moat had been started from there.
func runInProcessAs(t testing.TB, exe, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(args, processEnv(exe, dir, env, strings.NewReader(stdin), &out, &errOut))
	return out.String(), errOut.String(), code
}

// processEnv is the cli.Env of a moat process started from exe in dir with environment
// env (KEY=VALUE, the last of a key winning) and the given streams.
func processEnv(exe, dir string, env []string, stdin io.Reader, stdout, stderr io.Writer) cli.Env {
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return cli.Env{
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     stderr,
		Getenv:     func(k string) string { return vars[k] },
		Getwd:      func() (string, error) { return dir, nil },
		Now:        time.Now,
		Executable: func() (string, error) { return exe, nil },
	}
}

// moatOnPipes is moat running in this process with its stdin and stdout on pipes, as an
// agent runs an MCP proxy over stdio.
type moatOnPipes struct {
	in   *io.PipeWriter // moat's stdin
	out  *io.PipeReader // moat's stdout
	done chan int       // moat's exit status, once it has returned
}

// startOnPipes starts moat with args in this process; stderr (io.Discard when nil) must
// be safe for concurrent use. When the test ends, moat's stdin is closed and moat must
// return soon after, as a proxy does when its client goes away.
func startOnPipes(t testing.TB, dir string, env []string, stderr io.Writer, args ...string) *moatOnPipes {
	t.Helper()
	if stderr == nil {
		stderr = io.Discard
	}
	exe := moatBinary(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &moatOnPipes{in: inW, out: outR, done: make(chan int, 1)}
	go func() {
		code := cli.Main(args, processEnv(exe, dir, env, inR, outW, stderr))
		// What a process's exit does: its end of both pipes closes.
		outW.Close()
		inR.Close()
		p.done <- code
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			t.Errorf("moat %s did not return after its input ended", strings.Join(args, " "))
		}
	})
	return p
}

// transport is the MCP client's side of the pipes.
func (p *moatOnPipes) transport() *mcp.IOTransport {
	return &mcp.IOTransport{Reader: p.out, Writer: p.in}
}

// wait returns moat's exit status, failing the test if moat does not return in time.
func (p *moatOnPipes) wait(t testing.TB) int {
	t.Helper()
	select {
	case code := <-p.done:
		p.done <- code // for the cleanup
		return code
	case <-time.After(20 * time.Second):
		t.Fatal("moat did not return")
		return -1
	}
}
