package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/policy/source"
)

func newPacksCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "packs",
		Short: "List the rule packs (moat's and your team's), show their rules, run their tests",
		Long: `Packs are rule sets. A policy enables them by name in its 'packs' or 'extends'
list; their rules come after the policy's own, so the policy's rules can make exceptions.

moat embeds its own packs. A team adds its own as drop-in files, one NAME.yaml per
pack in the same format (pack:, description:, rules:, tests:), in the managed
directory's packs/ (an administrator's, e.g. /etc/moat/packs) or in your
configuration directory's packs/ (~/.config/moat/packs). moat's own packs come first,
then the managed directory's, then yours; a file hidden by an earlier pack of the same
name is listed with the reason it is ignored. Policies using a drop-in pack recompile
when the file changes, and self-protection guards it like the policy.

'moat packs list' lists them, with their rule and test counts, where each comes from,
and whether the recommended policy (the one moat uses when no policy file is found)
enables them. 'moat packs show NAME' shows each rule of a pack: its id, decision,
conditions and reason, and the pack's tests that expect it. 'moat packs test [NAME...]'
runs the packs' inline tests (exit 1 when one fails).`,
		Example: `  moat packs list
  moat packs show containers
  moat packs test               # every pack, yours included
  moat packs test team-deploy   # one drop-in pack's tests`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var listJSON, showJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the rule packs: moat's own and the drop-in ones",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, args []string) error { return a.packsList(listJSON) },
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print the list as JSON")
	show := &cobra.Command{
		Use:   "show NAME [--json]",
		Short: "Show the rules of a pack and their tests",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return a.packsShow(args[0], showJSON) },
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print the pack as JSON")
	var testJSON, testVerbose bool
	test := &cobra.Command{
		Use:   "test [NAME...] [--json]",
		Short: "Run the inline tests of packs (all when none is named)",
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.packsTest(cmd.Context(), args, testJSON, testVerbose)
		},
	}
	test.Flags().BoolVar(&testJSON, "json", false, "print the results as JSON, one object per pack")
	test.Flags().BoolVarP(&testVerbose, "verbose", "v", false, "also list the tests that pass, and show every rule a failing test's call was tried against")
	cmd.AddCommand(list, show, test)
	return cmd
}

type packSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Rules       int    `json:"rules"`
	Tests       int    `json:"tests"`
	// Default says the recommended policy enables the pack.
	Default bool `json:"default"`
	// Path is a drop-in pack's file; empty for moat's own.
	Path string `json:"path,omitempty"`
}

type packRule struct {
	ID          string             `json:"id"`
	Description string             `json:"description,omitempty"`
	Decision    string             `json:"decision"`
	Match       []policy.Condition `json:"match"`
	Reason      string             `json:"reason,omitempty"`
	Tests       []packTest         `json:"tests"`
}

type packTest struct {
	Line   int    `json:"line"`
	Call   string `json:"call"`
	Expect string `json:"expect"`
	Rule   string `json:"rule,omitempty"`
}

type packDetail struct {
	packSummary
	Rules []packRule `json:"rules"`
	// Tests are the pack's tests that name no rule of it.
	Tests []packTest `json:"tests"`
}

// loadPacks compiles the named packs (all, moat's and the drop-in ones, when names is
// empty) for this user, and says which packs the recommended policy enables. Listing
// all of them also warns about each drop-in file that is ignored.
func (a *app) loadPacks(names ...string) ([]*policy.Pack, []string, error) {
	d, err := a.dirs()
	if err != nil {
		return nil, nil, err
	}
	host := a.host(d, "")
	if len(names) == 0 {
		names = policy.PackNames()
		dropIns, err := policy.DropIns(d.PackDirs())
		if err != nil {
			return nil, nil, err
		}
		for _, di := range dropIns {
			if di.Ignored != "" {
				a.warn(fmt.Sprintf("%s is ignored: %s", di.Path, di.Ignored))
				continue
			}
			names = append(names, di.Name)
		}
	}
	var packs []*policy.Pack
	for _, n := range names {
		p, err := policy.LoadPack(n, host, d.PackDirs())
		if err != nil {
			if !packExists(n, d.PackDirs()) {
				return nil, nil, usageError(err)
			}
			return nil, nil, err
		}
		packs = append(packs, p)
	}
	src, err := source.Embedded()
	if err != nil {
		return nil, nil, err
	}
	rec, err := policy.Load(src.Name, src.Data, host)
	if err != nil {
		return nil, nil, fmt.Errorf("the recommended policy: %w", err)
	}
	return packs, rec.Packs, nil
}

// packNames lists every pack this user can enable: moat's own and the drop-in ones in use.
func (a *app) packNames() []string {
	names := policy.PackNames()
	d, err := a.dirs()
	if err != nil {
		return names
	}
	dropIns, _ := policy.DropIns(d.PackDirs())
	for _, di := range dropIns {
		if di.Ignored == "" {
			names = append(names, di.Name)
		}
	}
	return names
}

// packExists tells a name nobody wrote a pack for (a usage error) from a pack that is
// there but broken (an error).
func packExists(name string, dirs []string) bool {
	if slices.Contains(policy.PackNames(), name) {
		return true
	}
	dropIns, err := policy.DropIns(dirs)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(dropIns, func(d policy.DropIn) bool { return d.Name == name && d.Ignored == "" })
}

// packsTest runs the inline tests of the named packs (all when none is), each against a
// policy that enables only that pack over an allow default, as moat's own tests run them.
func (a *app) packsTest(ctx context.Context, names []string, asJSON, verbose bool) error {
	packs, _, err := a.loadPacks(names...)
	if err != nil {
		return err
	}
	d, err := a.dirs()
	if err != nil {
		return err
	}
	cwd, err := a.cwd()
	if err != nil {
		return err
	}
	failed := false
	for _, p := range packs {
		src := source.Source{Kind: source.FromFile, Name: "moat packs test " + p.Name,
			Data: []byte("version: 1\ndefault: allow\npacks: [" + p.Name + "]\n")}
		c, err := a.local(nil).Compile(src, d)
		if err != nil {
			return fmt.Errorf("pack %s: %w", p.Name, err)
		}
		name := p.Path
		if name == "" {
			name = policy.EmbeddedPrefix + "pack/" + p.Name
		}
		err = a.reportTests(name, c.Run(ctx, p.Tests, cwd), asJSON, verbose)
		var code *exitCode
		switch {
		case errors.As(err, &code) && code.code == exitError && code.err == nil:
			failed = true
		case err != nil:
			return err
		}
	}
	if failed {
		return &exitCode{code: exitError}
	}
	return nil
}

func summarize(p *policy.Pack, defaults []string) packSummary {
	return packSummary{Name: p.Name, Description: p.Description, Rules: len(p.Rules), Tests: len(p.Tests), Default: slices.Contains(defaults, p.Name), Path: p.Path}
}

// describeTestCall renders a test's call in one line; MCP and other tools, whose target
// alone says little, get their arguments too.
func describeTestCall(c call.Call) string {
	s := c.Describe()
	if (c.Class == call.MCP || c.Class == call.Other) && len(c.Args) > 0 {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // commands are full of & < >
		if enc.Encode(c.Args) == nil {
			s += " " + strings.TrimSpace(b.String())
		}
	}
	return s
}

func (a *app) packsList(asJSON bool) error {
	packs, defaults, err := a.loadPacks()
	if err != nil {
		return err
	}
	list := make([]packSummary, len(packs))
	for i, p := range packs {
		list[i] = summarize(p, defaults)
	}
	if asJSON {
		return writeJSON(a.env.Stdout, list)
	}
	var b strings.Builder
	width := len("NAME")
	for _, s := range list {
		width = max(width, len(s.Name))
	}
	fmt.Fprintf(&b, "%-*s  %5s  %5s  %-7s  %s\n", width, "NAME", "RULES", "TESTS", "DEFAULT", "DESCRIPTION")
	for _, s := range list {
		def := "no"
		if s.Default {
			def = "yes"
		}
		desc := s.Description
		if s.Path != "" {
			desc += " [" + s.Path + "]"
		}
		fmt.Fprintf(&b, "%-*s  %5d  %5d  %-7s  %s\n", width, s.Name, s.Rules, s.Tests, def, desc)
	}
	b.WriteString("\nDEFAULT: enabled by the recommended policy, which moat uses when no policy file is found.\n" +
		"[PATH]: a drop-in pack, read from that file.\n" +
		"Enable a pack in your policy with `packs: [NAME]`; see its rules with `moat packs show NAME`.\n")
	_, err = fmt.Fprint(a.env.Stdout, b.String())
	return err
}

func (a *app) packsShow(name string, asJSON bool) error {
	packs, defaults, err := a.loadPacks(name)
	if err != nil {
		return err // a usage error, or an error (markErrors)
	}
	p := packs[0]
	det := packDetail{packSummary: summarize(p, defaults), Rules: []packRule{}, Tests: []packTest{}}
	index := map[string]int{}
	for i, r := range p.Rules {
		index[r.ID] = i
		det.Rules = append(det.Rules, packRule{ID: r.ID, Description: r.Description, Decision: r.Decision.String(),
			Match: r.Conditions(), Reason: r.Reason, Tests: []packTest{}})
	}
	for _, t := range p.Tests {
		pt := packTest{Line: t.Line, Call: describeTestCall(t.Call), Expect: t.Expect.String(), Rule: t.Rule}
		if i, ok := index[t.Rule]; ok {
			det.Rules[i].Tests = append(det.Rules[i].Tests, pt)
		} else {
			det.Tests = append(det.Tests, pt)
		}
	}
	if asJSON {
		return writeJSON(a.env.Stdout, det)
	}
	var b strings.Builder
	def := "not enabled by the recommended policy"
	if det.Default {
		def = "enabled by the recommended policy"
	}
	fmt.Fprintf(&b, "%s: %s\n%d rules, %d tests; %s\n", p.Name, p.Description, len(p.Rules), len(p.Tests), def)
	for _, r := range det.Rules {
		fmt.Fprintf(&b, "\n%s  %s\n", r.ID, r.Decision)
		if r.Description != "" {
			fmt.Fprintf(&b, "  %s\n", r.Description)
		}
		if len(r.Match) == 0 {
			b.WriteString("  match:  every call\n")
		}
		for i, c := range r.Match {
			label := "match: "
			if i > 0 {
				label = "   and "
			}
			fmt.Fprintf(&b, "  %s %s: %s\n", label, c.Key, c.Text)
		}
		if r.Reason != "" {
			fmt.Fprintf(&b, "  reason: %s\n", r.Reason)
		}
		for _, t := range r.Tests {
			fmt.Fprintf(&b, "  test:   %-5s %s\n", t.Expect, t.Call)
		}
	}
	if len(det.Tests) > 0 {
		b.WriteString("\nother tests (no rule named):\n")
		for _, t := range det.Tests {
			fmt.Fprintf(&b, "  test:   %-5s %s\n", t.Expect, t.Call)
		}
	}
	_, err = fmt.Fprint(a.env.Stdout, b.String())
	return err
}
