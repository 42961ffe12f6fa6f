package shell

import (
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
)

func TestUnguardedAgentCatalogued(t *testing.T) {
	if _, ok := lookupKind(findUnguardedAgent); !ok {
		t.Errorf("finding %q is not declared (kinds.go)", findUnguardedAgent)
	}
}

func hasUnguarded(cmds []call.Command) bool {
	for _, c := range cmds {
		if hasFinding(c.Findings, findUnguardedAgent) {
			return true
		}
	}
	return false
}

// TestAgentTable runs every entry of the agent registry's CLI knowledge through the
// analyser: each option and variable that drops or replaces an agent's hooks is found,
// by each name of each program, and each writer subcommand writes the agent's files.
func TestAgentTable(t *testing.T) {
	for _, row := range agent.All() {
		cli := row.CLI
		for _, prog := range cli.Programs {
			if r := Analyze(prog+" -p 'fix the tests'", testEnv); hasUnguarded(r.Commands) {
				t.Errorf("%s started normally is reported", prog)
			}
			for _, o := range cli.Options {
				for _, n := range o.Names {
					line := prog + " " + optionWords(o, n) + " -p go"
					if r := Analyze(line, testEnv); !hasUnguarded(r.Commands) {
						t.Errorf("%s: not reported", line)
					}
				}
			}
			for _, e := range append(append([]agent.Env(nil), cli.Env...), agent.HomeEnv...) {
				line := e.Name + "=/tmp/elsewhere " + prog + " -p go"
				if r := Analyze(line, testEnv); !hasUnguarded(r.Commands) {
					t.Errorf("%s: not reported", line)
				}
			}
			for _, w := range cli.Writers {
				words := make([]string, len(w.Words))
				for i, alts := range w.Words {
					words[i], _, _ = strings.Cut(alts, "|")
				}
				line := prog + " " + strings.Join(words, " ") + " x"
				r := Analyze(line, testEnv)
				writes := 0
				for _, c := range r.Commands {
					for _, acc := range c.Accesses {
						if acc.Kind == call.Write && strings.HasPrefix(acc.Path, testEnv.Home+"/") {
							writes++
						}
					}
				}
				if writes == 0 {
					t.Errorf("%s writes none of %s's files", line, row.Name)
				}
			}
		}
		for _, pkg := range cli.Packages {
			for _, o := range cli.Options {
				line := "npx -y " + pkg + "@latest " + optionWords(o, o.Names[0])
				if r := Analyze(line, testEnv); !hasUnguarded(r.Commands) {
					t.Errorf("%s: not reported", line)
				}
			}
		}
	}
}

// optionWords spells the option o by its name n, with a value that drops the hooks when
// the value matters.
func optionWords(o agent.Option, n string) string {
	value := "x"
	switch {
	case len(o.Keep) > 0:
		value = "local"
	case len(o.Values) > 0:
		value = strings.ReplaceAll(o.Values[0], "*", "x") + "=false"
	}
	dash := "--"
	if len(n) == 1 {
		dash = "-"
	}
	return dash + n + " '" + value + "'"
}
