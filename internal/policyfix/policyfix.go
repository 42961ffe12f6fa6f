package policyfix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/atomicfile"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
)

// ErrRefused is wrapped by the errors of changes no policy edit can or should make: a
// self-protection denial, a failure, a call whose arguments the log no longer holds.
var ErrRefused = errors.New("moat fix cannot do this")

// Decider compiles policies and decides calls under them; *decide.Local is one. Give it
// one that holds no session state (rate-limit counters, histories, approvals): Propose
// never records, but a service with state could answer from it rather than the policy.
type Decider interface {
	Compile(src source.Source, d dirs.Dirs) (*decide.Compiled, error)
	Decide(ctx context.Context, req decide.CallRequest) (decide.CallResult, error)
}

// Request is what to fix: the call, the decision wanted, and the policy file to change.
type Request struct {
	// File is the policy file the rule goes into: absolute, existing or (with Create)
	// not yet.
	File string
	// Text is File's content now; with Create, the template the new file starts from.
	Text []byte
	// Create says File does not exist and is created from Text.
	Create bool
	// Dirs are the directories of the user whose policy it is.
	Dirs dirs.Dirs
	Call call.Call
	Want call.Verdict
	// Origin names where the call came from for the rule's description ("record 42").
	Origin string
}

// Proposal is a validated change to a policy file.
type Proposal struct {
	File string
	// Old is the file's content when the change was proposed (nil when it is created),
	// New its content after.
	Old, New []byte
	Create   bool
	// Rule is the id of the rule added; Placed says where ("above rule X", "first").
	Rule   string
	Placed string
	// Diff is the change as a unified diff.
	Diff string
	// Before is how the call is decided now, After how it is with the change.
	Before, After call.Decision
	// Notes say what the rule leaves unmatched (list arguments of an MCP call).
	Notes []string
	// Tests counts the policy's tests, all of which decide as before.
	Tests int

	call call.Call
	want call.Verdict
	dirs dirs.Dirs
	// base is the text the change was made to: Old, or the template a new file starts from.
	base []byte
}

// Fixer proposes and applies policy fixes.
type Fixer struct {
	Decider Decider
	// Dir is where the tests without a cwd run: the policy file's directory when empty.
	Dir string
}

// Propose works out the smallest change to r.File that decides r.Call as r.Want, and
// checks it: the new text loads, the call gets r.Want, the new inline test passes, and
// every other test of the policy decides exactly as before. It writes nothing.
func (f Fixer) Propose(ctx context.Context, r Request) (Proposal, error) {
	if !r.Want.Valid() {
		return Proposal{}, fmt.Errorf("no decision to fix the call to")
	}
	if !filepath.IsAbs(r.File) {
		return Proposal{}, fmt.Errorf("policy file %q is not an absolute path", r.File)
	}
	c := r.Call
	if c.Class == call.MCP && c.MCP != nil {
		if err := checkText("the MCP server and tool", c.MCP.Server+c.MCP.Tool); err != nil {
			return Proposal{}, err
		}
	}
	if err := checkText("the working directory", c.Cwd); err != nil {
		return Proposal{}, err
	}
	if err := walkStrings(c.Args, func(s string) error { return checkText("an argument", s) }); err != nil {
		return Proposal{}, err
	}
	// The call is decided again, under Text compiled as File will be: what was recorded
	// may have been decided under an older policy.
	base, err := f.compile(r.File, r.Text, r.Dirs)
	if err != nil {
		return Proposal{}, err
	}
	before, err := f.decide(ctx, base, c, true)
	if err != nil {
		return Proposal{}, err
	}
	if err := refusal(before, r.Want); err != nil {
		return Proposal{}, err
	}
	doc, err := parseDocument(r.Text)
	if err != nil {
		return Proposal{}, err
	}
	rules, err := doc.section("rules")
	if err != nil {
		return Proposal{}, err
	}
	tests, err := doc.section("tests")
	if err != nil {
		return Proposal{}, err
	}
	var accesses []call.Access
	if before.Trace != nil {
		for _, u := range before.Trace.Units {
			accesses = append(accesses, u.Accesses...)
		}
	}
	ways, err := matches(c, accesses)
	if err != nil {
		return Proposal{}, err
	}
	id := ruleID(c, r.Want, func(id string) bool {
		return slices.ContainsFunc(base.Policy.Rules, func(x *policy.Rule) bool { return x.ID == id })
	})
	test := testItem(c, r.Want)
	oldResults := f.tests(ctx, base, r.File)

	var lastErr error
	for _, t := range tries(ways, positions(rules, before)) {
		pos, item := t.pos, ruleItem(id, t.way.conds, r, before.Decision)
		newText, err := doc.insert(rules, tests, pos.index, item, test)
		if err != nil {
			return Proposal{}, err
		}
		notes := t.way.notes
		if r.Want.Permissive() && (c.Class == call.MCP || c.Class == call.Other) {
			notes = append(notes, "the rule names every argument this call had; a call of the same tool with these and more arguments would match it too")
		}
		p := Proposal{
			File: r.File, New: newText, Create: r.Create, Rule: id, Placed: pos.what,
			Before: before.Decision, Notes: notes, call: c, want: r.Want, dirs: r.Dirs, base: r.Text,
		}
		if !r.Create {
			p.Old = r.Text
		}
		if err := f.validate(ctx, &p, oldResults); err != nil {
			if lastErr == nil || !errors.Is(lastErr, ErrRefused) {
				lastErr = err // a refusal says more than a rule that did not match
			}
			continue
		}
		oldName := r.File + " (now)"
		if r.Create {
			oldName = r.File + " (new)"
		}
		p.Diff = string(diff.Diff(oldName, r.Text, r.File+" (after)", newText))
		return p, nil
	}
	return Proposal{}, lastErr
}

// Apply re-validates p and writes it, refusing when the file changed since p was proposed.
func (f Fixer) Apply(ctx context.Context, p Proposal) error {
	now, err := os.ReadFile(p.File)
	switch {
	case p.Create && err == nil:
		return fmt.Errorf("%s was created since the change was proposed; propose it again", p.File)
	case p.Create && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("reading %s: %w", p.File, err)
	case !p.Create && err != nil:
		return fmt.Errorf("reading %s: %w", p.File, err)
	case !p.Create && !bytes.Equal(now, p.Old):
		return fmt.Errorf("%s changed since the change was proposed; propose it again", p.File)
	}
	base, err := f.compile(p.File, p.base, p.dirs)
	if err != nil {
		return err
	}
	if err := f.validate(ctx, &p, f.tests(ctx, base, p.File)); err != nil {
		return err
	}
	if p.Create {
		if err := os.MkdirAll(filepath.Dir(p.File), 0o700); err != nil {
			return fmt.Errorf("creating %s: %w", filepath.Dir(p.File), err)
		}
		err = atomicfile.WriteNew(p.File, p.New, 0o644)
	} else {
		perm := fs.FileMode(0o644)
		if fi, err := os.Stat(p.File); err == nil {
			perm = fi.Mode().Perm()
		}
		err = atomicfile.WriteFile(p.File, p.New, perm)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", p.File, err)
	}
	return nil
}

// decision is a call's decision with its trace.
type decision struct {
	Decision call.Decision
	Trace    *decide.Trace
}

func (f Fixer) decide(ctx context.Context, c *decide.Compiled, cl call.Call, explain bool) (decision, error) {
	res, err := f.Decider.Decide(ctx, decide.CallRequest{Policy: c.Key(), Event: "moat fix", Calls: []call.Call{cl}, Explain: explain})
	if err != nil {
		return decision{}, fmt.Errorf("deciding the call: %w", err)
	}
	return decision{Decision: res.Decision, Trace: res.Trace}, nil
}

// refusal says why no policy change can decide as want a call decided d, or nil.
func refusal(d decision, want call.Verdict) error {
	cur := d.Decision
	switch {
	case cur.Rule == call.RuleFailClosed || cur.Rule == call.RuleFailOpen:
		return fmt.Errorf("%w: the call was not decided by a rule but failed (%s), and a rule cannot change that; fix what failed", ErrRefused, cur.Reason)
	case cur.Verdict == want:
		return fmt.Errorf("the policy already decides this call %s (rule %s)", want, cur.Rule)
	}
	if want < cur.Verdict && d.Trace != nil {
		for _, u := range d.Trace.Units {
			for _, t := range u.Tried {
				if t.Matched && strings.HasPrefix(t.ID, policy.SelfProtectionPrefix) {
					return fmt.Errorf("%w: self-protection (%s) decides %s, and no policy can loosen it: it keeps an agent from changing or switching off moat", ErrRefused, t.ID, u.Label)
				}
			}
		}
	}
	return nil
}

// try is one rule Propose tries: a way to match the call, at a place.
type try struct {
	way match
	pos position
}

// tries lists the rules to try, best first: the best match at each place, then the others.
func tries(ways []match, places []position) []try {
	var out []try
	for _, w := range ways {
		for _, p := range places {
			out = append(out, try{w, p})
		}
	}
	return out
}

// position is where a rule may go: before the file's rule of that index.
type position struct {
	index int
	what  string
}

// positions lists where the rule may go, best first: directly above the file's own rule
// that decided the call (an exception to it), else after the file's rules (above the
// packs' and the default); then first of all, for a call whose parts earlier rules decide.
func positions(rules section, d decision) []position {
	var items []string
	if rules.value != nil && rules.value.Kind == yaml.SequenceNode {
		for _, it := range rules.value.Content {
			items = append(items, ruleIDOf(it))
		}
	}
	var out []position
	if i := slices.Index(items, d.Decision.Rule); i >= 0 && d.Decision.Rule != "" {
		out = append(out, position{i, "directly above your rule " + d.Decision.Rule + ", as an exception to it"})
	} else {
		out = append(out, position{len(items), "after your rules, above the packs' rules and the default"})
	}
	if out[0].index != 0 {
		out = append(out, position{0, "first among your rules"})
	}
	return out
}

// compile compiles the policy text the change is made to, as the changed text will be:
// as the file at path file.
func (f Fixer) compile(file string, text []byte, d dirs.Dirs) (*decide.Compiled, error) {
	c, err := f.Decider.Compile(source.Source{Kind: source.FromFile, Path: file, Name: file, Data: text}, d)
	if err != nil {
		return nil, fmt.Errorf("the policy does not load as it is; fix it first (moat validate): %w", err)
	}
	return c, nil
}

func (f Fixer) tests(ctx context.Context, c *decide.Compiled, file string) []decide.TestResult {
	dir := f.Dir
	if dir == "" {
		dir = filepath.Dir(file)
	}
	return c.RunTests(ctx, dir)
}

// validate compiles p.New and checks that it decides p's call as wanted, that the new
// test passes, and that every test of the text before (old) decides exactly as before.
func (f Fixer) validate(ctx context.Context, p *Proposal, old []decide.TestResult) error {
	src := source.Source{Kind: source.FromFile, Path: p.File, Name: p.File, Data: p.New}
	c, err := f.Decider.Compile(src, p.dirs)
	if err != nil {
		return fmt.Errorf("the changed policy does not load (this is a bug in moat fix): %w", err)
	}
	after, err := f.decide(ctx, c, p.call, false)
	if err != nil {
		return err
	}
	if after.Decision.Verdict != p.want {
		return fmt.Errorf("no rule moat fix can write decides this call %s: with one, it is still decided %s by %s (%s)", p.want, after.Decision.Verdict, after.Decision.Rule, after.Decision.Reason)
	}
	p.After = after.Decision
	results := f.tests(ctx, c, p.File)
	p.Tests = len(results)
	// The new test is first of the tests (see Propose).
	if len(results) == 0 || !results[0].Passed() {
		msg := "missing"
		if len(results) > 0 {
			msg = results[0].Failure
		}
		return fmt.Errorf("the new test of the call fails: %s", msg)
	}
	rest := results[1:]
	if len(rest) != len(old) {
		return fmt.Errorf("the changed policy has %d tests besides the new one, not %d (this is a bug in moat fix)", len(rest), len(old))
	}
	for i, r := range rest {
		o := old[i]
		if r.Decision.Verdict != o.Decision.Verdict || r.Decision.Rule != o.Decision.Rule {
			return fmt.Errorf("%w: the change would alter test %q (line %d): it is decided %s by %s now, and would be %s by %s; the call may be the test's own", ErrRefused, o.Test.Name, o.Test.Line, o.Decision.Verdict, o.Decision.Rule, r.Decision.Verdict, r.Decision.Rule)
		}
	}
	return nil
}

// ruleIDOf is the id of a rule's YAML item, or "".
func ruleIDOf(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "id" && n.Content[i+1].Kind == yaml.ScalarNode {
			return n.Content[i+1].Value
		}
	}
	return ""
}
