package policyfix

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/audit"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan"
)

// match is a way to match a call: the conditions of a rule, as YAML lines under the
// rule's item (without the item's indentation), and notes on what they leave unmatched.
type match struct {
	conds []string
	notes []string
}

// matches returns the ways to match exactly c in the policy language, best first. accesses
// are the paths the call touches as the engine saw them: a file call is matched by the
// paths it touches, however the agent spelled them, and else by its arguments.
func matches(c call.Call, accesses []call.Access) ([]match, error) {
	first, notes, err := conditions(c, accesses)
	if err != nil {
		return nil, err
	}
	out := []match{{first, notes}}
	switch c.Class {
	case call.FileRead, call.FileWrite, call.FileEdit, call.FileDelete:
		// A path the engine takes for a pattern (it holds glob characters) is judged by
		// the directory it starts from, which a `paths` condition of an allow rule cannot
		// cover exactly; the path argument, compared as a string, can.
		if p, ok := c.Args[call.ArgPath].(string); ok {
			out = append(out, match{conds: []string{"tool: " + string(c.Class), "args:", "  path: " + quote(p)}})
		}
	}
	return out, nil
}

// conditions returns the first way matches lists, or why there is none.
func conditions(c call.Call, accesses []call.Access) ([]string, []string, error) {
	switch c.Class {
	case call.Shell:
		// Matching the whole line, not its parsed commands: a `command:` pattern matches
		// each command of a line alone (so it would also match the same command inside
		// other lines) and never the part of a line that carries findings about the line
		// as a whole (a download piped into a shell). The line as the agent sent it is
		// exactly this call.
		line, ok := c.Args[call.ArgCommand].(string)
		if !ok || line == "" {
			return nil, nil, fmt.Errorf("the shell call has no command")
		}
		return []string{"tool: shell", "args:", "  command: " + quote(line)}, nil, nil
	case call.FileRead, call.FileWrite, call.FileEdit, call.FileDelete:
		paths := pathConditions(accesses)
		if len(paths) == 0 {
			return nil, nil, fmt.Errorf("moat cannot tell which path the %s call touches", c.Class)
		}
		return append([]string{"tool: " + string(c.Class), "paths:"}, paths...), nil, nil
	case call.FileSearch, call.WebFetch:
		// Only the arguments that say what is searched or fetched: a fetch's prompt is
		// what the agent wants to know, not what it reaches.
		lines := []string{"tool: " + string(c.Class)}
		keep := map[string]any{}
		for _, k := range call.ArgKeys[c.Class] {
			if v, ok := c.Args[k]; ok {
				keep[k] = v
			}
		}
		args, notes := argConditions(keep)
		if len(args) == 0 {
			return nil, nil, fmt.Errorf("the %s call has no arguments to match", c.Class)
		}
		return append(append(lines, "args:"), args...), notes, nil
	case call.MCP:
		if c.MCP == nil {
			return nil, nil, fmt.Errorf("the MCP call names no server and tool")
		}
		lines := []string{"tool: " + quote("mcp:"+globLiteral(c.MCP.Server)+"/"+globLiteral(c.MCP.Tool))}
		args, notes := argConditions(c.Args)
		if len(args) > 0 {
			lines = append(append(lines, "args:"), args...)
		} else if len(c.Args) == 0 {
			notes = append(notes, "the call has no arguments: the rule matches every call of this tool")
		}
		return lines, notes, nil
	}
	return nil, nil, fmt.Errorf("moat fix does not write rules for calls of class %s; edit the policy by hand", c.Class)
}

// pathConditions renders a `paths` condition naming exactly the paths accessed, by kind.
func pathConditions(accesses []call.Access) []string {
	byKind := map[string][]string{}
	for _, a := range accesses {
		p := globLiteral(a.Path)
		if a.Glob {
			p = a.Path // the access is itself a pattern, which the rule names as it is
		}
		if a.Recursive {
			p = strings.TrimSuffix(p, "/") + "/**"
		}
		k := a.Kind.String()
		if !slices.Contains(byKind[k], p) {
			byKind[k] = append(byKind[k], p)
		}
	}
	var lines []string
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		quoted := make([]string, len(byKind[k]))
		for i, p := range byKind[k] {
			quoted[i] = quote(p)
		}
		lines = append(lines, "  "+k+": ["+strings.Join(quoted, ", ")+"]")
	}
	return lines
}

// argConditions renders an `args` condition comparing every scalar argument, at any
// depth, with its value: list elements by index, with the element after the last one
// absent, so that a longer list does not match.
func argConditions(args map[string]any) ([]string, []string) {
	var lines, notes []string
	var value func(path string, v any)
	value = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				lines = append(lines, "  "+quote(path)+": {exists: true}")
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if k == "" || k == "*" || strings.Contains(k, `\`) {
					notes = append(notes, fmt.Sprintf("argument %q of %q cannot be named in a rule and is not matched", k, path))
					continue
				}
				value(path+"."+strings.ReplaceAll(k, ".", `\.`), v[k])
			}
		case []any:
			if len(v) == 0 {
				lines = append(lines, "  "+quote(path)+": {exists: true}")
			}
			for i, e := range v {
				value(path+"."+strconv.Itoa(i), e)
			}
			lines = append(lines, "  "+quote(path+"."+strconv.Itoa(len(v)))+": {exists: false}")
		default:
			if s, ok := scalar(v); ok {
				lines = append(lines, "  "+quote(path)+": "+s)
			} else {
				notes = append(notes, fmt.Sprintf("argument %q is not matched", path))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if k == "" || k == "*" || strings.Contains(k, `\`) {
			notes = append(notes, fmt.Sprintf("argument %q cannot be named in a rule and is not matched", k))
			continue
		}
		value(strings.ReplaceAll(k, ".", `\.`), args[k])
	}
	return lines, notes
}

// scalar renders a scalar argument as a YAML value that loads back as the same value.
func scalar(v any) (string, bool) {
	switch v := v.(type) {
	case nil:
		return "null", true
	case bool:
		return strconv.FormatBool(v), true
	case string:
		return quote(v), true
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), true
	case int:
		return strconv.Itoa(v), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case interface{ String() string }: // json.Number
		s := v.String()
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s, true
		}
	}
	return "", false
}

// quote writes s as a YAML double-quoted scalar. Go's escapes for valid UTF-8 are YAML's
// too; invalid UTF-8 never reaches here (see checkText).
func quote(s string) string { return strconv.Quote(s) }

// globLiteral escapes the glob metacharacters of s, so that a pattern made of it matches
// s alone.
func globLiteral(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]{}\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// checkText refuses what cannot be matched exactly: a value the audit log redacted or
// clipped (the secret or the cut part is gone, and a rule would match the marker), and
// text that is not UTF-8.
func checkText(what, s string) error {
	switch {
	case strings.Contains(s, scan.MaskPrefix) || strings.Contains(s, audit.Mask):
		return fmt.Errorf("%w: %s holds a value the audit log redacted (a secret), which a rule cannot match exactly; decide this call with `moat check` and a rule you write yourself", ErrRefused, what)
	case strings.Contains(s, audit.ClipMark):
		return fmt.Errorf("%w: %s was clipped in the audit log (only its start was kept), so a rule cannot match it exactly", ErrRefused, what)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrRefused, what)
	}
	return nil
}

// walkStrings calls fn with every key and string in v, at any depth.
func walkStrings(v any, fn func(string) error) error {
	switch v := v.(type) {
	case string:
		return fn(v)
	case map[string]any:
		for k, e := range v {
			if err := fn(k); err != nil {
				return err
			}
			if err := walkStrings(e, fn); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := walkStrings(e, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// ruleID derives an id from the call: fix-VERDICT-CLASS-WORDS, short, unique among taken.
func ruleID(c call.Call, want call.Verdict, taken func(string) bool) string {
	var subject string
	switch c.Class {
	case call.Shell:
		subject = c.String(call.ArgCommand)
	case call.MCP:
		if c.MCP != nil {
			subject = c.MCP.Server + " " + c.MCP.Tool
		}
	case call.WebFetch:
		subject = c.String(call.ArgURL)
		subject = strings.TrimPrefix(strings.TrimPrefix(subject, "https://"), "http://")
	case call.FileSearch:
		subject = c.String(call.ArgPattern)
	default:
		p := c.String(call.ArgPath)
		if i := strings.LastIndexAny(p, `/\`); i >= 0 {
			p = p[i+1:]
		}
		subject = p
	}
	base := "fix-" + want.String() + "-" + slug(string(c.Class)+" "+subject, 40)
	base = strings.TrimRight(base, "-")
	id := base
	for n := 2; taken(id); n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	return id
}

// slug keeps the letters and digits of s, lowercased, with one dash for each run of
// anything else, cut to at most n bytes.
func slug(s string, n int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if b.Len() >= n {
			break
		}
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}
