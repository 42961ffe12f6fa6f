package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
)

// EmbeddedPrefix starts the Source of a policy that is built into the binary.
const EmbeddedPrefix = "embedded:"

var (
	topKeys  = []string{"version", "serial", "extends", "default", "fail", "hooks", "approvals", "output", "mcp", "workspace", "wrappers", "packs", "rules", "tests", "sandbox", "forbid_allow"}
	packKeys = []string{"version", "pack", "description", "rules", "tests"}
	ruleKeys = []string{"id", "description", "tool", "command", "paths", "args", "findings", "agent", "decision", "reason", "limit"}
	testKeys = []string{"name", "agent", "tool", "command", "args", "cwd", "expect", "rule"}
)

// Load reads and compiles the policy document data, which came from name (a file path, or
// EmbeddedPrefix+NAME). Every mistake in the document is reported, with its position, in
// the returned ErrorList.
//
// Files named by `extends` are read from disk, within the repository of name (see
// LoadWith).
func Load(name string, data []byte, host Host) (*Policy, error) {
	return LoadWith(name, data, host, LoadOptions{})
}

// LoadWith is Load with the options that say how files named by `extends` are read.
func LoadWith(name string, data []byte, host Host, opts LoadOptions) (*Policy, error) {
	l := newLoader(name, host)
	l.inc = newIncludes(name, opts)
	l.path = l.inc.path
	root, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	p := &Policy{Source: name, Default: call.Ask, Fail: FailClosed, Hooks: DefaultHooks, Approvals: DefaultApprovals, Output: DefaultOutput, MCP: DefaultMCP}
	fields, ok := l.mapping(root, "the policy", topKeys)
	if !ok {
		return nil, l.errs.sorted()
	}
	byKey := make(map[string]field, len(fields))
	p.Keys = make(map[string]int, len(fields))
	for _, f := range fields {
		byKey[f.key] = f
		p.Keys[f.key] = f.knode.Line
	}
	l.version(byKey, root)
	if f, ok := byKey["serial"]; ok {
		p.Serial = l.serial(f.value)
	}
	if f, ok := byKey["default"]; ok {
		if v, ok := l.verdict(f.value, "default"); ok {
			p.Default = v
		}
	}
	if f, ok := byKey["fail"]; ok {
		if s, ok := l.str(f.value, "fail"); ok {
			switch FailMode(s) {
			case FailClosed, FailOpen:
				p.Fail = FailMode(s)
			default:
				l.errorf(f.value, "fail must be closed or open, not %q", s)
			}
		}
	}
	if f, ok := byKey["hooks"]; ok {
		p.Hooks = l.hooks(f.value)
	}
	if f, ok := byKey["approvals"]; ok {
		p.Approvals = l.approvals(f.value)
	}
	if f, ok := byKey["output"]; ok {
		p.Output = l.output(f.value)
	}
	if f, ok := byKey["mcp"]; ok {
		p.MCP = l.mcp(f.value)
	}
	if f, ok := byKey["workspace"]; ok {
		p.Workspace = l.workspace(f.value, name)
	}
	if f, ok := byKey["wrappers"]; ok {
		p.Wrappers = l.wrappers(f.value)
	}
	if f, ok := byKey["rules"]; ok {
		p.Rules = l.rules(f.value, name)
	}
	if f, ok := byKey["extends"]; ok {
		l.extends(p, f)
	}
	if f, ok := byKey["packs"]; ok {
		l.packs(p, f)
	}
	if f, ok := byKey["forbid_allow"]; ok {
		p.ForbidAllow = l.forbidAllow(f.value)
	}
	if f, ok := byKey["tests"]; ok {
		p.Tests = l.tests(f.value)
	}
	if f, ok := byKey["sandbox"]; ok {
		p.Sandbox = l.sandbox(f.value)
	}
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	p.byClass = index(p.Rules)
	p.Included = l.inc.files
	return p, nil
}

// packs enables the packs listed in f, appending their rules to p's.
func (l *loader) packs(p *Policy, f field) {
	for _, r := range p.Rules {
		if r.unconditional() {
			l.errorf(f.value, "the packs' rules can never match: rule %q at line %d has no conditions and matches every call first", r.ID, r.Line)
		}
	}
	for _, it := range l.packItems(f) {
		// A pack enabled through extends already is enabled once.
		if !slices.Contains(p.Packs, it.val) {
			l.enablePack(p, it)
		}
	}
}

// enablePack appends the rules of the pack it names to p's.
func (l *loader) enablePack(p *Policy, it item) {
	// A pack's tests are for `moat test` and for moat's own tests; a policy
	// that enables the pack needs only its rules.
	var dirs []string
	if l.inc != nil {
		dirs = l.inc.packDirs
	}
	pack, err := loadPack(it.val, l.host, dirs, false)
	if err != nil {
		l.errorf(it.node, "%v", err)
		return
	}
	if pack.Path != "" {
		// A drop-in pack is a file this policy depends on, as an included one is: its
		// edits recompile the policy, and self-protection guards it.
		l.inc.files = append(l.inc.files, pack.Path)
	}
	p.Packs = append(p.Packs, it.val)
	for _, r := range pack.Rules {
		if prev, dup := l.ids[r.ID]; dup {
			l.errorf(it.node, "pack %q has a rule %q, the same id as the rule at line %d", it.val, r.ID, prev.Line)
			continue
		}
		l.ids[r.ID] = r
		p.Rules = append(p.Rules, r)
	}
}

// Pack is a rule set enabled by name from a policy's `packs` or `extends`: embedded in
// the binary, or a team's own in a drop-in directory.
type Pack struct {
	Name string
	// Path is the drop-in file the pack was read from; "" for an embedded pack.
	Path        string
	Description string
	Rules       []*Rule
	Tests       []Test
}

type loader struct {
	reader
	host Host
	ids  map[string]*Rule
	// sets holds the path sets compiled so far, by the text that names them.
	sets map[string]*pathTerm
	// builtin allows the reserved self-protection ids.
	builtin bool
	// inc reads the files named by `extends`; nil in packs and self-protection.
	inc *includes
	// path is the file of the document read, absolute; "" when it has none (embedded).
	path string
}

func newLoader(name string, host Host) *loader {
	return &loader{reader: reader{file: name}, host: host, ids: make(map[string]*Rule), sets: make(map[string]*pathTerm)}
}

// parseDocument parses exactly one YAML document and returns its root node. The caller
// must not change the tree: an embedded document's is shared static data.
func parseDocument(name string, data []byte) (*yaml.Node, error) {
	if root := preparsed(data); root != nil {
		return root, nil
	}
	return parseYAML(name, data)
}

// parseYAML runs the YAML parser on data, which must hold exactly one document.
func parseYAML(name string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, ErrorList{{File: name, Line: 1, Msg: "the policy is empty; it must start with `version: 1`"}}
		}
		return nil, ErrorList{syntaxError(name, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, ErrorList{{File: name, Line: extra.Line, Col: extra.Column, Msg: "a policy file holds one YAML document; remove the second one (after ---)"}}
	} else if !errors.Is(err, io.EOF) {
		return nil, ErrorList{syntaxError(name, err)}
	}
	if len(doc.Content) == 0 {
		return nil, ErrorList{{File: name, Line: 1, Msg: "the policy is empty; it must start with `version: 1`"}}
	}
	return doc.Content[0], nil
}

// yamlLine is compiled on first use: only a policy with a syntax error needs it.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): (.*)$`) })

// syntaxError turns the YAML parser's message into a positioned error. The parser reports a
// line but no column.
func syntaxError(name string, err error) *Error {
	msg := err.Error()
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: name, Line: line, Msg: "YAML syntax: " + m[2]}
	}
	return &Error{File: name, Msg: "YAML syntax: " + strings.TrimPrefix(msg, "yaml: ")}
}

func (l *loader) version(byKey map[string]field, root *yaml.Node) {
	f, ok := byKey["version"]
	if !ok {
		l.errorf(root, "missing `version: 1` at the top of the policy")
		return
	}
	v := resolve(f.value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Value != "1" {
		l.errorf(v, "version must be 1, not %s", describe(v))
	}
}

func (l *loader) verdict(n *yaml.Node, what string) (call.Verdict, bool) {
	s, ok := l.str(n, what)
	if !ok {
		return 0, false
	}
	v, ok := call.ParseVerdict(s)
	if !ok {
		l.errorf(n, "%s must be allow, audit, ask or deny, not %q%s", what, s, suggest(s, []string{"allow", "audit", "ask", "deny"}))
		return 0, false
	}
	return v, true
}

func (l *loader) workspace(n *yaml.Node, source string) []string {
	items, ok := l.strs(n, "workspace")
	if !ok {
		return nil
	}
	var roots []string
	for _, it := range items {
		p := it.val
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(l.host.Home, strings.TrimPrefix(p[1:], "/"))
		case filepath.IsAbs(p):
		case strings.HasPrefix(source, EmbeddedPrefix):
			l.errorf(it.node, "workspace %q is relative, and an embedded policy has no directory to resolve it against", p)
			continue
		default:
			p = filepath.Join(filepath.Dir(source), p)
		}
		roots = append(roots, filepath.Clean(p))
	}
	return roots
}

// LoadPack compiles the pack name for host: moat's embedded pack of that name, or else
// the first of dirs (drop-in directories, see DropInDir) holding NAME.yaml.
func LoadPack(name string, host Host, dirs []string) (*Pack, error) {
	return loadPack(name, host, dirs, true)
}

func loadPack(name string, host Host, dirs []string, withTests bool) (*Pack, error) {
	source, data, path, err := findPack(name, dirs)
	if err != nil {
		return nil, err
	}
	l := newLoader(source, host)
	root, err := parseDocument(source, data)
	if err != nil {
		return nil, err
	}
	fields, ok := l.mapping(root, "the pack", packKeys)
	if !ok {
		return nil, l.errs.sorted()
	}
	pack := &Pack{Name: name, Path: path}
	byKey := make(map[string]field, len(fields))
	for _, f := range fields {
		byKey[f.key] = f
	}
	l.version(byKey, root)
	if f, ok := byKey["pack"]; ok {
		if s, ok := l.str(f.value, "pack"); ok && s != name {
			l.errorf(f.value, "pack file %s.yaml names itself %q", name, s)
		}
	}
	if f, ok := byKey["description"]; ok {
		pack.Description, _ = l.str(f.value, "description")
	}
	if f, ok := byKey["rules"]; ok {
		pack.Rules = l.rules(f.value, "pack "+name)
	}
	if f, ok := byKey["tests"]; ok && withTests {
		pack.Tests = l.tests(f.value)
	}
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	return pack, nil
}

func (l *loader) rules(n *yaml.Node, origin string) []*Rule {
	nodes, ok := l.seq(n, "rules")
	if !ok {
		return nil
	}
	rules := make([]*Rule, 0, len(nodes))
	var catchAll *Rule
	for _, rn := range nodes {
		r := l.rule(rn, origin)
		if r == nil {
			continue
		}
		if catchAll != nil {
			l.errorf(rn, "rule %q can never match: rule %q at line %d has no conditions and matches every call first", r.ID, catchAll.ID, catchAll.Line)
		} else if r.unconditional() {
			catchAll = r
		}
		rules = append(rules, r)
	}
	return rules
}

func (l *loader) rule(n *yaml.Node, origin string) *Rule {
	fields, ok := l.mapping(n, "a rule", ruleKeys)
	if !ok {
		return nil
	}
	before := len(l.errs)
	r := &Rule{Origin: origin, Line: n.Line}
	byKey := make(map[string]field, len(fields))
	for _, f := range fields {
		byKey[f.key] = f
	}
	if f, ok := byKey["id"]; ok {
		if id, ok := l.str(f.value, "id"); ok {
			switch {
			case !validRuleID(id):
				l.errorf(f.value, "rule id %q must start with a letter or digit and hold only letters, digits and . _ / -", id)
			case id == call.RuleDefault || id == call.RuleFailClosed || id == call.RuleFailOpen || id == RuleForbidAllow || (strings.HasPrefix(id, SelfProtectionPrefix) && !l.builtin):
				l.errorf(f.value, "rule id %q is reserved by moat", id)
			default:
				if prev, dup := l.ids[id]; dup {
					l.errorf(f.value, "duplicate rule id %q (first at line %d)", id, prev.Line)
				} else {
					l.ids[id] = r
				}
			}
			r.ID = id
		}
	} else {
		l.errorf(n, "rule has no id")
	}
	if f, ok := byKey["description"]; ok {
		r.Description, _ = l.str(f.value, "description")
	}
	if f, ok := byKey["reason"]; ok {
		r.Reason, _ = l.str(f.value, "reason")
	}
	if f, ok := byKey["decision"]; ok {
		r.Decision, _ = l.verdict(f.value, "decision")
	} else {
		l.errorf(n, "rule %q has no decision (allow, audit, ask or deny)", r.ID)
	}
	if f, ok := byKey["limit"]; ok {
		r.Limit = l.limit(f.value, r)
	}
	if f, ok := byKey["tool"]; ok {
		r.tool = l.toolCond(f.value)
	}
	if f, ok := byKey["command"]; ok {
		r.command = l.commandCond(f.value)
	}
	if f, ok := byKey["paths"]; ok {
		r.paths = l.pathsCond(f.value)
	}
	if f, ok := byKey["args"]; ok {
		r.args = l.argConds(f.value)
	}
	if f, ok := byKey["findings"]; ok {
		r.findings = l.findingsCond(f.value)
	}
	if f, ok := byKey["agent"]; ok {
		r.agents = l.agents(f.value)
	}
	if len(l.errs) > before {
		return nil
	}
	r.classes = l.classes(r, n)
	if len(l.errs) > before {
		return nil
	}
	return r
}

func (l *loader) agents(n *yaml.Node) []call.Agent {
	items, ok := l.strs(n, "agent")
	if !ok {
		return nil
	}
	known := make([]string, len(call.Agents()))
	for i, a := range call.Agents() {
		known[i] = string(a)
	}
	var out []call.Agent
	for _, it := range items {
		a, ok := call.ParseAgent(it.val)
		if !ok {
			l.errorf(it.node, "unknown agent %q%s (known: %s)", it.val, suggest(it.val, known), strings.Join(known, ", "))
			continue
		}
		out = append(out, a)
	}
	return out
}

// classes works out which classes a rule can match, and reports a rule whose conditions
// rule out every class (it could never match).
func (l *loader) classes(r *Rule, n *yaml.Node) []call.Class {
	var out []call.Class
	for _, c := range call.Classes {
		if r.tool != nil && !r.tool.classes[c] {
			continue
		}
		if r.command != nil && c != call.Shell {
			continue
		}
		if r.paths != nil && !r.paths.possibleFor(c) {
			continue
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		switch {
		case r.command != nil:
			l.errorf(n, "rule %q can never match: `command` applies only to shell calls, and its `tool` excludes shell", r.ID)
		default:
			l.errorf(n, "rule %q can never match: its `paths` access kinds never occur in calls of the classes its `tool` names (%s)", r.ID, strings.Join(r.tool.text, ", "))
		}
		return nil
	}
	if r.tool != nil && len(r.agents) > 0 && !r.tool.possibleForAgents(r.agents) {
		l.errorf(n, "rule %q can never match: none of the agents it names has a tool it names", r.ID)
	}
	return out
}

func (r *Rule) unconditional() bool {
	return r.tool == nil && r.command == nil && r.paths == nil && r.args == nil && r.findings == nil && r.agents == nil && r.Limit == nil
}

// index lists, per class, the rules that can match it, in order.
func index(rules []*Rule) map[call.Class][]*Rule {
	by := make(map[call.Class][]*Rule, len(call.Classes))
	for _, r := range rules {
		for _, c := range r.classes {
			by[c] = append(by[c], r)
		}
	}
	return by
}

func (l *loader) tests(n *yaml.Node) []Test {
	nodes, ok := l.seq(n, "tests")
	if !ok {
		return nil
	}
	var tests []Test
	for i, tn := range nodes {
		if t, ok := l.test(tn, i); ok {
			tests = append(tests, t)
		}
	}
	return tests
}

func (l *loader) test(n *yaml.Node, i int) (Test, bool) {
	fields, ok := l.mapping(n, "a test", testKeys)
	if !ok {
		return Test{}, false
	}
	before := len(l.errs)
	t := Test{Name: fmt.Sprintf("test %d", i+1), Line: n.Line}
	byKey := make(map[string]field, len(fields))
	for _, f := range fields {
		byKey[f.key] = f
	}
	if f, ok := byKey["name"]; ok {
		t.Name, _ = l.str(f.value, "name")
	}
	var agent call.Agent
	if f, ok := byKey["agent"]; ok {
		if as := l.agents(f.value); len(as) == 1 {
			agent = as[0]
		} else if len(as) > 1 {
			l.errorf(f.value, "a test is one call, made by one agent")
		}
	}
	var args map[string]any
	if f, ok := byKey["args"]; ok {
		v, ok := l.value(f.value)
		m, isMap := v.(map[string]any)
		if ok && !isMap {
			l.errorf(f.value, "args must be a mapping, not %s", describe(f.value))
		}
		args = m
	}
	cmdField, hasCmd := byKey["command"]
	toolField, hasTool := byKey["tool"]
	switch {
	case hasCmd && hasTool:
		l.errorf(toolField.knode, "a test has either `command` (a shell call) or `tool`, not both")
	case hasCmd:
		if s, ok := l.str(cmdField.value, "command"); ok {
			if args == nil {
				args = map[string]any{}
			}
			args[call.ArgCommand] = s
			t.Call, _ = call.Canonicalize(agent, string(call.Shell), args)
		}
	case hasTool:
		if s, ok := l.str(toolField.value, "tool"); ok {
			c, err := call.Canonicalize(agent, s, args)
			if err != nil {
				l.errorf(toolField.value, "%v", err)
			}
			t.Call = c
		}
	default:
		l.errorf(n, "a test needs `command` (a shell call) or `tool` and `args`")
	}
	if _, named := byKey["name"]; !named && t.Call.Class != "" {
		t.Name = t.Call.Describe()
	}
	if f, ok := byKey["cwd"]; ok {
		if s, ok := l.str(f.value, "cwd"); ok {
			if !filepath.IsAbs(s) && s != "~" && !strings.HasPrefix(s, "~/") {
				l.errorf(f.value, "cwd must be an absolute path or start with ~/")
			}
			t.Call.Cwd = s
		}
	}
	if f, ok := byKey["expect"]; ok {
		t.Expect, _ = l.verdict(f.value, "expect")
	} else {
		l.errorf(n, "a test needs `expect` (allow, audit, ask or deny)")
	}
	if f, ok := byKey["rule"]; ok {
		if id, ok := l.str(f.value, "rule"); ok {
			if _, known := l.ids[id]; !known && id != call.RuleDefault && !strings.HasPrefix(id, SelfProtectionPrefix) {
				l.errorf(f.value, "test expects rule %q, which is not defined in this policy or its packs%s", id, suggest(id, mapKeys(l.ids)))
			}
			t.Rule = id
		}
	}
	return t, len(l.errs) == before
}

// value converts a YAML node to the Go value JSON decoding would give (maps, slices,
// strings, json-like numbers, booleans, nil), reporting what JSON cannot hold.
func (l *loader) value(n *yaml.Node) (any, bool) {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		fields, ok := l.mapping(n, "a mapping", nil)
		m := make(map[string]any, len(fields))
		for _, f := range fields {
			v, good := l.value(f.value)
			ok = ok && good
			m[f.key] = v
		}
		return m, ok
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		ok := true
		for _, c := range n.Content {
			v, good := l.value(c)
			ok = ok && good
			s = append(s, v)
		}
		return s, ok
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return n.Value, true
		case "!!null":
			return nil, true
		case "!!bool":
			return n.Value == "true", true
		case "!!int", "!!float":
			if f, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return f, true
			}
		}
	}
	l.errorf(n, "%s is not a value a tool call can carry", describe(n))
	return nil, false
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// validRuleID reports whether id is a rule id: a letter or digit, then letters, digits and
// . _ / -.
func validRuleID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '/' && c != '-') {
			return false
		}
	}
	return id != ""
}
