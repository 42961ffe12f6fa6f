package shell

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// deletes reports whether some command of the analysis deletes p.
func deletes(a Analysis, p string) bool {
	for _, c := range a.Commands {
		for _, acc := range c.Accesses {
			if acc.Kind == call.Delete && acc.Path == p {
				return true
			}
		}
	}
	return false
}

// opaqueFinding reports whether some command carries analysis.opaque for a reason other
// than an unknown program.
func opaqueFinding(a Analysis) bool {
	for _, c := range a.Commands {
		for _, f := range c.Findings {
			if f.ID == findOpaque && !strings.Contains(f.Evidence, unknownProgramNote) {
				return true
			}
		}
	}
	return false
}

// Every option the executors table lists as carrying code takes a value in the option
// tables, so that its value is never read as an operand; and each one does what the table
// says: a command line runs (rm deleting /x appears among the commands), a file of code
// outside the project is opaque and one inside is not, code in another language is opaque.
func TestExecutorsTable(t *testing.T) {
	for prog, e := range executors() {
		if !describedByTables(prog) {
			t.Errorf("%s: an executor must be a program the tables know", prog)
		}
		vo := valueOptions()[prog]
		lists := map[string][]string{"shell": e.shell, "remote": e.remote, "files": e.files, "foreign": e.foreign}
		for kind, names := range lists {
			for _, name := range names {
				spelled := optionSpelling(name)
				takes := len(name) == 1 && strings.Contains(vo.short, name) || len(name) > 1 && contains(vo.long, name)
				if !takes {
					t.Errorf("%s %s (%s): the option takes no value in valueOptions", prog, spelled, kind)
					continue
				}
				switch kind {
				case "shell", "remote":
					line := prog + " " + spelled + " 'rm -rf /x'"
					if a := Analyze(line, testEnv); !deletes(a, "/x") {
						t.Errorf("%s: the command line is not analysed\n%s", line, render(a))
					}
				case "files":
					outside := prog + " " + spelled + " /tmp/x"
					if a := Analyze(outside, testEnv); !opaqueFinding(a) {
						t.Errorf("%s: a file of code outside the project is not opaque\n%s", outside, render(a))
					}
					inside := prog + " " + spelled + " scripts/x"
					if a := Analyze(inside, testEnv); opaqueFinding(a) {
						t.Errorf("%s: a file of code of the project is opaque\n%s", inside, render(a))
					}
				case "foreign":
					line := prog + " " + spelled + " 'x'"
					if a := Analyze(line, testEnv); !opaqueFinding(a) {
						t.Errorf("%s: code moat does not read is not opaque\n%s", line, render(a))
					}
				}
			}
		}
	}
}

// Each Ex command is found by its shortest abbreviation and its full name: an entry placed
// after another that takes its abbreviations would never be found.
func TestExCommands(t *testing.T) {
	for _, c := range exCommands() {
		for _, name := range []string{c.name[:c.min], c.name} {
			got, ok := lookupEx(name)
			if !ok || got.name != c.name {
				t.Errorf("%q resolves to %q (found %v), want %q", name, got.name, ok, c.name)
			}
		}
	}
	for _, name := range []string{"e", "ex", "n", "d", "q", "sp", "t", "co", "l", "le"} {
		if c, ok := lookupEx(name); ok {
			t.Errorf("%q is vim's own command, not %q", name, c.name)
		}
	}
}

// The client commands of every database shell run their shell command: each entry that
// runs one, spelled in full and abbreviated, gives rm deleting /x.
func TestDBCommands(t *testing.T) {
	for client, cmds := range dbCommands() {
		for _, c := range cmds {
			got, ok := lookupDBCommand(client, c.name)
			if !ok || got.name != c.name {
				t.Errorf("%s %s resolves to %q", client, c.name, got.name)
			}
			if c.does != dbRunsShell {
				continue
			}
			spellings := []string{c.name}
			if client == "sqlite3" {
				spellings = append(spellings, c.name[:c.min])
			}
			for _, s := range spellings {
				var line string
				switch client {
				case "sqlite3":
					line = "sqlite3 db '" + s + " rm -rf /x'"
				case "psql":
					line = "psql -c '" + s + " rm -rf /x'"
				default:
					line = "mysql -e '" + s + " rm -rf /x'"
				}
				if a := Analyze(line, testEnv); !deletes(a, "/x") {
					t.Errorf("%s: the shell command is not analysed\n%s", line, render(a))
				}
			}
		}
	}
}

// Each tmux command is found by its name and its alias, and runs its shell command.
func TestTmuxCommands(t *testing.T) {
	for _, c := range tmuxCommands() {
		for _, name := range []string{c.name, c.alias} {
			if name == "" {
				continue
			}
			if got, ok := lookupTmux(name); !ok || got.name != c.name {
				t.Errorf("tmux %s resolves to %q", name, got.name)
			}
		}
		var line string
		switch c.code {
		case tmuxTrailing, tmuxFirst:
			line = "tmux " + c.name + " 'rm -rf /x'"
		case tmuxKeys:
			line = "tmux " + c.name + " -t s 'rm -rf /x' Enter"
		default:
			continue
		}
		if a := Analyze(line, testEnv); !deletes(a, "/x") {
			t.Errorf("%s: the shell command is not analysed\n%s", line, render(a))
		}
	}
}

func TestRunnerPackage(t *testing.T) {
	for _, tc := range []struct {
		eco      ecosystem
		spec     string
		name     string
		registry bool
	}{
		{ecoNPM, "prettier", "prettier", true},
		{ecoNPM, "prettier@3.2.0", "prettier", true},
		{ecoNPM, "@biomejs/biome@latest", "@biomejs/biome", true},
		{ecoNPM, "someone/tool", "someone/tool", false},
		{ecoNPM, "github:someone/tool", "github:someone/tool", false},
		{ecoNPM, "https://x.example/p.tgz", "https://x.example/p.tgz", false},
		{ecoNPM, "./vendor/p.tgz", "./vendor/p.tgz", false},
		{ecoNPM, "p.tgz", "p.tgz", false},
		{ecoPyPI, "ruff", "ruff", true},
		{ecoPyPI, "ruff==0.5.0", "ruff", true},
		{ecoPyPI, "black[jupyter]>=24", "black", true},
		{ecoPyPI, "Pip_Tools", "pip-tools", true},
		{ecoPyPI, "git+https://x.example/t.git", "git+https://x.example/t.git", false},
		{ecoPyPI, "dist/t-1.0-py3-none-any.whl", "dist/t-1.0-py3-none-any.whl", false},
	} {
		name, registry := runnerPackage(tc.eco, tc.spec)
		if name != tc.name || registry != tc.registry {
			t.Errorf("runnerPackage(%q) = %q, %v; want %q, %v", tc.spec, name, registry, tc.name, tc.registry)
		}
	}
}

// Every well-known tool is named as its registry names it, so that a spec can match it.
func TestKnownTools(t *testing.T) {
	for eco, tools := range knownTools() {
		for name := range tools {
			if got, ok := runnerPackage(eco, name); !ok || got != name {
				t.Errorf("%q parses as %q (registry %v)", name, got, ok)
			}
		}
	}
}

// Packages a runner fetches are judged: a well-known tool is not opaque, an unknown
// package, a URL, a repository or a tarball is, whichever runner fetches it.
func TestRunners(t *testing.T) {
	runners := []struct {
		prefix string
		eco    ecosystem
	}{
		{"npx ", ecoNPM}, {"npx -y ", ecoNPM}, {"bunx ", ecoNPM}, {"npm exec -- ", ecoNPM}, {"npm x ", ecoNPM},
		{"pnpm dlx ", ecoNPM}, {"yarn dlx ", ecoNPM}, {"bun x ", ecoNPM},
		{"uvx ", ecoPyPI}, {"uv tool run ", ecoPyPI}, {"pipx run ", ecoPyPI},
	}
	for _, r := range runners {
		known := "prettier"
		if r.eco == ecoPyPI {
			known = "ruff"
		}
		for spec, opaque := range map[string]bool{
			known:                         false,
			"unknown-pkg-x9":              true,
			"https://x.example/p.tgz":     true,
			"git+https://x.example/t.git": true,
		} {
			line := r.prefix + spec + " --version"
			if got := opaqueFinding(Analyze(line, testEnv)); got != opaque {
				t.Errorf("%s: opaque %v, want %v", line, got, opaque)
			}
		}
	}
}
