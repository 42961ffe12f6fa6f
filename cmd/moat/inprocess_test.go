package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
	vars := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	var out, errOut bytes.Buffer
	code = cli.Main(args, cli.Env{
		Stdin:      strings.NewReader(stdin),
		Stdout:     &out,
		Stderr:     &errOut,
		Getenv:     func(k string) string { return vars[k] },
		Getwd:      func() (string, error) { return dir, nil },
		Now:        time.Now,
		Executable: func() (string, error) { return exe, nil },
	})
	return out.String(), errOut.String(), code
}
