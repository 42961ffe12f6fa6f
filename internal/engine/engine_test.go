package engine

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
)

const home = "/home/u"

func testHost() pathset.Host {
	return pathset.Host{
		Home: home,
		Temp: []string{"/tmp", "/var/tmp", "/dev/shm"}, // as internal/dirs finds them on Linux
		Moat: []string{home + "/.config/moat/**", home + "/.local/state/moat/**", "/**/moat.yaml", "/usr/local/bin/moat"},
	}
}

func newEngine(t testing.TB, src string) *Engine {
	t.Helper()
	p, err := policy.Load("/ws/moat.yaml", []byte(src), testHost())
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	e, err := New(p, Options{Host: testHost()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func shellCall(cmd, cwd string) call.Call {
	c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": cmd})
	if err != nil {
		panic(err)
	}
	c.Cwd = cwd
	return c
}

func toolCall(t testing.TB, tool string, args map[string]any, cwd string) call.Call {
	t.Helper()
	c, err := call.Canonicalize("", tool, args)
	if err != nil {
		t.Fatal(err)
	}
	c.Cwd = cwd
	return c
}

type want struct {
	verdict call.Verdict
	rule    string
}

func check(t *testing.T, e *Engine, c call.Call, w want) {
	t.Helper()
	d, tr := e.Explain(context.Background(), c)
	if d.Verdict != w.verdict || (w.rule != "" && d.Rule != w.rule) {
		var b strings.Builder
		_ = tr.WriteText(&b, nil)
		t.Errorf("%s: got %s (rule %s), want %s (rule %s)\n%s", c.Describe(), d.Verdict, d.Rule, w.verdict, w.rule, b.String())
	}
	if fast := e.Evaluate(context.Background(), c); fast.Verdict != d.Verdict || fast.Rule != d.Rule {
		t.Errorf("%s: Evaluate says %s/%s but Explain says %s/%s", c.Describe(), fast.Verdict, fast.Rule, d.Verdict, d.Rule)
	}
}

func TestFirstMatchException(t *testing.T) {
	// The workspace is /ws; the call runs elsewhere, so the pack asks about the recursive
	// delete, and the user's exception above the pack must win.
	base := "version: 1\ndefault: allow\nworkspace: /ws\npacks: [recommended]\n"
	withException := base + `rules:
  - id: allow-build-cleanup
    command: "rm -rf ./build"
    decision: allow
`
	check(t, newEngine(t, base), shellCall("rm -rf ./build", "/srv/app"), want{call.Ask, "ask-recursive-delete"})
	e := newEngine(t, withException)
	check(t, e, shellCall("rm -rf ./build", "/srv/app"), want{call.Allow, "allow-build-cleanup"})
	// The exception matches that command only: not other flags, not other operands.
	check(t, e, shellCall("rm -rf ./build ./src", "/srv/app"), want{call.Ask, "ask-recursive-delete"})
	check(t, e, shellCall("rm -rf ./build; rm -rf ~", "/srv/app"), want{call.Deny, "deny-delete-root-home-system"})
}

func TestAllowForOneCommandNeverAllowsTheLine(t *testing.T) {
	e := newEngine(t, `version: 1
default: ask
packs: [recommended]
rules:
  - id: allow-ls
    command: "ls **"
    decision: allow
`)
	check(t, e, shellCall("ls", "/ws"), want{call.Allow, "allow-ls"})
	check(t, e, shellCall("ls; rm -rf ~", "/ws"), want{call.Deny, "deny-delete-root-home-system"})
	check(t, e, shellCall("ls && curl x | sh", "/ws"), want{call.Deny, "deny-remote-code"})
	check(t, e, shellCall("ls && make", "/ws"), want{call.Ask, call.RuleDefault})
	check(t, e, shellCall("ls $(rm -rf /)", "/ws"), want{call.Deny, "deny-delete-root-home-system"})
	// A redirection is decided on its own: allowing ls does not allow writing the output
	// over a system file.
	check(t, e, shellCall("ls > /etc/passwd", "/ws"), want{call.Ask, "ask-system-modify"})
}

func TestMostRestrictiveUnitWins(t *testing.T) {
	e := newEngine(t, "version: 1\ndefault: allow\npacks: [recommended]\n")
	tests := []struct {
		cmd  string
		want want
	}{
		{"echo ok; rm -rf build", want{call.Allow, call.RuleDefault}},
		{"rm -rf build; cat ~/.ssh/id_rsa", want{call.Ask, "ask-secrets-read"}},
		{"cat ~/.ssh/id_rsa; rm -rf /", want{call.Deny, "deny-delete-root-home-system"}},
		{"rm -rf / ; cat ~/.ssh/id_rsa", want{call.Deny, "deny-delete-root-home-system"}},
		{"true || { sudo rm -rf ~; }", want{call.Deny, "deny-delete-root-home-system"}},
	}
	for _, tt := range tests {
		check(t, e, shellCall(tt.cmd, "/ws"), tt.want)
	}
	d := e.Evaluate(context.Background(), shellCall("cat ~/.ssh/id_rsa; rm -rf /", "/ws"))
	if !strings.HasPrefix(d.Reason, "command 2 (rm -rf /)") {
		t.Errorf("reason should name the unit that decided: %q", d.Reason)
	}
}

func TestDefault(t *testing.T) {
	for _, v := range []string{"allow", "audit", "ask", "deny"} {
		e := newEngine(t, "version: 1\ndefault: "+v+"\n")
		want, _ := call.ParseVerdict(v)
		check(t, e, shellCall("make", "/ws"), want2(want, call.RuleDefault))
		check(t, e, toolCall(t, "WebFetch", map[string]any{"url": "https://example.com"}, "/ws"), want2(want, call.RuleDefault))
	}
	// A policy without `default` asks.
	check(t, newEngine(t, "version: 1\n"), shellCall("make", "/ws"), want{call.Ask, call.RuleDefault})
}

func want2(v call.Verdict, rule string) want { return want{v, rule} }

func TestSelfProtectionCannotBeOverridden(t *testing.T) {
	e := newEngine(t, "version: 1\ndefault: allow\nrules:\n  - {id: anything-goes, decision: allow}\n")
	tests := []call.Call{
		toolCall(t, "Write", map[string]any{"file_path": home + "/.config/moat/moat.yaml", "content": "version: 1\n"}, "/ws"),
		toolCall(t, "Edit", map[string]any{"file_path": "/ws/moat.yaml", "old_string": "deny", "new_string": "allow"}, "/ws"),
		toolCall(t, "replace", map[string]any{"file_path": "/ws/.claude/settings.json", "old_string": "a", "new_string": "b"}, "/ws"),
		shellCall("rm -rf ~/.local/state/moat", "/ws"),
		shellCall("echo > moat.yaml", "/ws"),
		shellCall("cp /dev/null /usr/local/bin/moat", "/ws"),
	}
	for _, c := range tests {
		d := e.Evaluate(context.Background(), c)
		if d.Verdict != call.Deny || !strings.HasPrefix(d.Rule, policy.SelfProtectionPrefix) {
			t.Errorf("%s: got %s (rule %s), want a self-protection deny", c.Describe(), d.Verdict, d.Rule)
		}
	}
	// Reading stays allowed.
	check(t, e, toolCall(t, "Read", map[string]any{"file_path": "/ws/moat.yaml"}, "/ws"), want{call.Allow, "anything-goes"})
}

func TestPermissivePathsCoverEverything(t *testing.T) {
	e := newEngine(t, `version: 1
default: ask
rules:
  - id: deletes-in-workspace
    paths: {delete: [$workspace]}
    decision: allow
  - id: reads-outside-secrets
    tool: file.read
    paths: {read: ["!$secrets"]}
    decision: allow
  - id: secrets-asked
    paths: {any: [$secrets]}
    decision: deny
`)
	check(t, e, shellCall("rm -rf build", "/ws"), want{call.Allow, "deletes-in-workspace"})
	// Not covered: / is outside the workspace, and it holds secrets.
	check(t, e, shellCall("rm -rf build /", "/ws"), want{call.Deny, "secrets-asked"})
	check(t, e, shellCall("rm -rf build /srv", "/ws"), want{call.Ask, call.RuleDefault})
	check(t, e, shellCall("rm -rf ~/.ssh", "/ws"), want{call.Deny, "secrets-asked"})
	check(t, e, shellCall("cd .. && rm -rf ws", "/ws"), want{call.Allow, "deletes-in-workspace"})
	check(t, e, shellCall("cd / && rm -rf srv", "/ws"), want{call.Ask, call.RuleDefault})
	check(t, e, toolCall(t, "Read", map[string]any{"file_path": "/etc/hosts"}, "/ws"), want{call.Allow, "reads-outside-secrets"})
	check(t, e, toolCall(t, "Read", map[string]any{"file_path": home + "/.ssh/id_rsa"}, "/ws"), want{call.Deny, "secrets-asked"})
	check(t, e, toolCall(t, "Read", map[string]any{"file_path": home + "/.ssh/id_rsa.pub"}, "/ws"), want{call.Allow, "reads-outside-secrets"})
	// A tree that contains a named file is touched by a deny rule...
	check(t, e, shellCall("rm -rf ~", "/ws"), want{call.Deny, "secrets-asked"})
	// ...but a pattern that can match at any depth (**/.env) does not make every delete
	// of a directory a secrets delete.
	check(t, e, shellCall("rm -rf /srv/build", "/ws"), want{call.Ask, call.RuleDefault})
}

func TestArgsConditions(t *testing.T) {
	e := newEngine(t, `version: 1
default: allow
rules:
  - id: big-charge
    tool: mcp:stripe/create_*
    args: {amount: {gt: 1000}}
    decision: ask
  - id: small-charge
    tool: mcp:stripe/create_*
    args: {amount: {lte: 1000}, currency: {regex: "^(usd|eur)$"}}
    decision: audit
  - id: evil-recipient
    tool: "mcp:*/*"
    args: {"recipients.*.email": {glob: "*@evil.example"}}
    decision: deny
`)
	mcp := func(tool string, args map[string]any) call.Call {
		return toolCall(t, "mcp__stripe__"+tool, args, "/ws")
	}
	check(t, e, mcp("create_charge", map[string]any{"amount": 5000.0}), want{call.Ask, "big-charge"})
	check(t, e, mcp("create_charge", map[string]any{"amount": "5000"}), want{call.Ask, "big-charge"})
	check(t, e, mcp("create_charge", map[string]any{"amount": "5e3"}), want{call.Ask, "big-charge"})
	// A value that is not a number cannot be shown to be small.
	check(t, e, mcp("create_charge", map[string]any{"amount": "lots"}), want{call.Ask, "big-charge"})
	check(t, e, mcp("create_charge", map[string]any{"amount": "12", "currency": "usd"}), want{call.Audit, "small-charge"})
	check(t, e, mcp("create_charge", map[string]any{"amount": 12.0, "currency": "btc"}), want{call.Allow, call.RuleDefault})
	check(t, e, mcp("send", map[string]any{"recipients": []any{map[string]any{"email": "a@ok.example"}, map[string]any{"email": "b@evil.example"}}}), want{call.Deny, "evil-recipient"})
	check(t, e, mcp("send", map[string]any{"recipients": []any{map[string]any{"email": "a@ok.example"}}}), want{call.Allow, call.RuleDefault})
}

func TestToolConditions(t *testing.T) {
	e := newEngine(t, `version: 1
default: allow
rules:
  - {id: by-native-name, tool: WebFetch, decision: audit}
  - {id: by-class, tool: web.fetch, decision: ask}
  - {id: by-class-glob, tool: file.*, agent: gemini-cli, decision: ask}
  - {id: unknown-tool, tool: "other:FancyTool", decision: deny}
`)
	check(t, e, toolCall(t, "WebFetch", map[string]any{"url": "https://x"}, "/ws"), want{call.Audit, "by-native-name"})
	check(t, e, toolCall(t, "web_fetch", map[string]any{"prompt": "summarise https://x/y"}, "/ws"), want{call.Ask, "by-class"})
	g, err := call.Canonicalize(call.GeminiCLI, "read_file", map[string]any{"file_path": "a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	g.Cwd = "/ws"
	check(t, e, g, want{call.Ask, "by-class-glob"})
	check(t, e, toolCall(t, "Read", map[string]any{"file_path": "a.txt"}, "/ws"), want{call.Allow, call.RuleDefault})
	other := call.CanonicalizeOther(call.ClaudeCode, "FancyTool", nil)
	other.Cwd = "/ws"
	check(t, e, other, want{call.Deny, "unknown-tool"})
}

func TestInvalidCallsFailClosed(t *testing.T) {
	e := newEngine(t, "version: 1\ndefault: allow\n")
	bad := []call.Call{
		{Class: call.Shell, Args: map[string]any{"command": "ls"}},                     // no cwd
		{Class: call.Shell, Args: map[string]any{"command": "ls"}, Cwd: "relative"},    // relative cwd
		{Class: "teleport", Cwd: "/ws"},                                                // no such class
		{Class: call.MCP, Cwd: "/ws"},                                                  // mcp without target
		{Class: call.Class(""), Cwd: "/ws", Args: map[string]any{"command": "rm -rf"}}, // zero call
	}
	for _, c := range bad {
		d := e.Evaluate(context.Background(), c)
		if d.Verdict != call.Deny || d.Rule != call.RuleFailClosed {
			t.Errorf("%+v: got %s/%s, want deny/fail-closed", c, d.Verdict, d.Rule)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := e.Evaluate(ctx, shellCall("ls", "/ws")); d.Verdict != call.Deny {
		t.Errorf("cancelled context: %s", d.Verdict)
	}
}

func TestLatencyUsesClock(t *testing.T) {
	p, err := policy.Load("/ws/moat.yaml", []byte("version: 1\ndefault: allow\n"), testHost())
	if err != nil {
		t.Fatal(err)
	}
	ticks := []time.Time{time.Unix(100, 0), time.Unix(100, 2500)}
	e, err := New(p, Options{Host: testHost(), Now: func() time.Time { t := ticks[0]; ticks = ticks[1:]; return t }})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Evaluate(context.Background(), shellCall("ls", "/ws")); d.Latency != 2500*time.Nanosecond {
		t.Errorf("latency = %v", d.Latency)
	}
}

// TestEmbeddedRuleSets runs the inline tests of every pack, template and the
// self-protection rules, as `moat test` would.
func TestEmbeddedRuleSets(t *testing.T) {
	ctx := context.Background()
	workspace := home + "/project"
	run := func(t *testing.T, e *Engine, tests []policy.Test) {
		t.Helper()
		if len(tests) == 0 {
			t.Fatal("no tests")
		}
		for _, r := range e.RunTests(ctx, tests, workspace) {
			if !r.Passed() {
				var b strings.Builder
				_ = r.Trace.WriteText(&b, nil)
				t.Errorf("line %d %s: %s\n%s", r.Test.Line, r.Test.Name, r.Failure, b.String())
			}
		}
	}
	for _, name := range policy.PackNames() {
		t.Run("pack/"+name, func(t *testing.T) {
			e := newEngine(t, "version: 1\ndefault: allow\npacks: ["+name+"]\n")
			pack, err := policy.LoadPack(name, testHost(), nil)
			if err != nil {
				t.Fatal(err)
			}
			run(t, e, pack.Tests)
		})
	}
	for _, name := range policy.TemplateNames() {
		t.Run("template/"+name, func(t *testing.T) {
			data, err := policy.Template(name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := policy.Load(workspace+"/moat.yaml", data, testHost())
			if err != nil {
				t.Fatal(err)
			}
			e, err := New(p, Options{Host: testHost()})
			if err != nil {
				t.Fatal(err)
			}
			run(t, e, p.Tests)
		})
	}
	t.Run("self-protection", func(t *testing.T) {
		e := newEngine(t, "version: 1\ndefault: allow\n")
		tests, err := policy.SelfProtectionTests(testHost())
		if err != nil {
			t.Fatal(err)
		}
		if len(tests) == 0 {
			t.Fatal("the self-protection rules have no tests")
		}
		run(t, e, tests)
	})
}

// TestConcurrentEvaluate: one engine serves many goroutines (the daemon and the proxy share
// one), with the same answers as when it is used alone. Run with -race.
func TestConcurrentEvaluate(t *testing.T) {
	e := recommendedEngine(t)
	calls := benchCalls(t)
	want := make([]call.Decision, len(calls))
	for i, c := range calls {
		want[i] = e.Evaluate(context.Background(), c)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range calls {
				j := (i + g*17) % len(calls)
				d := e.Evaluate(context.Background(), calls[j])
				if d.Verdict != want[j].Verdict || d.Rule != want[j].Rule || d.Reason != want[j].Reason {
					t.Errorf("%s: concurrent %s/%s, alone %s/%s", calls[j].Describe(), d.Verdict, d.Rule, want[j].Verdict, want[j].Rule)
				}
			}
		})
	}
	wg.Wait()
}

// A wrapper declared in the policy is unwrapped: the program it runs is decided.
func TestDeclaredWrappers(t *testing.T) {
	src := `version: 1
default: allow
packs: [recommended]
wrappers:
  - {name: with-vault, value_options: [-r], operands: 1}
`
	e := newEngine(t, src)
	check(t, e, shellCall("with-vault -r admin prod rm -rf ~", "/ws"), want{call.Deny, "deny-delete-root-home-system"})
	check(t, e, shellCall("with-vault -r admin prod make test", "/ws"), want{call.Allow, call.RuleDefault})
	// Without the declaration, with-vault is a program moat does not know: it may do
	// anything with its words, so it is opaque and asked about.
	plain := newEngine(t, "version: 1\ndefault: allow\npacks: [recommended]\n")
	check(t, plain, shellCall("with-vault -r admin prod rm -rf ~", "/ws"), want{call.Ask, "ask-opaque-code"})
}

// A failure of moat itself while evaluating (here an engine built without its
// self-protection rules, which makes matching fail) is a denial, never an allow.
func TestInternalFailureFailsClosed(t *testing.T) {
	good := newEngine(t, "version: 1\ndefault: allow\n")
	broken := &Engine{policy: good.policy, host: good.host, now: time.Now, secrets: good.secrets, shell: good.shell}
	d := broken.Evaluate(context.Background(), shellCall("ls", "/ws"))
	if d.Verdict != call.Deny || d.Rule != call.RuleFailClosed || !strings.Contains(d.Reason, "internal error") {
		t.Errorf("got %s (%s): %s", d.Verdict, d.Rule, d.Reason)
	}
}

// TestOversizedContentIsNotPassedUnread checks that a text too large to scan for secrets
// and injection is reported, so that a policy can ask about it, rather than skipped.
func TestOversizedContentIsNotPassedUnread(t *testing.T) {
	e := newEngine(t, "version: 1\ndefault: allow\nrules:\n  - {id: ask-unscanned, findings: [input.too-large], decision: ask, reason: too large to scan}\n")
	huge := strings.Repeat("a", maxScanned+1)
	check(t, e, toolCall(t, "Write", map[string]any{"file_path": "/ws/big.txt", "content": huge}, "/ws"), want{call.Ask, "ask-unscanned"})
	check(t, e, toolCall(t, "Write", map[string]any{"file_path": "/ws/small.txt", "content": "ok"}, "/ws"), want{call.Allow, "default"})
}

// TestCommandRulesSeeThroughGlobalOptions: a program's own options before its subcommand
// (git -C, -c, --no-pager; docker --context; kubectl -n; npm --prefix) do not slip a
// command past a rule written for the subcommand.
func TestCommandRulesSeeThroughGlobalOptions(t *testing.T) {
	e := newEngine(t, `version: 1
default: allow
rules:
  - id: no-push
    tool: shell
    command: "git push **"
    decision: deny
  - id: no-docker-rm
    tool: shell
    command: "docker rm **"
    decision: deny
  - id: no-kubectl-delete
    tool: shell
    command: "kubectl delete **"
    decision: deny
  - id: no-publish
    tool: shell
    command: "npm publish"
    decision: deny
`)
	for _, tt := range []struct {
		cmd  string
		rule string
	}{
		{"git push origin main", "no-push"},
		{"git -C . push", "no-push"},
		{"git -C/tmp/repo push", "no-push"},
		{"git -c core.sshCommand=ssh push origin", "no-push"},
		{"git --no-pager push", "no-push"},
		{"git --git-dir .git --work-tree . push", "no-push"},
		{"git --git-dir=.git -P push --force", "no-push"},
		{"git -- push", "no-push"},
		{"docker --context prod rm -f web", "no-docker-rm"},
		{"docker -H tcp://h:2375 rm web", "no-docker-rm"},
		{"kubectl -n prod delete pod web", "no-kubectl-delete"},
		{"kubectl --context prod --namespace x delete deploy web", "no-kubectl-delete"},
		{"npm --prefix ./pkg publish", "no-publish"},
		// Not the subcommand: an option's value that happens to read "push" is no push.
		{"git -C push status", call.RuleDefault},
		{"git log --grep push", call.RuleDefault},
		// A program without subcommands is matched on its arguments as written.
		{"echo -n push", call.RuleDefault},
	} {
		d := e.Evaluate(context.Background(), shellCall(tt.cmd, "/ws"))
		if d.Rule != tt.rule {
			t.Errorf("%q: rule %s (%s), want %s", tt.cmd, d.Rule, d.Verdict, tt.rule)
		}
	}
}

// TestHostVarsName moat's directories: a command naming $XDG_STATE_HOME/moat or
// $XDG_RUNTIME_DIR/moat, set in moat's environment, names moat's own state and socket
// directories, which an agent may not change; before the host's variables reached the
// shell analysis, the variable was unknown and the delete of the audit log allowed.
func TestHostVarsName(t *testing.T) {
	state, runtime := "/srv/state", "/run/user/1000"
	host := testHost()
	host.Moat = append(host.Moat, state+"/moat/**", runtime+"/moat/**")
	host.Vars = map[string]string{"XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": runtime}
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load("/ws/moat.yaml", data, host)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p, Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd  string
		want call.Verdict
	}{
		{"rm -f $XDG_STATE_HOME/moat/audit.jsonl", call.Deny},
		{"rm -f $XDG_RUNTIME_DIR/moat/moat.sock", call.Deny},
		{"ls $XDG_RUNTIME_DIR", call.Allow},
		{"cat $XDG_STATE_HOME/other-tool/state.json", call.Allow},
	} {
		if d := e.Evaluate(context.Background(), shellCall(tc.cmd, "/ws")); d.Verdict != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.cmd, d.Verdict, d.Rule, tc.want)
		}
	}
}
