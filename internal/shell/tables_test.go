package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// only returns the line's single command, failing the test when there is not exactly one.
func only(t *testing.T, line string) call.Command {
	t.Helper()
	a := Analyze(line, testEnv)
	if len(a.Commands) != 1 || len(a.Findings) != 0 {
		t.Fatalf("%s: want one command and no line findings, got:\n%s", line, render(a))
	}
	return a.Commands[0]
}

// last returns the line's last command.
func last(t *testing.T, line string) call.Command {
	t.Helper()
	a := Analyze(line, testEnv)
	if len(a.Commands) == 0 {
		t.Fatalf("%s: no commands:\n%s", line, render(a))
	}
	return a.Commands[len(a.Commands)-1]
}

func wantRm(t *testing.T, line string) {
	t.Helper()
	c := only(t, line)
	want := []call.Access{{Kind: call.Delete, Path: "/x", Recursive: true}}
	if c.Name != "rm" || c.Dynamic || !slices.EqualFunc(c.Accesses, want, call.Access.Equal) {
		t.Errorf("%s: want rm deleting /x, got:\n%s", line, render(Analyze(line, testEnv)))
	}
}

// wantRun checks that the line runs rm deleting /x among its commands.
func wantRun(t *testing.T, line string) {
	t.Helper()
	a := Analyze(line, testEnv)
	want := []call.Access{{Kind: call.Delete, Path: "/x", Recursive: true}}
	for _, c := range a.Commands {
		if c.Name == "rm" && slices.EqualFunc(c.Accesses, want, call.Access.Equal) {
			return
		}
	}
	t.Errorf("%s: want rm deleting /x among the commands, got:\n%s", line, render(a))
}

func TestWrappersTable(t *testing.T) {
	for prog, w := range wrappers() {
		t.Run(prog, func(t *testing.T) {
			name := prog
			if prog == "time" {
				name = "/usr/bin/time" // bare, it is bash's keyword, which takes only -p
			}
			operands := strings.Repeat(" 5", w.operands)
			check := wantRm
			if w.joinShell {
				check = wantRun // watch runs its words as a shell line: watch, then rm
			}
			check(t, name+operands+" rm -rf /x")
			check(t, "/usr/bin/"+prog+operands+" rm -rf /x")
			check(t, name+" --"+operands+" rm -rf /x")
			// xargs -a FILE reads FILE, a command of its own beside the one it runs.
			readsFile := func(o string) bool { return prog == "xargs" && (o == "a" || o == "arg-file") }
			for _, c := range w.valueShort {
				chk := check
				if readsFile(string(c)) {
					chk = wantRun
				}
				chk(t, name+" -"+string(c)+" 1"+operands+" rm -rf /x")
				chk(t, name+" -"+string(c)+"1"+operands+" rm -rf /x")
			}
			for _, o := range w.valueLong {
				chk := check
				if readsFile(o) {
					chk = wantRun
				}
				chk(t, name+" --"+o+" 1"+operands+" rm -rf /x")
				chk(t, name+" --"+o+"=1"+operands+" rm -rf /x")
			}
			if w.assigns {
				check(t, name+" A=1 B=2"+operands+" rm -rf /x")
			}
			for _, o := range w.stopShort {
				if c := only(t, name+" -"+string(o)+" rm -rf /x"); c.Name != prog {
					t.Errorf("-%c: want %s itself, got %s", o, prog, c.Name)
				}
			}
			for _, o := range w.stopLong {
				if c := only(t, name+" --"+o+" rm -rf /x"); c.Name != prog {
					t.Errorf("--%s: want %s itself, got %s", o, prog, c.Name)
				}
			}
			// A string the wrapper splits is code: static, it is analysed; dynamic, the
			// program is unknown.
			for _, o := range w.dynamicShort {
				wantRun(t, name+" -"+string(o)+strings.Repeat(" 5", w.operands)+" 'rm -rf /x'")
				if c := last(t, name+" -"+string(o)+strings.Repeat(" 5", w.operands)+` "$cmd"`); !c.Dynamic {
					t.Errorf("-%c: want a dynamic command, got %s", o, c.Name)
				}
			}
			for _, o := range w.dynamicLong {
				wantRun(t, name+" --"+o+"='rm -rf /x'"+strings.Repeat(" 5", w.operands))
			}
			if w.chdirShort != "" {
				c := only(t, name+" -"+w.chdirShort+" /srv rm -r data")
				if want := []call.Access{{Kind: call.Delete, Path: "/srv/data", Recursive: true}}; !slices.EqualFunc(c.Accesses, want, call.Access.Equal) {
					t.Errorf("-%s: got %v", w.chdirShort, c.Accesses)
				}
			}
			if c := only(t, name); c.Name != prog {
				t.Errorf("alone: want %s, got %s", prog, c.Name)
			}
		})
	}
}

func TestFlagAliasesTable(t *testing.T) {
	for prog, aliases := range flagAliases() {
		for from, to := range aliases {
			dash := "-"
			if len(from) > 1 {
				dash = "--"
			}
			c := only(t, prog+" "+dash+from+" a b")
			if !c.HasFlag(from) || !c.HasFlag(to) {
				t.Errorf("%s %s%s: want flags %s and %s, got %v", prog, dash, from, from, to, c.Flags)
			}
		}
	}
}

func TestProgramEffectsTable(t *testing.T) {
	for prog, eff := range programEffects() {
		if _, ok := editorPrograms()[prog]; ok {
			continue // their writes depend on their options: TestEditors
		}
		t.Run(prog, func(t *testing.T) {
			line := prog + " a b c"
			if prog == "eval" || prog == "ssh" {
				line = prog // they run their words as code
			}
			if _, ok := wrappers()[prog]; ok {
				line = "command " + prog // a wrapper with no program is the command
			}
			c := only(t, line)
			if c.Opaque {
				t.Errorf("known program is opaque")
			}
			if len(eff.rules) == 0 {
				if len(c.Accesses) != 0 {
					t.Errorf("no file effects, got %v", c.Accesses)
				}
				return
			}
			for _, r := range eff.rules {
				if !slices.ContainsFunc(c.Accesses, func(acc call.Access) bool { return acc.Kind == r.kind }) {
					t.Errorf("rule %v: no %s access in %v", r, r.kind, c.Accesses)
				}
			}
			for _, acc := range c.Accesses {
				if !strings.HasPrefix(acc.Path, testEnv.Cwd+"/") || acc.Recursive != eff.alwaysRecursive {
					t.Errorf("unexpected %v", acc)
				}
			}
			if eff.recursive == "" {
				return
			}
			flag := "-" + eff.recursive
			c = only(t, prog+" "+flag+" a b c")
			for _, acc := range c.Accesses {
				if !acc.Recursive {
					t.Errorf("%s: %v is not recursive", flag, acc)
				}
			}
		})
	}
}

func TestNotPathsTable(t *testing.T) {
	for p := range notPaths {
		for _, line := range []string{"cat " + p, "echo a > " + p, "cat < " + p, "tee " + p} {
			if c := only(t, line); len(c.Accesses) != 0 {
				t.Errorf("%s: got %v", line, c.Accesses)
			}
		}
		want := []call.Access{{Kind: call.Delete, Path: p}}
		if c := only(t, "rm "+p); !slices.EqualFunc(c.Accesses, want, call.Access.Equal) {
			t.Errorf("rm %s: got %v", p, c.Accesses)
		}
	}
}

func TestStateTables(t *testing.T) {
	for name := range dirChangers {
		c := last(t, name+" /srv && cat a")
		switch want := []call.Access{{Kind: call.Read, Path: "/srv/a"}}; {
		case name == "popd":
			if !c.Opaque {
				t.Errorf("%s: the cwd after it is unknown, got %v", name, c.Accesses)
			}
		case c.Opaque || !slices.EqualFunc(c.Accesses, want, call.Access.Equal):
			t.Errorf("%s: got %v", name, c.Accesses)
		}
	}
	for name := range evaluators {
		if c := last(t, "x=ls; "+name+" y; $x"); !c.Dynamic {
			t.Errorf("%s: want $x unknown after it, got %s", name, c.Name)
		}
		if c := last(t, "cd /srv; "+name+" y; cat a"); !c.Opaque {
			t.Errorf("%s: want the cwd unknown after it, got %v", name, c.Accesses)
		}
	}
	for name, opt := range varSetters() {
		args := " x"
		if opt != "" {
			args = " -" + opt + " x y"
		}
		// builtin makes it a plain command even where bash parses a declaration.
		if c := last(t, "x=ls; builtin "+name+args+"; $x"); !c.Dynamic {
			t.Errorf("%s: want $x unknown after it, got %s", name, c.Name)
		}
		if c := last(t, "x=ls; builtin "+name+" z; $x"); c.Dynamic && opt != "" {
			t.Errorf("%s: only -%s names a variable, yet $x is unknown", name, opt)
		}
	}
}

func TestNesting(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"echo a", 0},
		{"$(a $(b)) (c)", 2},
		{"))) ((", 2},
		{"${a[$((1))]}", 4},
	}
	for _, tt := range tests {
		if got := nesting(tt.s); got != tt.want {
			t.Errorf("nesting(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestANSIC(t *testing.T) {
	tests := []struct{ in, want string }{
		{`plain`, "plain"},
		{`\x72\x6D`, "rm"},
		{`\x7`, "\x07"},
		{`\xg`, `\xg`},
		{`\101\0102`, "A\b2"}, {`\101\0z`, "A"},
		{`\u00e9\U0001F600`, "é😀"},
		{`\cA\c`, "\x01\\c"},
		{`a\`, `a\`},
		{`\e\E\a\b\f\n\r\t\v\\\'\"\?`, "\x1b\x1b\a\b\f\n\r\t\v\\'\"?"},
		{`\z`, `\z`},
	}
	for _, tt := range tests {
		if got := ansiC(tt.in); got != tt.want {
			t.Errorf("ansiC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsPattern(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"a", false}, {"*", true}, {"a?", true}, {`\*`, false}, {"[", false}, {"[a]", true},
		{"[]", false}, {"[]]", true}, {"[!]", false}, {"[!a]", true}, {`[\]`, false}, {"x[", false},
	}
	for _, tt := range tests {
		if got := isPattern(tt.s); got != tt.want {
			t.Errorf("isPattern(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
