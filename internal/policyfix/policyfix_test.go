package policyfix

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy/source"
)

// fixCase is the case file of a corpus entry: the call, as a hook reports it, and what
// moat fix must do with it.
type fixCase struct {
	Agent string         `json:"agent"`
	Tool  string         `json:"tool"`
	Args  map[string]any `json:"args"`
	Cwd   string         `json:"cwd"` // relative to the project
	// Before is the unwanted decision the policy gives now; Want the one asked for.
	Before string `json:"before"`
	Want   string `json:"want"`
	// Placed, when set, is a phrase of the proposal's placement.
	Placed string `json:"placed"`
	// Refused, when set, is a phrase of the refusal: the fix must be refused.
	Refused string `json:"refused"`
	// Note, when set, is a phrase of a note the proposal must carry.
	Note string `json:"note"`
	// Unchanged are the arguments of calls like this one (same agent, tool and directory)
	// that the fix must leave decided as they were: the rule is exact.
	Unchanged []map[string]any `json:"unchanged"`
}

// env is a fresh HOME with a project (a repository) for a corpus case.
type env struct {
	home, project string
	local         *decide.Local
}

func newEnv(t *testing.T) env {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"HOME": home, "PATH": "/usr/bin:/bin"}
	return env{home: home, project: project, local: decide.NewLocal(decide.Options{Getenv: func(k string) string { return vars[k] }})}
}

func (e env) expand(s string) string {
	return strings.NewReplacer("$HOME", e.home, "$PROJECT", e.project).Replace(s)
}

func (e env) call(t *testing.T, fc fixCase) call.Call {
	t.Helper()
	data, err := json.Marshal(fc.Args)
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(e.expand(string(data))), &args); err != nil {
		t.Fatal(err)
	}
	agent, _ := call.ParseAgent(fc.Agent)
	c, err := call.Canonicalize(agent, fc.Tool, args)
	if err != nil {
		t.Fatal(err)
	}
	c.Cwd = filepath.Join(e.project, fc.Cwd)
	return c
}

func (e env) compile(t *testing.T, file string, text []byte) *decide.Compiled {
	t.Helper()
	d, err := e.local.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.local.Compile(source.Source{Kind: source.FromFile, Path: file, Name: file, Data: text}, d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e env) decide(t *testing.T, c *decide.Compiled, cl call.Call) call.Decision {
	t.Helper()
	res, err := e.local.Decide(context.Background(), decide.CallRequest{Policy: c.Key(), Calls: []call.Call{cl}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Decision
}

// TestCorpus proposes the fix of every case under testdata/corpus, applies it, and checks
// that the call is then decided as wanted, that every test the policy had decides as it
// did, and that the file kept every byte it had (the change only adds lines).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, name := range files {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var policyText []byte
			var fc fixCase
			for _, f := range ar.Files {
				switch f.Name {
				case "moat.yaml":
					policyText = f.Data
				case "case.json":
					if err := json.Unmarshal(f.Data, &fc); err != nil {
						t.Fatal(err)
					}
				}
			}
			e := newEnv(t)
			policyText = []byte(e.expand(string(policyText)))
			file := filepath.Join(e.project, "moat.yaml")
			if err := os.WriteFile(file, policyText, 0o644); err != nil {
				t.Fatal(err)
			}
			inForce := e.compile(t, file, policyText)
			cl := e.call(t, fc)
			want, _ := call.ParseVerdict(fc.Want)
			if got := e.decide(t, inForce, cl); got.Verdict.String() != fc.Before {
				t.Fatalf("the policy decides the call %s (rule %s), not %s as the case says", got.Verdict, got.Rule, fc.Before)
			}
			fx := Fixer{Decider: e.local}
			p, err := fx.Propose(context.Background(), Request{File: file, Text: policyText, Dirs: inForce.Dirs, Call: cl, Want: want, Origin: "record 7"})
			if fc.Refused != "" {
				if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), fc.Refused) {
					t.Fatalf("Propose: %v; want a refusal saying %q", err, fc.Refused)
				}
				return
			}
			if err != nil {
				t.Fatalf("Propose: %v", err)
			}
			if fc.Placed != "" && !strings.Contains(p.Placed, fc.Placed) {
				t.Errorf("placed %q, want %q", p.Placed, fc.Placed)
			}
			// An empty flow list (`rules: []`) is the one thing the change may remove.
			if fc.Note != "" && !strings.Contains(strings.Join(p.Notes, "\n"), fc.Note) {
				t.Errorf("notes %q, want one saying %q", p.Notes, fc.Note)
			}
			if !onlyAdds(strings.ReplaceAll(string(policyText), ": []\n", ":\n"), string(p.New)) {
				t.Errorf("the change does more than add lines:\n%s", p.Diff)
			}
			if err := fx.Apply(context.Background(), p); err != nil {
				t.Fatalf("Apply: %v", err)
			}
			written, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			after := e.compile(t, file, written)
			if got := e.decide(t, after, cl); got.Verdict != want {
				t.Fatalf("after the fix the call is decided %s (rule %s), want %s\n%s", got.Verdict, got.Rule, want, p.Diff)
			}
			for _, args := range fc.Unchanged {
				other := fc
				other.Args = args
				oc := e.call(t, other)
				if b, a := e.decide(t, inForce, oc), e.decide(t, after, oc); b.Verdict != a.Verdict || b.Rule != a.Rule {
					t.Errorf("the fix changed %s: %s by %s, was %s by %s", oc.Describe(), a.Verdict, a.Rule, b.Verdict, b.Rule)
				}
			}
			old := inForce.RunTests(context.Background(), e.project)
			now := after.RunTests(context.Background(), e.project)
			if len(now) != len(old)+1 || !now[0].Passed() {
				t.Fatalf("want the old %d tests and a passing new one, got %d tests (first: %s)", len(old), len(now), now[0].Failure)
			}
			for i, o := range old {
				if n := now[i+1]; n.Decision.Verdict != o.Decision.Verdict || n.Decision.Rule != o.Decision.Rule {
					t.Errorf("test %q changed: %s by %s, was %s by %s", o.Test.Name, n.Decision.Verdict, n.Decision.Rule, o.Decision.Verdict, o.Decision.Rule)
				}
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("diff:\n%s", p.Diff)
			}
		})
	}
}

// onlyAdds reports whether after is before with lines inserted (a last line without its
// line break may gain one).
func onlyAdds(before, after string) bool {
	b := strings.Split(before, "\n")
	i := 0
	for _, l := range strings.Split(after, "\n") {
		if i < len(b) && strings.TrimSuffix(l, "\r") == strings.TrimSuffix(b[i], "\r") {
			i++
		}
	}
	return i == len(b)
}

// TestApply: a proposal is written only over the text it was made from, and a new file
// only where none appeared since.
func TestApply(t *testing.T) {
	e := newEnv(t)
	d, err := e.local.Dirs()
	if err != nil {
		t.Fatal(err)
	}
	cl := e.call(t, fixCase{Tool: "shell", Args: map[string]any{"command": "npm publish"}})
	text := []byte("version: 1\ndefault: ask\n")
	file := filepath.Join(e.project, "moat.yaml")
	fx := Fixer{Decider: e.local}
	propose := func(create bool) Proposal {
		t.Helper()
		p, err := fx.Propose(context.Background(), Request{File: file, Text: text, Create: create, Dirs: d, Call: cl, Want: call.Allow})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	p := propose(true)
	if err := os.WriteFile(file, []byte("version: 1\ndefault: deny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fx.Apply(context.Background(), p); err == nil || !strings.Contains(err.Error(), "was created since") {
		t.Errorf("Apply over a file created since: %v", err)
	}

	if err := os.WriteFile(file, text, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	p = propose(false)
	if err := os.WriteFile(file, append(text, "# edited\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fx.Apply(context.Background(), p); err == nil || !strings.Contains(err.Error(), "changed since") {
		t.Errorf("Apply over a changed file: %v", err)
	}
	if err := os.WriteFile(file, text, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := fx.Apply(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil || string(got) != string(p.New) {
		t.Errorf("written %q, %v; want the proposal", got, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode was not kept: %v %v", fi.Mode(), err)
	}
	// A second fix of the same call is not needed, and says so.
	if _, err := fx.Propose(context.Background(), Request{File: file, Text: got, Dirs: d, Call: cl, Want: call.Allow}); err == nil || !strings.Contains(err.Error(), "already decides") {
		t.Errorf("second Propose: %v", err)
	}
}
