package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy"
)

// guardPolicy denies rm, asks before touch and allows the rest.
const guardPolicy = `version: 1
default: allow
rules:
  - id: deny-rm
    command: "rm **"
    decision: deny
    reason: no deleting here
  - id: ask-touch
    command: "touch **"
    decision: ask
    reason: touching needs a yes
`

// guardApp is an app in a fresh HOME whose working directory is a temporary directory,
// with the policy file written there.
func guardApp(t *testing.T, policyText string, env map[string]string) (*app, *bytes.Buffer, string) {
	t.Helper()
	home, wd := t.TempDir(), t.TempDir()
	pol := filepath.Join(wd, "policy.yaml")
	if err := os.WriteFile(pol, []byte(policyText), 0o600); err != nil {
		t.Fatal(err)
	}
	stderr := &bytes.Buffer{}
	a := &app{env: Env{
		Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: stderr,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return env[k]
		},
		Getwd:      func() (string, error) { return wd, nil },
		Now:        func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Executable: func() (string, error) { return filepath.Join(wd, "moat"), nil },
	}}
	return a, stderr, pol
}

// fakeTTY is a terminal whose user types answer.
type fakeTTY struct {
	io.Reader
	out    bytes.Buffer
	closed bool
}

func (f *fakeTTY) Write(p []byte) (int, error) { return f.out.Write(p) }
func (f *fakeTTY) Close() error                { f.closed = true; return nil }

func TestGuard(t *testing.T) {
	noTTY := func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") }
	tests := []struct {
		name    string
		command string
		tty     string // what the user types; "-" for no terminal
		run     bool
		stderr  string // part of what moat prints
		record  string // part of the audit record
	}{
		{"allowed", "go version", "-", true, "", `"decision":"allow"`},
		{"denied", "rm -rf build", "-", false, "moat: denied: no deleting here (rule deny-rm)", `"decision":"deny"`},
		{"denied even with a terminal", "rm x", "y\n", false, "denied", `"rule":"deny-rm"`},
		{"one denied unit denies the line", "ls; rm x", "-", false, "denied", `"decision":"deny"`},
		{"ask without a terminal", "touch x", "-", false, "It waits for the user's approval (no terminal to ask on): the user can run `moat approve ", `"answer":"deny"`},
		{"ask approved", "touch x", "y\n", true, "", `(approved at the terminal)`},
		{"ask approved with yes", "touch x", "YES\n", true, "", `approved`},
		{"ask approved in raw mode", "touch x", "y\r", true, "", `approved`},
		{"ask refused", "touch x", "n\n", false, "refused at the terminal", `(refused at the terminal)`},
		{"ask defaults to no", "touch x", "\n", false, "refused at the terminal", `refused`},
		{"ask with no answer", "touch x", "", false, "no answer from the terminal", `no answer`},
		{"ask answered with more", "touch x", "yes please\n", false, "refused", `refused`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, stderr, pol := guardApp(t, guardPolicy, nil)
			tty := &fakeTTY{Reader: strings.NewReader(tt.tty)}
			deps := guardDeps{openTTY: func() (io.ReadWriteCloser, error) { return tty, nil }}
			if tt.tty == "-" {
				deps.openTTY = noTTY
			}
			o := guardOptions{policy: pol, agent: "aider", event: eventRun, deps: deps}
			if got := a.guard(context.Background(), o, tt.command); got != tt.run {
				t.Errorf("guard = %v, want %v; stderr: %s", got, tt.run, stderr)
			}
			if tt.stderr == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.stderr)
			}
			if strings.HasPrefix(tt.name, "ask") && tt.tty != "-" {
				if !tty.closed {
					t.Error("the terminal was left open")
				}
				for _, want := range []string{tt.command, "touching needs a yes", "ask-touch", "[y/N]"} {
					if !strings.Contains(tty.out.String(), want) {
						t.Errorf("prompt %q does not show %q", tty.out.String(), want)
					}
				}
			} else if tty.out.Len() > 0 {
				t.Errorf("prompted without an ask: %q", tty.out.String())
			}
			log, err := os.ReadFile(filepath.Join(a.env.Getenv("HOME"), ".local/state/moat/audit.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{tt.record, `"agent":"aider"`, `"event":"run"`, `"class":"shell"`, `"tool":"shell"`} {
				if !strings.Contains(string(log), want) {
					t.Errorf("record %s does not hold %s", log, want)
				}
			}
		})
	}
}

// A policy moat cannot load is a refusal, whatever the policy would have said about
// failures, since it could not be read.
func TestGuardFailsClosed(t *testing.T) {
	for name, text := range map[string]string{
		"invalid":               "version: 1\nrules: [{id: x, decision: maybe}]\n",
		"invalid but fail open": "version: 1\nfail: open\nrules: [{id: x}]\n",
		"not yaml":              "{{{",
	} {
		t.Run(name, func(t *testing.T) {
			a, stderr, pol := guardApp(t, text, nil)
			o := guardOptions{policy: pol, event: eventRun, deps: guardDeps{}}
			if a.guard(context.Background(), o, "true") {
				t.Fatal("an unreadable policy let the command run")
			}
			if !strings.Contains(stderr.String(), "cannot load the policy, so the command does not run") {
				t.Errorf("stderr = %q", stderr)
			}
		})
	}
	a, _, _ := guardApp(t, guardPolicy, nil)
	if a.guard(context.Background(), guardOptions{policy: "/nonexistent/policy.yaml", event: eventRun}, "true") {
		t.Fatal("a missing policy file let the command run")
	}
}

// The prompt shows what the terminal would otherwise act on as escapes, so that a command
// cannot hide its real text from the user asked about it.
func TestAskShowsControlCharacters(t *testing.T) {
	a, _, pol := guardApp(t, guardPolicy, nil)
	tty := &fakeTTY{Reader: strings.NewReader("n\n")}
	o := guardOptions{policy: pol, event: eventRun, deps: guardDeps{openTTY: func() (io.ReadWriteCloser, error) { return tty, nil }}}
	a.guard(context.Background(), o, "touch x\r\x1b[2Kls # \u202eevil")
	out := tty.out.String()
	for _, bad := range []string{"\r", "\x1b", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("prompt holds %q raw: %q", bad, out)
		}
	}
	for _, want := range []string{`\x0d`, `\x1b[2K`, `\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt %q does not show %s", out, want)
		}
	}
}

// fakeExec records the program moat would replace itself with.
type fakeExec struct {
	called    bool
	path      string
	argv, env []string
	err       error
}

func (f *fakeExec) exec(path string, argv, env []string) error {
	f.called, f.path, f.argv, f.env = true, path, argv, env
	return f.err
}

func runCmd(t *testing.T, a *app, deps guardDeps, args ...string) int {
	t.Helper()
	cmd := newRunCmdWith(a, deps)
	cmd.SetArgs(args)
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	err := cmd.Execute()
	var ec *exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		if ec.err != nil {
			a.env.Stderr.Write([]byte(ec.err.Error() + "\n"))
		}
		return ec.code
	}
	t.Fatalf("unexpected error %v", err)
	return -1
}

func TestRunCmd(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		exec   []string // argv given to exec; nil when nothing may run
		stderr string
	}{
		{"allowed runs the arguments as given", []string{"--", "sh", "-c", "exit 3", "a b"}, nil, 0, []string{"sh", "-c", "exit 3", "a b"}, ""},
		{"flags end at the command", []string{"sh", "-c", "true"}, nil, 0, []string{"sh", "-c", "true"}, ""},
		{"denied", []string{"--", "rm", "-rf", "x"}, nil, exitGuardRefused, nil, "deny-rm"},
		// The words are quoted, so a word holding shell syntax is not run as a command line.
		{"a word is not a line", []string{"--", "echo", "; rm -rf x"}, nil, 0, []string{"echo", "; rm -rf x"}, ""},
		{"ask without a terminal", []string{"--", "touch", "x"}, nil, exitGuardRefused, nil, "no terminal"},
		{"no command", []string{}, nil, exitUsage, nil, "run needs a command"},
		{"bad flag", []string{"--frobnicate", "--", "true"}, nil, exitUsage, nil, "unknown flag"},
		{"unknown agent", []string{"--agent", "clippy", "--", "true"}, nil, exitUsage, nil, `unknown agent "clippy"`},
		{"unknown agent from the environment", []string{"--", "true"}, map[string]string{envAgent: "clippy"}, exitUsage, nil, "MOAT_AGENT"},
		{"not found", []string{"--", "moat-test-no-such-program"}, nil, exitGuardNotFound, nil, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, stderr, pol := guardApp(t, guardPolicy, tt.env)
			fe := &fakeExec{}
			deps := guardDeps{
				openTTY: func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") },
				exec:    fe.exec,
				environ: func() []string { return []string{"A=1"} },
			}
			args := append([]string{"--policy", pol}, tt.args...)
			if code := runCmd(t, a, deps, args...); code != tt.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tt.code, stderr)
			}
			if tt.exec == nil {
				if fe.called {
					t.Fatalf("ran %q", fe.argv)
				}
			} else if !fe.called || strings.Join(fe.argv, "\x00") != strings.Join(tt.exec, "\x00") || !filepath.IsAbs(fe.path) || strings.Join(fe.env, " ") != "A=1" {
				t.Errorf("exec(%q, %q, %q), want argv %q", fe.path, fe.argv, fe.env, tt.exec)
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr = %q, want %q", stderr, tt.stderr)
			}
		})
	}
}

// quoteArgv must give a line that the shell splits back into exactly the same words.
func FuzzQuoteArgv(f *testing.F) {
	for _, seed := range [][]string{
		{"rm", "-rf", "~"}, {"echo", "; rm -rf /"}, {"a b", "'", `"`, "$(x)", "`x`", "\\"},
		{"", "*", "{a,b}", "!x", "#x", "\n", "\t", "é", "\x01"},
	} {
		f.Add(strings.Join(seed, "\x00"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\x00")
		line, err := quoteArgv(argv)
		if err != nil {
			return // refused, never guessed
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q quoted as %q, which does not parse: %v", argv, line, err)
		}
		if len(file.Stmts) != 1 {
			t.Fatalf("%q quoted as %q: %d statements", argv, line, len(file.Stmts))
		}
		ce, ok := file.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(ce.Assigns) > 0 || len(ce.Args) != len(argv) {
			t.Fatalf("%q quoted as %q: not one simple command of %d words", argv, line, len(argv))
		}
		for i, w := range ce.Args {
			got, err := expand.Literal(&expand.Config{}, w)
			if err != nil {
				t.Fatalf("%q quoted as %q: word %d: %v", argv, line, i, err)
			}
			if got != argv[i] {
				t.Fatalf("%q quoted as %q: word %d is %q", argv, line, i, got)
			}
		}
	})
}

func TestWithEnv(t *testing.T) {
	got := withEnv([]string{"A=1", "B=2", "MOAT_SHELL_EXEC=old", "C=x=y"}, []string{"MOAT_SHELL_EXEC=new"})
	want := "A=1 B=2 C=x=y MOAT_SHELL_EXEC=new"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The answer is read up to its end and no further: what the user types next is the
// command's.
func TestReadAnswerLeavesTypeahead(t *testing.T) {
	for _, in := range []string{"y\nrest", "y\rrest"} {
		r := strings.NewReader(in)
		got, err := readAnswer(r)
		rest, _ := io.ReadAll(r)
		if got != "y" || err != nil || string(rest) != "rest" {
			t.Errorf("%q: answer %q, err %v, left %q", in, got, err, rest)
		}
	}
}

// panicky is a decision service that fails where told to; failures are recorded by the
// embedded one.
type panicky struct {
	decide.Service
	fail            policy.FailMode
	verdict         call.Verdict
	inDecide, inRec bool
}

func (p panicky) Lookup(context.Context, decide.Scope) (decide.Policy, error) {
	return decide.Policy{Fail: p.fail}, nil
}

func (p panicky) Decide(context.Context, decide.CallRequest) (decide.CallResult, error) {
	if p.inDecide {
		panic("boom")
	}
	d := call.Decision{Verdict: p.verdict, Rule: "r"}
	return decide.CallResult{Decisions: []call.Decision{d}, Decision: d}, nil
}

func (p panicky) Record(context.Context, decide.RecordRequest) error {
	if p.inRec {
		panic("boom")
	}
	return nil
}

// An internal error follows the policy's fail mode only when nothing was decided: a deny
// or an allow whose recording fails never runs on fail: open's word.
func TestGuardInternalErrors(t *testing.T) {
	tests := []struct {
		name string
		p    panicky
		run  bool
	}{
		{"deciding, fail closed", panicky{fail: policy.FailClosed, inDecide: true}, false},
		{"deciding, fail open", panicky{fail: policy.FailOpen, inDecide: true}, true},
		{"recording a deny, fail open", panicky{fail: policy.FailOpen, verdict: call.Deny, inRec: true}, false},
		{"recording an allow, fail open", panicky{fail: policy.FailOpen, verdict: call.Allow, inRec: true}, false},
		{"no verdict", panicky{fail: policy.FailOpen}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, stderr, _ := guardApp(t, guardPolicy, nil)
			tt.p.Service = a.local(nil)
			deps := guardDeps{service: tt.p}
			if got := a.guard(context.Background(), guardOptions{event: eventRun, deps: deps}, "true"); got != tt.run {
				t.Errorf("guard = %v, want %v; stderr %q", got, tt.run, stderr)
			}
			if tt.name != "no verdict" && !strings.Contains(stderr.String(), "internal error") {
				t.Errorf("stderr %q", stderr)
			}
		})
	}
}
