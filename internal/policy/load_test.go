package policy

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
)

func testHost() Host {
	return Host{Home: "/home/u", Temp: []string{"/tmp"}, Moat: []string{"/home/u/.config/moat/**"}}
}

func TestLoadValid(t *testing.T) {
	src := `version: 1
default: deny
fail: open
hooks: {allow: explicit, deadline: 1500ms}
output: {injection: block}
mcp: {changed_tools: warn}
workspace: [., ~/other]
packs: [recommended]
rules:
  - id: allow-build
    description: cleaning the build
    tool: shell
    command: "rm -rf ./build"
    paths: {delete: [$workspace]}
    decision: allow
  - id: payments
    tool: mcp:stripe/create_*
    args:
      amount: {gt: 1000}
      currency: usd
    decision: ask
    reason: large payment
  - id: claude-only
    agent: claude-code
    tool: [Read, file.search]
    paths: {read: ["$home/notes/**", "!~/notes/private/**"]}
    decision: audit
tests:
  - {command: "rm -rf ./build", expect: allow, rule: allow-build}
  - tool: mcp:stripe/create_charge
    args: {amount: "5000", currency: usd}
    expect: ask
`
	p, err := Load("/proj/moat.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p.Default != call.Deny || p.Fail != FailOpen {
		t.Errorf("default/fail = %v/%v", p.Default, p.Fail)
	}
	if p.Output != (Output{Injection: OutputBlock, Secrets: OutputWarn}) {
		t.Errorf("output = %+v; want injection blocked, secrets at the default (warn)", p.Output)
	}
	if p.Hooks != (Hooks{Allow: HookAllowExplicit, Ask: HookAskAuto, Deadline: 1500 * time.Millisecond}) {
		t.Errorf("hooks = %+v; want explicit allows, asks at the default (auto), a deadline of 1.5s", p.Hooks)
	}
	if p.MCP.ChangedTools != ChangedToolWarn {
		t.Errorf("mcp.changed_tools = %q; want warn", p.MCP.ChangedTools)
	}
	if got := strings.Join(p.Workspace, ","); got != "/proj,/home/u/other" {
		t.Errorf("workspace = %s", got)
	}
	if p.Rules[0].ID != "allow-build" || p.Rules[3].Origin != "pack recommended" {
		t.Errorf("rule order: user rules must come before pack rules: %s, %s", p.Rules[0].ID, p.Rules[3].Origin)
	}
	if len(p.Tests) != 2 || p.Tests[1].Call.Class != call.MCP || p.Tests[1].Call.MCP.Server != "stripe" {
		t.Errorf("tests = %+v", p.Tests)
	}
	// The index keeps rules for other classes out of a class's candidates.
	for _, r := range p.Candidates(call.MCP) {
		if r.ID == "allow-build" || r.ID == "claude-only" {
			t.Errorf("rule %s is a candidate for mcp calls", r.ID)
		}
	}
	if got := p.Candidates(call.Shell); len(got) == 0 || got[0].ID != "allow-build" {
		t.Errorf("shell candidates start with %v", got)
	}
}

// loadErrorCases are policies with mistakes and the errors they must produce; FuzzLoad
// uses them as seeds too.
var loadErrorCases = []struct {
	name string
	src  string
	want []string // each must appear, in this order, in the error list
}{
	{"empty", ``, []string{"p.yaml:1: the policy is empty"}},
	{"output action", "version: 1\noutput:\n  injection: blok\n  secrets: 3\n  pages: warn\n", []string{
		`p.yaml:3:14: output.injection must be one of warn, block, not "blok" (did you mean "block"?)`,
		"p.yaml:4:12: output.secrets must be a string",
		`p.yaml:5:3: unknown key "pages" in output`}},
	{"mcp changed_tools", "version: 1\nmcp:\n  changed_tools: hide\n  poisoned: warn\n", []string{
		`p.yaml:3:18: mcp.changed_tools must be one of block, warn, not "hide"`,
		`p.yaml:4:3: unknown key "poisoned" in mcp`}},
	{"mcp not a mapping", "version: 1\nmcp: warn\n", []string{"p.yaml:2:6: mcp must be a mapping"}},
	{"hooks forms", "version: 1\nhooks:\n  allow: explict\n  ask: never\n  deny: x\n", []string{
		`p.yaml:3:10: hooks.allow must be one of defer, explicit, not "explict" (did you mean "explicit"?)`,
		`p.yaml:4:8: hooks.ask must be one of auto, deny, not "never"`,
		`p.yaml:5:3: unknown key "deny" in hooks`}},
	{"hooks not a mapping", "version: 1\nhooks: defer\n", []string{"p.yaml:2:8: hooks must be a mapping"}},
	{"hooks deadline not a duration", "version: 1\nhooks: {deadline: soon}\n", []string{`p.yaml:2:19: hooks.deadline: "soon" is not a duration such as 2s or 1500ms`}},
	{"hooks deadline too long", "version: 1\nhooks: {deadline: 1m}\n", []string{"p.yaml:2:19: hooks.deadline: 1m0s is not between 100ms and 30s"}},
	{"hooks deadline too short", "version: 1\nhooks: {deadline: 10ms}\n", []string{"p.yaml:2:19: hooks.deadline: 10ms is not between 100ms and 30s"}},
	{"output not a mapping", "version: 1\noutput: block\n", []string{"p.yaml:2:9: output must be a mapping"}},
	{"redacting injection", "version: 1\noutput: {injection: redact}\n", []string{`p.yaml:2:21: output.injection must be one of warn, block, not "redact"`}},
	{"syntax", "version: 1\nrules: [\n", []string{"p.yaml:2: YAML syntax"}},
	{"two documents", "version: 1\n---\nversion: 1\n", []string{"p.yaml:2:1: a policy file holds one YAML document"}},
	{"no version", "default: ask\n", []string{"p.yaml:1:1: missing `version: 1`"}},
	{"bad version", "version: 2\n", []string{"p.yaml:1:10: version must be 1, not the number 2"}},
	{"unknown top key", "version: 1\ndefualt: ask\n", []string{`p.yaml:2:1: unknown key "defualt" in the policy (did you mean "default"?)`}},
	{"duplicate key", "version: 1\ndefault: ask\ndefault: deny\n", []string{`p.yaml:3:1: duplicate key "default" in the policy (first at line 2)`}},
	{"bad default", "version: 1\ndefault: maybe\n", []string{`p.yaml:2:10: default must be allow, audit, ask or deny, not "maybe"`}},
	{"bool default", "version: 1\ndefault: true\n", []string{"p.yaml:2:10: default must be a string, not the boolean true"}},
	{"bad fail", "version: 1\nfail: sometimes\n", []string{`p.yaml:2:7: fail must be closed or open`}},
	{"unknown pack", "version: 1\npacks: [recomended]\n", []string{`p.yaml:2:9: unknown pack "recomended" (did you mean "recommended"?)`}},
	{"pack twice", "version: 1\npacks: [recommended, recommended]\n", []string{`p.yaml:2:22: pack "recommended" is listed twice`}},
	{"rule without id and decision", "version: 1\nrules:\n  - tool: shell\n", []string{"p.yaml:3:5: rule has no id", `p.yaml:3:5: rule "" has no decision`}},
	{"duplicate id", "version: 1\nrules:\n  - {id: a, tool: shell, decision: deny}\n  - {id: a, tool: Bash, decision: deny}\n",
		[]string{`p.yaml:4:10: duplicate rule id "a" (first at line 3)`}},
	{"id clashes with pack", "version: 1\npacks: [recommended]\nrules:\n  - {id: ask-secrets-read, tool: shell, decision: deny}\n",
		[]string{`p.yaml:2:9: pack "recommended" has a rule "ask-secrets-read", the same id as the rule at line 4`}},
	{"reserved id", "version: 1\nrules:\n  - {id: default, decision: deny}\n", []string{`p.yaml:3:10: rule id "default" is reserved`}},
	{"self-protection id", "version: 1\nrules:\n  - {id: self-protection.x, decision: deny}\n", []string{`rule id "self-protection.x" is reserved`}},
	{"bad id", "version: 1\nrules:\n  - {id: 'has space', decision: deny}\n", []string{`p.yaml:3:10: rule id "has space" must start`}},
	{"unknown rule key", "version: 1\nrules:\n  - id: a\n    decison: deny\n", []string{`p.yaml:4:5: unknown key "decison" in a rule (did you mean "decision"?)`}},
	{"bad regex", "version: 1\nrules:\n  - id: a\n    args: {url: {regex: 'a(b'}}\n    decision: deny\n", []string{"p.yaml:4:25: args.url.regex: invalid regular expression"}},
	{"bad glob", "version: 1\nrules:\n  - id: a\n    paths: {read: ['/etc/[abc']}\n    decision: deny\n", []string{"p.yaml:4:20: path:"}},
	{"bad command glob", "version: 1\nrules:\n  - id: a\n    command: 'rm {a,b'\n    decision: deny\n", []string{"p.yaml:4:14: command"}},
	{"unclosed quote", "version: 1\nrules:\n  - id: a\n    command: \"rm 'x\"\n    decision: deny\n", []string{"unclosed ' quote"}},
	{"unknown tool", "version: 1\nrules:\n  - {id: a, tool: Bsh, decision: deny}\n", []string{`p.yaml:3:19: unknown tool "Bsh"`, `(did you mean "Bash"?)`}},
	{"unknown class glob", "version: 1\nrules:\n  - {id: a, tool: file.zzz*, decision: deny}\n", []string{`tool "file.zzz*" matches no class`}},
	{"bad mcp", "version: 1\nrules:\n  - {id: a, tool: 'mcp:/x', decision: deny}\n", []string{`tool "mcp:/x": write MCP tools as mcp:SERVER/TOOL`}},
	{"unknown agent", "version: 1\nrules:\n  - {id: a, agent: claude, decision: deny}\n", []string{`p.yaml:3:20: unknown agent "claude"`}},
	{"unknown finding", "version: 1\nrules:\n  - {id: a, findings: [destructve.*], decision: deny}\n", []string{`p.yaml:3:24: findings: "destructve.*" matches no finding`}},
	{"unknown path set", "version: 1\nrules:\n  - {id: a, paths: {read: [$secret]}, decision: deny}\n", []string{`unknown path set $secret (did you mean "$secrets"?)`}},
	{"set with suffix", "version: 1\nrules:\n  - {id: a, paths: {read: [$secrets/x]}, decision: deny}\n", []string{"$secrets is a set of files, not a directory"}},
	{"leaves workspace", "version: 1\nrules:\n  - {id: a, paths: {read: [../x]}, decision: deny}\n", []string{`path "../x" leaves the workspace`}},
	{"unknown access kind", "version: 1\nrules:\n  - {id: a, paths: {modify: [/x]}, decision: deny}\n", []string{`unknown key "modify" in paths`}},
	{"empty list", "version: 1\nrules:\n  - {id: a, tool: [], decision: deny}\n", []string{"p.yaml:3:19: tool is an empty list, which can never match"}},
	{"command for non-shell", "version: 1\nrules:\n  - {id: a, tool: file.read, command: ls, decision: deny}\n", []string{`p.yaml:3:5: rule "a" can never match: ` + "`command` applies only to shell calls"}},
	{"paths kind impossible", "version: 1\nrules:\n  - {id: a, tool: file.read, paths: {delete: [/x]}, decision: deny}\n", []string{`rule "a" can never match: its ` + "`paths`"}},
	{"agent without tool", "version: 1\nrules:\n  - {id: a, agent: windsurf, tool: Bash, decision: deny}\n", []string{`rule "a" can never match: none of the agents it names has a tool it names`}},
	{"empty range", "version: 1\nrules:\n  - {id: a, args: {n: {gt: 10, lt: 5}}, decision: deny}\n", []string{"args.n can never match: no number is both above 10 and below 5"}},
	{"gt not number", "version: 1\nrules:\n  - {id: a, args: {n: {gt: lots}}, decision: deny}\n", []string{`args.n.gt must be a number, not the string "lots"`}},
	{"exists with value", "version: 1\nrules:\n  - {id: a, args: {n: {exists: true, eq: 1}}, decision: deny}\n", []string{"exists cannot be combined"}},
	{"unreachable after catch-all", "version: 1\nrules:\n  - {id: all, decision: ask}\n  - {id: b, tool: shell, decision: deny}\n",
		[]string{`p.yaml:4:5: rule "b" can never match: rule "all" at line 3 has no conditions`}},
	{"packs after catch-all", "version: 1\npacks: [recommended]\nrules:\n  - {id: all, decision: ask}\n",
		[]string{`p.yaml:2:8: the packs' rules can never match: rule "all" at line 4 has no conditions`}},
	{"test without expect", "version: 1\ntests:\n  - {command: ls}\n", []string{"p.yaml:3:5: a test needs `expect`"}},
	{"test unknown rule", "version: 1\ntests:\n  - {command: ls, expect: allow, rule: nope}\n", []string{`p.yaml:3:40: test expects rule "nope"`}},
	{"test unknown tool", "version: 1\ntests:\n  - {tool: Nope, expect: allow}\n", []string{`p.yaml:3:12: unknown tool "Nope"`}},
	{"test both", "version: 1\ntests:\n  - {tool: Bash, command: ls, expect: allow}\n", []string{"either `command`"}},
	{"test relative cwd", "version: 1\ntests:\n  - {command: ls, cwd: rel, expect: allow}\n", []string{"cwd must be an absolute path"}},
	{"merge key", "version: 1\nrules:\n  - {<<: {decision: deny}, id: a}\n", []string{"merge keys (<<) are not supported"}},
}

func TestLoadErrors(t *testing.T) {
	for _, tt := range loadErrorCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("p.yaml", []byte(tt.src), testHost())
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load error = %v, want an ErrorList", err)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error does not contain %q (in order):\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestLoadReportsEveryMistake is the acceptance case: three different mistakes, all listed
// with their lines, in one run.
func TestLoadReportsEveryMistake(t *testing.T) {
	src := `version: 1
default: ask
packs: [recommended]
rules:
  - id: one
    tool: shell
    command: "git push **"
    decison: deny
  - id: two
    args: {url: {regex: "(unclosed"}}
    decision: deny
  - id: three
    paths: {read: [$secretz]}
    decision: ask
`
	_, err := Load("moat.yaml", []byte(src), testHost())
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want ErrorList, got %v", err)
	}
	wantLines := []int{5, 8, 10, 13}
	var got []int
	for _, e := range list {
		got = append(got, e.Line)
	}
	if len(got) != len(wantLines) {
		t.Fatalf("got %d errors (%v), want errors on lines %v:\n%s", len(got), got, wantLines, err)
	}
	for i := range wantLines {
		if got[i] != wantLines[i] {
			t.Errorf("error %d on line %d, want %d:\n%s", i, got[i], wantLines[i], err)
		}
	}
}

func TestEmbeddedWorkspaceMustBeAbsolute(t *testing.T) {
	_, err := Load(EmbeddedPrefix+"x", []byte("version: 1\nworkspace: rel\n"), testHost())
	if err == nil || !strings.Contains(err.Error(), "embedded policy has no directory") {
		t.Fatalf("err = %v", err)
	}
}

func TestPacksAndTemplatesLoad(t *testing.T) {
	for _, name := range PackNames() {
		if _, err := LoadPack(name, testHost(), nil); err != nil {
			t.Errorf("pack %s: %v", name, err)
		}
	}
	for _, name := range TemplateNames() {
		data, err := Template(name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Load("/proj/moat.yaml", data, testHost())
		if err != nil {
			t.Errorf("template %s: %v", name, err)
			continue
		}
		if len(p.Tests) == 0 {
			t.Errorf("template %s has no tests", name)
		}
	}
	if got := TemplateNames(); strings.Join(got, ",") != "permissive,recommended,strict" {
		t.Errorf("templates = %v", got)
	}
	if _, err := SelfProtection(testHost()); err != nil {
		t.Errorf("self-protection: %v", err)
	}
}

// BenchmarkLoadRecommended measures compiling the embedded default policy, which every
// short-lived hook process pays once.
func BenchmarkLoadRecommended(b *testing.B) {
	data, err := Template(DefaultTemplate)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(EmbeddedPrefix+DefaultTemplate, data, testHost()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidRuleID checks the rule id grammar against the regular expression that states
// it, on every string of up to three bytes over an alphabet that exercises each class.
func TestValidRuleID(t *testing.T) {
	grammar := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	alphabet := []string{"a", "Z", "0", "9", ".", "_", "/", "-", " ", ":", "é", "\x00", "*"}
	check := func(id string) {
		if got, want := validRuleID(id), grammar.MatchString(id); got != want {
			t.Errorf("validRuleID(%q) = %v, want %v", id, got, want)
		}
	}
	check("")
	check("deny-delete-root-home-system")
	check("team/payments.v2_large")
	for _, a := range alphabet {
		check(a)
		for _, b := range alphabet {
			check(a + b)
			for _, c := range alphabet {
				check(a + b + c)
			}
		}
	}
}
