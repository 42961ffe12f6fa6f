package policy

import (
	"fmt"
	"strings"
)

// Condition is one condition of a rule as its file wrote it, for showing the rule to a
// person (`moat packs show`).
type Condition struct {
	// Key is the rule's key: agent, tool, command, findings, args.NAME, paths or limit.
	Key  string `json:"key"`
	Text string `json:"text"`
}

// Conditions lists the rule's conditions in the order they are checked; a rule with none
// matches every call.
func (r *Rule) Conditions() []Condition {
	var out []Condition
	if len(r.agents) > 0 {
		out = append(out, Condition{"agent", joinAgents(r.agents)})
	}
	if r.tool != nil {
		out = append(out, Condition{"tool", strings.Join(r.tool.text, ", ")})
	}
	if r.command != nil {
		out = append(out, Condition{"command", r.command.String()})
	}
	if r.findings != nil {
		out = append(out, Condition{"findings", r.findings.String()})
	}
	for _, a := range r.args {
		out = append(out, Condition{"args." + a.text, a.describe()})
	}
	if r.paths != nil {
		out = append(out, Condition{"paths", strings.Join(r.paths.text, " | ")})
	}
	if r.Limit != nil {
		out = append(out, Condition{"limit", r.Limit.String()})
	}
	return out
}

// describe renders the tests of an args condition: "exists", or each operator and its
// operand.
func (a *argCond) describe() string {
	if a.exists != nil {
		if *a.exists {
			return "exists"
		}
		return "absent"
	}
	parts := make([]string, len(a.ops))
	for i, op := range a.ops {
		name := "?"
		for n, k := range opNames {
			if k == op.kind {
				name = n
			}
		}
		var operand any = op.str
		switch {
		case op.kind == opEq:
			operand = op.val
		case op.re != nil:
			operand = op.re.String()
		case op.isNum:
			operand = op.num
		}
		parts[i] = fmt.Sprintf("%s %v", name, operand)
	}
	return strings.Join(parts, ", ")
}
