package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// Subject is what a rule is matched against: one unit of a call. A shell line is decided
// command by command; other calls are one unit.
type Subject struct {
	Call *call.Call
	// Command is the parsed command this unit stands for; nil for non-shell calls and for the
	// unit that carries findings about a shell line as a whole.
	Command  *call.Command
	Accesses []call.Access
	// Opaque means the unit may touch paths that are not in Accesses.
	Opaque   bool
	Findings []call.Finding
	// Workspace lists the absolute roots $workspace stands for in this call.
	Workspace []string

	// judged is what path conditions need of each access, computed by the first rule
	// that looks and kept for the unit's other rules: compiling a glob access once per
	// rule cost more than the rest of the matching. It is for the slice Accesses was
	// then, and rebuilt when Accesses is another slice; elements of Accesses are not
	// changed in place once a subject is matched.
	judged *judgedAccesses
}

// judgedAccesses are a subject's accesses with what matching them needs.
type judgedAccesses struct {
	of  []call.Access
	all []judgedAccess
}

// judgedAccesses returns the subject's accesses, each with what path conditions need.
func (s *Subject) judgedAccesses() []judgedAccess {
	if j := s.judged; j != nil && len(j.of) == len(s.Accesses) && (len(j.of) == 0 || &j.of[0] == &s.Accesses[0]) {
		return j.all
	}
	all := make([]judgedAccess, len(s.Accesses))
	for i, a := range s.Accesses {
		all[i] = judge(a)
	}
	s.judged = &judgedAccesses{of: s.Accesses, all: all}
	return all
}

// Check is the outcome of one condition, for the explain trace.
type Check struct {
	Condition string `json:"condition"`
	Held      bool   `json:"held"`
	Detail    string `json:"detail"`
}

// Match reports whether every condition of the rule holds for s.
func (r *Rule) Match(s *Subject) bool { return r.match(s, nil) }

// Explain is Match that also says, condition by condition, why. It stops at the first
// condition that does not hold, as Match does.
func (r *Rule) Explain(s *Subject) (bool, []Check) {
	var checks []Check
	ok := r.match(s, &checks)
	return ok, checks
}

func (r *Rule) match(s *Subject, checks *[]Check) bool {
	permissive := r.Decision.Permissive()
	c := s.Call
	if len(r.agents) > 0 {
		held := slices.Contains(r.agents, c.Agent)
		if !note(checks, "agent", held, func() string { return fmt.Sprintf("agent %q; rule wants %s", c.Agent, joinAgents(r.agents)) }) {
			return false
		}
	}
	if r.tool != nil {
		held := r.tool.match(c)
		if !note(checks, "tool", held, func() string {
			return fmt.Sprintf("%s (%s); rule wants %s", c.Tool, describeTarget(c), strings.Join(r.tool.text, ", "))
		}) {
			return false
		}
	}
	if r.command != nil {
		p, held := r.command.match(s.Command)
		if !note(checks, "command", held, func() string {
			if s.Command == nil {
				return "this unit is not a command"
			}
			if held {
				return fmt.Sprintf("%s matches %q", renderCommand(s.Command), p.text)
			}
			return fmt.Sprintf("%s matches none of %s", renderCommand(s.Command), r.command.String())
		}) {
			return false
		}
	}
	if r.findings != nil {
		held := r.findings.match(s.Findings, permissive)
		if !note(checks, "findings", held, func() string {
			quant := "any of"
			if permissive {
				quant = "only"
			}
			return fmt.Sprintf("unit has %s; rule wants %s %s", findingIDs(s.Findings), quant, r.findings)
		}) {
			return false
		}
	}
	for _, a := range r.args {
		held := a.match(c.Args, permissive)
		if !note(checks, "args."+a.text, held, func() string {
			var vals []any
			collect(c.Args, a.path, &vals)
			if len(vals) == 0 {
				return "no such argument"
			}
			return fmt.Sprintf("value %s", renderValues(vals))
		}) {
			return false
		}
	}
	if r.paths != nil {
		held := r.paths.match(s.judgedAccesses(), s.Opaque, permissive, s.Workspace)
		if !note(checks, "paths", held, func() string {
			quant := "touches any of"
			if permissive {
				quant = "stays entirely inside"
			}
			acc := "no paths"
			if len(s.Accesses) > 0 {
				parts := make([]string, len(s.Accesses))
				for i, a := range s.Accesses {
					parts[i] = a.String()
				}
				acc = strings.Join(parts, "; ")
			}
			if s.Opaque && permissive {
				acc += "; and may touch paths moat cannot see"
			}
			return fmt.Sprintf("unit %s; rule needs it %s %s", acc, quant, strings.Join(r.paths.text, " | "))
		}) {
			return false
		}
	}
	return true
}

// note records a check when explaining, and passes held through.
func note(checks *[]Check, cond string, held bool, detail func() string) bool {
	if checks != nil {
		*checks = append(*checks, Check{Condition: cond, Held: held, Detail: detail()})
	}
	return held
}

func (cc *commandCond) String() string {
	parts := make([]string, len(cc.patterns))
	for i, p := range cc.patterns {
		parts[i] = fmt.Sprintf("%q", p.text)
	}
	return strings.Join(parts, ", ")
}

func describeTarget(c *call.Call) string {
	if c.MCP != nil {
		return c.MCP.String()
	}
	return string(c.Class)
}

func joinAgents(as []call.Agent) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

func renderCommand(c *call.Command) string {
	return strings.TrimSpace(c.Name + " " + strings.Join(c.Args, " "))
}

func findingIDs(fs []call.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return "findings " + strings.Join(ids, ", ")
}

func renderValues(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		if s, ok := text(v); ok {
			parts[i] = fmt.Sprintf("%q", s)
		} else {
			parts[i] = fmt.Sprintf("%v", v)
		}
	}
	return strings.Join(parts, ", ")
}
