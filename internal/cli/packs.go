package cli

import (
	"encoding/json"
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
		Short: "List the rule packs built into moat, and show their rules",
		Long: `Packs are rule sets built into moat. A policy enables them by name in its 'packs'
list; their rules come after the policy's own, so the policy's rules can make exceptions.

'moat packs list' lists them, with their rule and test counts and whether the
recommended policy (the one moat uses when no policy file is found) enables them.
'moat packs show NAME' shows each rule of a pack: its id, decision, conditions and
reason, and the pack's tests that expect it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	var listJSON, showJSON bool
	list := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the built-in rule packs",
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
	cmd.AddCommand(list, show)
	return cmd
}

type packSummary struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Rules       int    `json:"rules"`
	Tests       int    `json:"tests"`
	// Default says the recommended policy enables the pack.
	Default bool `json:"default"`
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

// loadPacks compiles the named packs (all when names is empty) for this user, and says
// which packs the recommended policy enables.
func (a *app) loadPacks(names ...string) ([]*policy.Pack, []string, error) {
	d, err := a.dirs()
	if err != nil {
		return nil, nil, err
	}
	host := a.host(d, "")
	if len(names) == 0 {
		names = policy.PackNames()
	}
	var packs []*policy.Pack
	for _, n := range names {
		p, err := policy.LoadPack(n, host)
		if err != nil {
			if !slices.Contains(policy.PackNames(), n) {
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

func summarize(p *policy.Pack, defaults []string) packSummary {
	return packSummary{Name: p.Name, Description: p.Description, Rules: len(p.Rules), Tests: len(p.Tests), Default: slices.Contains(defaults, p.Name)}
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
		fmt.Fprintf(&b, "%-*s  %5d  %5d  %-7s  %s\n", width, s.Name, s.Rules, s.Tests, def, s.Description)
	}
	b.WriteString("\nDEFAULT: enabled by the recommended policy, which moat uses when no policy file is found.\n" +
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
