package decide

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/sessionhistory"
)

// sequence is a corpus entry: calls of agent sessions in order, each decided and recorded
// as a hook decides and records it, with what the later ones must get.
type sequence struct {
	Name  string `yaml:"name"`
	Steps []step `yaml:"steps"`
}

type step struct {
	Agent   string         `yaml:"agent"`   // claude-code when empty
	Session string         `yaml:"session"` // s1 when empty; "-" for none
	Tool    string         `yaml:"tool"`    // Bash when empty
	Command string         `yaml:"command"` // the command of a shell tool
	Args    map[string]any `yaml:"args"`    // the arguments of another tool
	// Dry decides the call without recording it, as moat check does: it reads the
	// history and changes nothing.
	Dry bool `yaml:"dry"`
	// Want is the decision the call must get, when set.
	Want string `yaml:"want"`
	// Finding must be among the call's findings, its evidence containing Evidence.
	Finding  string   `yaml:"finding"`
	Evidence string   `yaml:"evidence"`
	Absent   []string `yaml:"absent"`
	// Inline is the chain written as one line, decided alone: the call must get the
	// same decision.
	Inline string `yaml:"inline"`
}

// historyService is a Local for a fresh HOME, under the embedded recommended policy,
// keeping session histories in the HOME's state directory.
func historyService(t *testing.T) (*Local, string) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "work", "app")
	for _, d := range []string{".git/hooks", "scripts", "build"} {
		if err := os.MkdirAll(filepath.Join(project, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	l := NewLocal(Options{Getenv: getenv, Now: time.Now})
	d, err := l.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	l.opts.History = sessionhistory.Open(sessionhistory.Options{Dir: d.Sessions()})
	l.opts.Warn = func(msg string) { t.Errorf("warning: %s", msg) }
	return l, project
}

func (s step) call(t *testing.T, project string) call.Call {
	t.Helper()
	agent, tool := call.Agent(s.Agent), s.Tool
	if agent == "" {
		agent = call.ClaudeCode
	}
	if tool == "" {
		tool = "Bash"
	}
	args := s.Args
	if s.Command != "" {
		args = map[string]any{"command": s.Command}
	}
	c, err := call.Canonicalize(agent, tool, args)
	if err != nil {
		t.Fatal(err)
	}
	c.Cwd, c.Project = project, project
	switch s.Session {
	case "":
		c.Session = "s1"
	case "-":
	default:
		c.Session = s.Session
	}
	return c
}

func decideOne(t *testing.T, l *Local, c call.Call, record bool) CallResult {
	t.Helper()
	ctx := context.Background()
	pol, err := l.Lookup(ctx, Scope{Cwd: c.Cwd})
	if err != nil {
		t.Fatal(err)
	}
	res, err := l.Decide(ctx, CallRequest{Policy: pol.Key, Event: "PreToolUse", Calls: []call.Call{c}, Record: record})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotRecorded) > 0 {
		t.Fatalf("not recorded: %v", res.NotRecorded)
	}
	return res
}

// Every sequence of the corpus, through Local.Decide with a real history in a temporary
// state directory: the later call of a chain split over calls gets the finding and the
// decision of the chain written in one line; the benign sequences beside them do not.
func TestSequences(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "sequences", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sequences: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var seqs []sequence
		if err := yaml.Unmarshal(data, &seqs); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, seq := range seqs {
			t.Run(filepath.Base(file)+"/"+seq.Name, func(t *testing.T) {
				l, project := historyService(t)
				for i, s := range seq.Steps {
					c := s.call(t, project)
					d := decideOne(t, l, c, !s.Dry).Decision
					where := c.Describe()
					if s.Want != "" && d.Verdict.String() != s.Want {
						t.Errorf("step %d %s: %s (%s), want %s", i+1, where, d.Verdict, d.Reason, s.Want)
					}
					if s.Finding != "" && !slices.ContainsFunc(d.Findings, func(f call.Finding) bool {
						return f.ID == s.Finding && strings.Contains(f.Evidence, s.Evidence)
					}) {
						t.Errorf("step %d %s: no %s with %q in %v", i+1, where, s.Finding, s.Evidence, d.Findings)
					}
					for _, id := range s.Absent {
						if slices.ContainsFunc(d.Findings, func(f call.Finding) bool { return f.ID == id }) {
							t.Errorf("step %d %s: unwanted %s in %v", i+1, where, id, d.Findings)
						}
					}
					if s.Inline != "" {
						inline := step{Command: s.Inline, Session: "inline"}.call(t, project)
						if in := decideOne(t, l, inline, false).Decision; in.Verdict != d.Verdict {
							t.Errorf("step %d %s: %s (%s), but in one line %s (%s)", i+1, where, d.Verdict, d.Reason, in.Verdict, in.Reason)
						}
					}
				}
			})
		}
	}
}
