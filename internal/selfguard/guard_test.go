package selfguard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell"
)

const (
	testHome = "/home/u"
	testCwd  = "/home/u/project"
)

// lineCase is a shell line, what the guard must report on it (a substring of the
// finding's evidence, or "" for nothing), and the line moat would run, if any.
type lineCase struct {
	line string
	want string
	runs string
}

var lineCases = []lineCase{
	// Every spelling pflag and cobra accept.
	{line: "moat setup --uninstall", want: "moat setup (--uninstall): removes moat's hooks"},
	{line: "moat setup --uninstall=true", want: "(--uninstall)"},
	{line: "moat setup --uninstall=1", want: "(--uninstall)"},
	{line: "moat setup --uninstall=t", want: "(--uninstall)"},
	{line: "moat setup --uninstall=False", want: "points the agents' hooks"}, // from a binary that is not the running one
	{line: "moat --uninstall=T setup", want: "(--uninstall)"},
	{line: "moat --all setup --uninstall"}, // --all takes "setup" as its value: the root runs
	{line: "moat setup --uninstall --dry-run"},
	{line: "moat setup --uninstall --dry-run=0", want: "(--uninstall)"},
	{line: "moat setup --uninstall -h"},
	{line: "moat setup -- --uninstall", want: "points the agents' hooks"}, // an agent named --uninstall, from an unknown binary
	{line: "moat setup --uninst", want: "unknown flag"},                   // refused by this build, maybe not by another
	{line: "moat mcp pin github --accept", want: "moat mcp pin (--accept)"},
	{line: "moat mcp pin github"},
	{line: "moat mcp unwrap --all", want: "moat mcp unwrap: takes MCP servers out"},
	{line: "moat mcp unwrap --all --dry-run"},
	{line: "moat trust", want: "moat trust: trusts"},
	{line: "moat trust --list"},
	{line: "moat trust --diff moat.yaml"},
	{line: "moat init", want: "moat init: writes a moat.yaml"},
	{line: "moat init --help"},
	{line: "moat check --record -- ls", want: "(--record)"},
	{line: "moat check --stdin --policy p.yaml", want: "moat check (--stdin, --policy)"},
	{line: "moat check --policy p.yaml -- ls"},
	{line: "moat check --explain -- rm -rf /"},
	{line: "moat hook claude-code --policy=p.yaml", want: "moat hook (--policy)"},
	{line: "moat hook claude-code"},
	{line: "moat version --json"},
	{line: "moat logs -fn 5"},
	{line: "moat help setup"},
	{line: "moat nosuch --uninstall"},

	// The environment.
	{line: "MOAT_POLICY=/tmp/p moat run -- ls", want: "moat run (MOAT_POLICY)", runs: "ls"},
	{line: "env MOAT_AGENT=aider moat run -- ls", want: "moat run (MOAT_AGENT)", runs: "ls"},
	{line: "HOME=/tmp/h moat hook claude-code", want: "moat hook (HOME)"},
	{line: "export TMPDIR=/home/u; moat run -- ls", want: "moat run (TMPDIR)", runs: "ls"},
	{line: "MOAT_REAL_SHELL=/tmp/x moat-shell -c ls", want: "moat shell (MOAT_REAL_SHELL)", runs: "sh -c ls"},
	{line: "MOAT_POLICY=/tmp/p moat check -- ls"},
	{line: `echo "$MOAT_POLICY" ${HOME} ${#TMPDIR}; moat run -- ls`, runs: "ls"},
	{line: "export MOAT_POLICY=/tmp/p", want: "export MOAT_POLICY: would carry over"},
	{line: "export MOAT_HOOK_DEADLINE=1s"},
	{line: "export HOME=/tmp/h"},

	// Arguments only known at run time.
	{line: `moat setup "$X"`, want: "flags only known when the line runs"},
	{line: `moat $CMD --uninstall`, want: "a command only known when the line runs"},
	{line: `moat run --policy "$P" -- ls`, want: "(--policy)", runs: "ls"},
	{line: `moat run --policy="$P" -- ls`, want: "(--policy)", runs: "ls"},
	{line: `moat check --agent "$A" -- ls`},
	{line: `moat check --agent $A -- ls`, want: "flags only known"},
	{line: `moat check -- "$CMD"`},
	{line: `moat logs --since "$S"`},
	{line: `moat setup --dry-run="$D" --uninstall`, want: "(--uninstall)"},
	{line: `moat run -- rm -rf "$DIR"`, runs: `rm -rf "$DIR"`},
	{line: `moat setup *`, want: "flags only known"},
	{line: `moat setup --uninstall=*`, want: "flags only known"},
	{line: `moat logs -f*00`}, // a pattern that is no flag's value, of a command that loosens nothing

	// What moat runs.
	{line: "moat run -- rm -rf ~", runs: "rm -rf /home/u"},
	{line: "moat launch --profile none -- sh -c 'make test'", runs: "sh -c 'make test'"},
	{line: "moat launch --dry-run -- claude"},
	{line: "moat mcp proxy --name fs -- npx server /tmp", runs: "npx server /tmp"},
	{line: "moat mcp proxy --upstream https://example.com/mcp --stdio"},
	{line: "moat shell -lc 'go test ./...'", runs: "sh -lc 'go test ./...'"},
	{line: "moat shell --install-link /home/u/.local/bin"},

	// moat under other names.
	{line: "go run github.com/moatdev/moat/cmd/moat@v1.2.3 setup --uninstall", want: "go run of github.com/moatdev/moat/cmd/moat"},
	{line: "go run -tags netgo ./cmd/moat trust", want: "moat trust"},
	{line: "go run github.com/someone/moat/cmd/moat init", want: "moat init"},
	{line: "go run ./cmd/tool --help"},
	{line: "go build -o /tmp/m ./cmd/moat && /tmp/m setup --uninstall", want: "/tmp/m is written on this line"},
	{line: "cp x /tmp/m; /tmp/m trust", want: "/tmp/m is written on this line"},
	{line: "/nonexistent/m trust", want: "does not exist yet"},
	{line: "/nonexistent/m version"},
	{line: "/nonexistent/m setup"}, // may be moat, but only what its words say counts
	{line: "x=moat; $x setup --uninstall", want: "moat setup (--uninstall)"},
	{line: "$TOOL init", want: "the program is only known when the line runs"},
	{line: "exec -a x moat-shell setup --uninstall", want: "moat setup (--uninstall)"},
	{line: "moat-hook --policy /tmp/p claude-code", want: "moat hook (--policy)"},
	{line: "PATH=/tmp/bin:$PATH helper init", want: "helper is found through the PATH this line sets"},
	{line: "git init"},
	{line: "npm init -y"},
	{line: "docker run -it alpine"},
	{line: "cargo run -- --policy x"},

	// Commands to come.
	{line: "moat approve 3f2a", want: "moat approve: approves a call held in moat's approval queue"},
	{line: "moat approve --session 3f2a", want: "moat approve: approves"},
	{line: "moat approve --always 3f2a", want: "moat approve: approves"},
	{line: "moat deny 3f2a", want: "moat deny: answers a call held in moat's approval queue"},
	{line: "moat approvals"},
	{line: "moat approvals --json"},
	{line: "moat mcp --force unwrap"}, // no placeholder under mcp: this build's refusal stands

	// The daemon's service: removing it is loosening; installing it is not, unless the
	// service runs another binary or a policy the line chooses.
	{line: "moat daemon stop", want: "moat daemon stop: stops"},
	{line: "moat daemon uninstall", want: "moat daemon uninstall: removes"},
	{line: "moat daemon uninstall --json", want: "moat daemon uninstall: removes"},
	{line: "moat daemon --force uninstall"}, // no placeholder under daemon now: this build refuses the line
	{line: "moat daemon --force stop"},
	{line: "moat daemon install", want: "installs moat's daemon as a service that runs a moat binary other than"},
	{line: "moat daemon install --print"},
	// The daemon decides for every process that asks it: one from an unknown binary, or
	// with a policy the line chooses, would decide with rules the agent chose.
	{line: "moat daemon start", want: "starts moat's daemon from a moat binary other than"},
	{line: "moat daemon status"},
}

func analyse(line string) []call.Command {
	return shell.Analyze(line, shell.Env{Cwd: testCwd, Home: testHome}).Commands
}

// judge returns every finding's evidence and every run of the line, joined.
func judge(g *Guard, line string) (findings, runs string) {
	var fs, rs []string
	for _, j := range g.Line(analyse(line), line, testCwd) {
		for _, f := range j.Findings {
			if f.ID != FindingID {
				fs = append(fs, "wrong id "+f.ID)
			}
			fs = append(fs, f.Evidence)
		}
		rs = append(rs, j.Runs...)
	}
	return strings.Join(fs, "\n"), strings.Join(rs, "\n")
}

func TestLine(t *testing.T) {
	g := New(Options{})
	g.readBuild = func(string) (string, error) { return "", errors.New("not a Go binary") }
	for _, tc := range lineCases {
		findings, runs := judge(g, tc.line)
		switch {
		case tc.want == "" && findings != "":
			t.Errorf("%s: want no finding, got\n  %s", tc.line, findings)
		case tc.want != "" && !strings.Contains(findings, tc.want):
			t.Errorf("%s: want a finding with %q, got\n  %s", tc.line, tc.want, findings)
		}
		if runs != tc.runs {
			t.Errorf("%s: runs %q, want %q", tc.line, runs, tc.runs)
		}
	}
}

// TestIdentity checks that files are known as moat by what they are: the running
// binary through a link, a build of moat's main package under any name (by path, or on
// the PATH), and nothing else.
func TestIdentity(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(name), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	running := write("running")
	copyOfMoat := write("tool")
	other := write("other")
	hook := write("relay")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(running, link); err != nil {
		t.Fatal(err)
	}
	builds := map[string]string{copyOfMoat: mainPackage, hook: Module + "/cmd/moat-hook", other: "example.com/other"}
	g := New(Options{Binary: running, Path: dir})
	g.readBuild = func(p string) (string, error) {
		if pkg, ok := builds[p]; ok {
			return pkg, nil
		}
		return "", errors.New("not a Go binary")
	}
	cases := []lineCase{
		{line: link + " trust", want: link + " is the moat binary"},
		{line: copyOfMoat + " trust", want: copyOfMoat + " is a build of " + mainPackage},
		{line: "tool setup --uninstall=1", want: "moat setup (--uninstall)"},
		{line: "tool setup", want: "points the agents' hooks at a moat binary other than the one that runs them"},
		{line: "link setup"},          // the running binary: a new install is no loosening
		{line: "link mcp wrap --all"}, // likewise
		{line: "link daemon start --tcp 127.0.0.1:7000"},
		{line: "link daemon stop", want: "moat daemon stop: stops moat's daemon"},
		{line: "link daemon run --no-record", want: "without recording"},
		{line: "MOAT_POLICY=/tmp/p link daemon start", want: "for every call the daemon decides"},
		{line: "tool daemon run", want: "runs moat's daemon from a moat binary other than"},
		{line: "link daemon install"}, // the running binary: a service of the moat that runs the hooks
		{line: "link daemon install --force --tcp 127.0.0.1:7000 --json"},
		{line: "tool daemon install", want: "installs moat's daemon as a service that runs a moat binary other than"},
		{line: "MOAT_POLICY=/tmp/p link daemon install", want: "for every call the daemon decides, at every login"},
		{line: "XDG_CONFIG_HOME=/tmp/c link daemon install --force", want: "for every call the daemon decides, at every login"},
		{line: "MOAT_POLICY=/tmp/p link daemon install --print"},
		{line: "link daemon uninstall", want: "moat daemon uninstall: removes moat's daemon service"},
		{line: "tool mcp wrap --dry-run"}, // a dry run
		{line: "other setup --uninstall"},
		{line: "other init"},
		{line: "tool version"},
		{line: "relay --policy /tmp/p claude-code", want: "moat hook (--policy)"},
		{line: "moat setup", want: "points the agents' hooks"}, // moat on the PATH here is no file at all
	}
	for _, tc := range cases {
		findings, _ := judge(g, tc.line)
		switch {
		case tc.want == "" && findings != "":
			t.Errorf("%s: want no finding, got\n  %s", tc.line, findings)
		case tc.want != "" && !strings.Contains(findings, tc.want):
			t.Errorf("%s: want a finding with %q, got\n  %s", tc.line, tc.want, findings)
		}
	}
}

// TestGoRunLocal checks go run of a local package: moat's when it imports moat's
// packages, not moat's otherwise, and maybe moat when it is not there yet.
func TestGoRunLocal(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"forked/main.go": "package main\n\nimport \"github.com/moatdev/moat/internal/cli\"\n\nfunc main() { cli.Main(nil, cli.OSEnv()) }\n",
		"tool/main.go":   "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := New(Options{})
	cases := []lineCase{
		{line: "go run ./forked setup --uninstall", want: "imports moat's packages"},
		{line: "go run forked/main.go trust", want: "imports moat's packages"},
		{line: "go run ./tool setup --uninstall"},
		{line: "go run ./tool init"},
		{line: "go run ./missing init", want: "does not exist yet"},
		{line: "go run ./forked version"},
	}
	for _, tc := range cases {
		var fs []string
		for _, j := range g.Line(shell.Analyze(tc.line, shell.Env{Cwd: dir, Home: testHome}).Commands, tc.line, dir) {
			for _, f := range j.Findings {
				fs = append(fs, f.Evidence)
			}
		}
		findings := strings.Join(fs, "\n")
		switch {
		case tc.want == "" && findings != "":
			t.Errorf("%s: want no finding, got\n  %s", tc.line, findings)
		case tc.want != "" && !strings.Contains(findings, tc.want):
			t.Errorf("%s: want a finding with %q, got\n  %s", tc.line, tc.want, findings)
		}
	}
}

func TestSetsVar(t *testing.T) {
	cases := []struct {
		text string
		want bool
	}{
		{"MOAT_POLICY=x moat run", true},
		{"export MOAT_POLICY", true},
		{"env -u MOAT_POLICY moat run", true},
		{`sh -c "MOAT_POLICY=x moat run"`, true},
		{"echo $MOAT_POLICY", false},
		{"echo ${MOAT_POLICY:-x}", false},
		{"echo ${#MOAT_POLICY} ${!MOAT_POLICY}", false},
		{"MY_MOAT_POLICY=x", false},
		{"MOAT_POLICY_FILE=x", false},
		{"echo $MOAT_POLICY; MOAT_POLICY=y", true},
	}
	for _, tc := range cases {
		if got := setsVar(tc.text, "MOAT_POLICY"); got != tc.want {
			t.Errorf("setsVar(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestTablesValid checks the tables against the generated tree; internal/cli checks
// them against the CLI's own.
func TestTablesValid(t *testing.T) {
	for _, err := range Validate(Surface()) {
		t.Error(err)
	}
}

// FuzzLine feeds the guard arbitrary lines, analysed as the engine analyses them: it
// must never panic, and a line naming moat's uninstall in full is always found.
func FuzzLine(f *testing.F) {
	for _, tc := range lineCases {
		f.Add(tc.line)
	}
	g := New(Options{})
	g.readBuild = func(string) (string, error) { return "", errors.New("not a Go binary") }
	f.Fuzz(func(t *testing.T, line string) {
		cmds := analyse(line)
		out := g.Line(cmds, line, testCwd)
		if out != nil && len(out) != len(cmds) {
			t.Fatalf("%d judgments for %d commands", len(out), len(cmds))
		}
	})
}

func BenchmarkLine(b *testing.B) {
	g := New(Options{})
	for _, line := range []string{"go test ./...", "git status && git diff --stat", "moat check -- ls", "moat setup --uninstall"} {
		cmds := analyse(line)
		b.Run(line, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Line(cmds, line, testCwd)
			}
		})
	}
}
