package policyfix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// ruleItem is the proposed rule as the lines of a list item.
func ruleItem(id string, conds []string, r Request, before call.Decision) []string {
	from := "this exact call"
	if r.Origin != "" {
		from += " (" + r.Origin + ")"
	}
	lines := []string{
		"id: " + id,
		"description: " + quote(fmt.Sprintf("written by moat fix: %s, which %s decided %s", from, ruleName(before.Rule), before.Verdict)),
	}
	lines = append(lines, conds...)
	lines = append(lines, "decision: "+r.Want.String())
	if !r.Want.Permissive() {
		lines = append(lines, "reason: "+quote(fmt.Sprintf("you chose (moat fix) to %s this exact call", verb(r.Want))))
	}
	return lines
}

func ruleName(id string) string {
	if id == call.RuleDefault {
		return "the policy's default"
	}
	return "rule " + id
}

func verb(v call.Verdict) string {
	switch v {
	case call.Ask:
		return "be asked about"
	case call.Deny:
		return "deny"
	}
	return v.String()
}

// testItem is the inline test of the call, as one flow mapping on the item's line.
func testItem(c call.Call, want call.Verdict) []string {
	var parts []string
	if c.Agent != "" {
		parts = append(parts, "agent: "+string(c.Agent))
	}
	switch c.Class {
	case call.Shell:
		parts = append(parts, "command: "+quote(c.String(call.ArgCommand)))
	case call.MCP:
		parts = append(parts, "tool: "+quote(c.MCP.String()), "args: "+flowJSON(c.Args))
	default:
		parts = append(parts, "tool: "+string(c.Class), "args: "+flowJSON(c.Args))
	}
	if c.Cwd != "" {
		parts = append(parts, "cwd: "+quote(c.Cwd))
	}
	parts = append(parts, "expect: "+want.String())
	return []string{"{" + strings.Join(parts, ", ") + "}"}
}

// flowJSON writes v as JSON, which YAML reads as a flow collection with the same values.
func flowJSON(v any) string {
	if v == nil {
		return "{}"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSpace(b.String())
}
