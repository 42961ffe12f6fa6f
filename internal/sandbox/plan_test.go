package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
)

func section(t *testing.T, yaml string, profiles ...string) *Section {
	t.Helper()
	var sec *policy.Sandbox
	if yaml != "" {
		p, err := policy.Load("moat.yaml", []byte("version: 1\nsandbox:\n"+yaml), policy.Host{Home: "/home/u"})
		if err != nil {
			t.Fatal(err)
		}
		sec = p.Sandbox
	}
	var ps []*Profile
	for _, n := range profiles {
		p, err := LookupProfile(n)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	s, err := Effective(sec, ps...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func patterns(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Pattern
	}
	return out
}

func TestEffective(t *testing.T) {
	def := section(t, "")
	if !slices.Contains(patterns(def.Deny), "$secrets") || !slices.Contains(patterns(def.Write), "$workspace") || def.Connect.Any || !def.Bind.Any {
		t.Fatalf("the default sandbox is %+v", def)
	}
	s := section(t, "  write: [$workspace]\n  connect: [22]\n  limits: {open-files: 64}\n", "codex")
	if got := patterns(s.Write); !slices.Equal(got, []string{"$workspace", "~/.codex/**", "~/.npm/**"}) {
		t.Errorf("write = %v: the policy's list replaces the default's, the profile's adds to it", got)
	}
	if got := s.Connect.List(); !slices.Equal(got, []uint16{22, 443}) {
		t.Errorf("connect = %v", got)
	}
	if !slices.Equal(patterns(s.Read), patterns(def.Read)) {
		t.Error("read changed although the policy does not write it")
	}
	if s.Limits.OpenFiles != 64 || s.Limits.Processes != def.Limits.Processes {
		t.Errorf("limits = %+v: each limit replaces the default's alone", s.Limits)
	}
	if !slices.Contains(s.Env.Allow, "OPENAI_API_KEY") || !slices.Equal(s.Profiles, []string{"codex"}) {
		t.Errorf("env = %+v, profiles = %v", s.Env, s.Profiles)
	}
	if s.Write[0].Origin != "moat.yaml:3:11" || s.Write[1].Origin != "profile codex" {
		t.Errorf("origins = %q, %q", s.Write[0].Origin, s.Write[1].Origin)
	}
}

func TestProfiles(t *testing.T) {
	ps, err := Profiles()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aider", "claude-code", "cline", "codex", "continue", "cursor-agent", "gemini-cli", "openclaw", "swe-agent"}
	if got := ProfileNames(); !slices.Equal(got, want) {
		t.Fatalf("profiles = %v, want %v", got, want)
	}
	commands := map[string]string{}
	for _, p := range ps {
		s := p.Sandbox
		if s.Description == "" || len(s.Commands) == 0 {
			t.Errorf("%s: no description or commands", p.Name)
		}
		// Profiles add what an agent needs; what to forbid and how much to allow is the
		// policy's to say.
		if s.Scope != nil || s.Limits != nil || s.Protect != nil || s.Deny != nil {
			t.Errorf("%s sets scope, limits, deny or protect", p.Name)
		}
		if s.Connect == nil || !s.Connect.Contains(443) {
			t.Errorf("%s does not allow its API port, 443", p.Name)
		}
		for _, w := range s.Write {
			if !strings.HasPrefix(w.Pattern, "~/.") {
				t.Errorf("%s: write %q is not a directory of home", p.Name, w.Pattern)
			}
		}
		for _, c := range s.Commands {
			if prev, dup := commands[c]; dup {
				t.Errorf("command %s is in profiles %s and %s", c, prev, p.Name)
			}
			commands[c] = p.Name
		}
	}
	for program, want := range map[string]string{"claude": "claude-code", "/usr/local/bin/codex": "codex", "gemini": "gemini-cli", "aider": "aider"} {
		if p := ProfileFor(program); p == nil || p.Name != want {
			t.Errorf("ProfileFor(%s) = %v, want %s", program, p, want)
		}
	}
	if ProfileFor("sh") != nil {
		t.Error("sh has a profile")
	}
	if _, err := LookupProfile("claude"); err == nil || !strings.Contains(err.Error(), `unknown profile "claude" (known: aider, claude-code`) {
		t.Errorf("LookupProfile(claude) = %v", err)
	}
}

func TestBuild(t *testing.T) {
	home := tree(t, ".ssh/id_rsa", ".ssh/known_hosts", ".config/app/x", ".gitconfig")
	ws := tree(t, "src/main.go")
	s := section(t, "  read: [$home, /definitely/missing, \"**/anywhere\"]\n  write: [$workspace]\n  exec: []\n  protect: []\n  connect: [443, 8080]\n  bind: [3000]\n  limits: {processes: \"+10\", memory: 1GiB}\n")
	o := Options{
		Section: s, Host: pathset.Host{Home: home}, Workspace: []string{ws},
		Environ: []string{"PATH=/bin", "GITHUB_TOKEN=x", "LANG=C"}, ABI: 7, Errata: 7,
		UserTasks: func() (uint64, error) { return 5, nil },
	}
	p, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, r := range p.Rules {
		rules[r.Path] = r.Access.String()
	}
	for path, want := range map[string]string{
		home:                                    "-l-------",
		filepath.Join(home, ".config"):          "rl-------",
		filepath.Join(home, ".gitconfig"):       "r--------",
		filepath.Join(home, ".ssh/known_hosts"): "r--------",
		ws:                                      "rl-wtcdm-",
		"/dev/null":                             "r--wt----",
	} {
		if rules[path] != want {
			t.Errorf("rule for %s = %q, want %q", path, rules[path], want)
		}
	}
	if _, ok := rules[filepath.Join(home, ".ssh")]; ok {
		t.Error("~/.ssh has a rule")
	}
	if _, ok := rules[filepath.Join(home, ".ssh/id_rsa")]; ok {
		t.Error("~/.ssh/id_rsa has a rule")
	}
	kinds := map[NoteKind][]string{}
	for _, n := range p.Notes {
		kinds[n.Kind] = append(kinds[n.Kind], n.Pattern)
	}
	if !slices.Contains(kinds[NoteMissing], "/definitely/missing") || !slices.Contains(kinds[NoteAnywhere], "/**/anywhere") || !slices.Contains(kinds[NoteDenied], filepath.Join(home, ".ssh")) {
		t.Errorf("notes = %v", kinds)
	}
	if !slices.Equal(p.Connect, []uint16{443, 8080}) || !slices.Equal(p.Bind, []uint16{3000}) || !p.NetEnforced || !p.ScopeSignals || !p.ScopeSockets {
		t.Errorf("network: connect %v bind %v enforced %v scopes %v %v", p.Connect, p.Bind, p.NetEnforced, p.ScopeSockets, p.ScopeSignals)
	}
	limits := map[string]uint64{}
	for _, l := range p.Limits {
		limits[l.Name] = l.Value
	}
	if limits["processes"] != 15 || limits["memory"] != 1<<30 {
		t.Errorf("limits = %v", limits)
	}
	if !slices.Equal(p.Dropped, []string{"GITHUB_TOKEN"}) || !slices.Equal(p.Env, []string{"PATH=/bin", "LANG=C"}) {
		t.Errorf("env = %v, dropped %v", p.Env, p.Dropped)
	}
	var report bytes.Buffer
	p.WriteReport(&report)
	for _, want := range []string{"landlock: ABI 7", "  -l-------  " + home + "  [read $home (split)]", "connect: 443, 8080", "bind: 3000", "processes: 15", "dropped: GITHUB_TOKEN"} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, report.String())
		}
	}
}

func TestBuildPerABI(t *testing.T) {
	s := section(t, "  read: []\n  write: []\n  exec: []\n")
	cases := []struct {
		abi, errata int
		handled     Access
		net, scopes bool
		reportSays  string
	}{
		{0, 0, 0, false, false, "landlock: NOT AVAILABLE"},
		{1, 0, Refer - 1, false, false, "NOT ENFORCED (needs Landlock ABI 4)"},
		{1, 0, Refer - 1, false, false, "moving files between directories (all such moves are refused)"},
		{3, 0, Truncate<<1 - 1, false, false, "ioctl on devices not restricted"},
		{4, 0, Truncate<<1 - 1, true, false, "signals: NOT ENFORCED (needs Landlock ABI 6)"},
		{6, 0, IoctlDev<<1 - 1, true, false, "signals: NOT ENFORCED"},
		{6, 2, IoctlDev<<1 - 1, true, true, "signals: only within the sandbox"},
	}
	for _, c := range cases {
		p, err := Build(Options{Section: s, Host: pathset.Host{Home: t.TempDir()}, ABI: c.abi, Errata: c.errata})
		if err != nil {
			t.Fatal(err)
		}
		if p.Handled != c.handled || p.NetEnforced != c.net || p.ScopeSignals != c.scopes {
			t.Errorf("ABI %d: handled %v net %v scopes %v", c.abi, p.Handled, p.NetEnforced, p.ScopeSignals)
		}
		var b bytes.Buffer
		p.WriteReport(&b)
		if !strings.Contains(b.String(), c.reportSays) {
			t.Errorf("ABI %d: the report does not say %q:\n%s", c.abi, c.reportSays, b.String())
		}
	}
}

func TestLooksSecret(t *testing.T) {
	cases := []struct {
		name, value string
		want        bool
	}{
		{"GITHUB_TOKEN", "x", true},
		{"AWS_SECRET_ACCESS_KEY", "x", true},
		{"OPENAI_API_KEY", "x", true},
		{"DB_PASSWORD", "x", true},
		{"PGPASSWORD", "x", true},
		{"MYSQL_PWD", "x", true},
		{"SSH_AUTH_SOCK", "/tmp/ssh", true},
		{"GH_PAT", "x", true},
		{"STRIPE_KEY", "x", true},
		{"NPM_CONFIG__AUTH", "x", true},
		{"SOMETHING", "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", true},
		{"PATH", "/usr/bin:/bin", false},
		{"HOME", "/home/u", false},
		{"PWD", "/home/u/p", false},
		{"GIT_AUTHOR_NAME", "Ann", false},
		{"KEYMAP", "us", false},
		{"XDG_SESSION_ID", "3", false},
		{"EDITOR", "vim", false},
	}
	for _, c := range cases {
		if got := LooksSecret(c.name, c.value); got != c.want {
			t.Errorf("LooksSecret(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFilterEnv(t *testing.T) {
	env := []string{"PATH=/bin", "GITHUB_TOKEN=t", "ANTHROPIC_API_KEY=k", "MY_TOKEN_A=1", "NOISY=1", "MALFORMED"}
	kept, dropped := FilterEnv(env, policy.EnvFilter{Allow: []string{"ANTHROPIC_API_KEY", "MY_*"}, Deny: []string{"NOISY"}})
	if !slices.Equal(kept, []string{"PATH=/bin", "ANTHROPIC_API_KEY=k", "MY_TOKEN_A=1", "MALFORMED"}) || !slices.Equal(dropped, []string{"GITHUB_TOKEN", "NOISY"}) {
		t.Errorf("kept %v, dropped %v", kept, dropped)
	}
}

// TestFilterEnvClassified: Finish takes what a SecretLooking tells of a variable, and
// works out what it does not tell, so that a partial or empty one filters as FilterEnv.
func TestFilterEnvClassified(t *testing.T) {
	const key = "PRIVATE_DATA=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB" // a credential by its value alone
	env := []string{"PATH=/bin", "GITHUB_TOKEN=t", key, "EDITOR=vim", "NOISY=1"}
	filter := policy.EnvFilter{Deny: []string{"NOISY"}}
	plain, plainDropped := FilterEnv(env, filter)
	if !slices.Contains(plainDropped, "PRIVATE_DATA") {
		t.Fatalf("FilterEnv kept %v: the test's credential is not one", plain)
	}
	tests := []struct {
		name        string
		known       SecretLooking
		wantDropped []string
	}{
		{"none", nil, plainDropped},
		{"empty", SecretLooking{}, plainDropped},
		{"all", FindSecretLooking(env), plainDropped},
		{"some", SecretLooking{"EDITOR=vim": false}, plainDropped},
		{"told a secret", SecretLooking{"EDITOR=vim": true}, []string{"GITHUB_TOKEN", "PRIVATE_DATA", "EDITOR", "NOISY"}},
		// Another value of the variable is another question, worked out afresh.
		{"told of another value", SecretLooking{"PRIVATE_DATA=x": false}, plainDropped},
	}
	for _, tt := range tests {
		_, dropped := filterEnv(env, filter, tt.known)
		if !slices.Equal(dropped, tt.wantDropped) {
			t.Errorf("%s: dropped %v, want %v", tt.name, dropped, tt.wantDropped)
		}
	}
}

func TestCountTasks(t *testing.T) {
	if _, err := os.Stat("/proc/loadavg"); err != nil {
		t.Skip("no /proc/loadavg")
	}
	n, err := countTasks()
	if err != nil || n == 0 {
		t.Fatalf("countTasks = %d, %v", n, err)
	}
}

func TestAccessString(t *testing.T) {
	cases := map[Access]string{
		0:                        "---------",
		readAccess:               "rl-------",
		readAccess | writeAccess: "rl-wtcdm-",
		execAccess:               "r-x------",
		handledAccess(5):         "rlxwtcdmi",
		ReadFile | IoctlDev:      "r-------i",
	}
	for a, want := range cases {
		if got := a.String(); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint64(a), got, want)
		}
	}
	if writeAccess&(MakeChar|MakeBlock) != 0 {
		t.Error("a write grant may create device nodes")
	}
}

// TestBuildAgentState: the codex profile's state is created before the carving, so it
// gets full rules of its own, while ~/.codex, which holds the protected config.toml and
// hooks.json, keeps reading and lock directories only.
func TestBuildAgentState(t *testing.T) {
	home := tree(t, ".codex/config.toml", ".codex/hooks.json", ".codex/auth.json")
	s := section(t, "", "codex")
	o := Options{
		Section: s, Host: pathset.Host{Home: home}, Workspace: []string{tree(t, "a")},
		Environ: []string{"PATH=/bin"}, ABI: 7, Errata: 7, CreateDirs: true,
		UserTasks: func() (uint64, error) { return 5, nil },
	}
	p, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, r := range p.Rules {
		rules[r.Path] = r.Access.String()
	}
	codex := filepath.Join(home, ".codex")
	for path, want := range map[string]string{
		codex:                                       "rl---cd--",
		filepath.Join(codex, "sessions"):            "rl-wtcdm-",
		filepath.Join(codex, "sqlite"):              "rl-wtcdm-",
		filepath.Join(codex, "installation_id"):     "r--wt----",
		filepath.Join(codex, "auth.json"):           "r--wt----",
		filepath.Join(codex, "thread-writer-locks"): "rl-wtcdm-",
	} {
		if rules[path] != want {
			t.Errorf("rule for %s = %q, want %q", path, rules[path], want)
		}
	}
	for _, f := range []string{"config.toml", "hooks.json"} {
		if r, ok := rules[filepath.Join(codex, f)]; ok {
			t.Errorf("the protected %s has a rule of its own: %s", f, r)
		}
	}
	if fi, err := os.Stat(filepath.Join(codex, "sessions")); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("~/.codex/sessions: %v, %v", fi, err)
	}
	if fi, err := os.Stat(filepath.Join(codex, "installation_id")); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("~/.codex/installation_id: %v, %v", fi, err)
	}
	sqlite := "CODEX_SQLITE_HOME=" + filepath.Join(codex, "sqlite")
	if !slices.Contains(p.Env, sqlite) || !slices.Equal(p.Set, []string{sqlite}) {
		t.Errorf("env = %v, set = %v", p.Env, p.Set)
	}
	var report bytes.Buffer
	p.WriteReport(&report)
	for _, want := range []string{noteTitles[NoteCaveat], "CODEX_SQLITE_HOME", "set: " + sqlite} {
		if !strings.Contains(report.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, report.String())
		}
	}

	// The user's own value wins.
	o.Environ = []string{"PATH=/bin", "CODEX_SQLITE_HOME=/elsewhere"}
	if p, err = Build(o); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Env, "CODEX_SQLITE_HOME=/elsewhere") || len(p.Set) != 0 {
		t.Errorf("with the variable set: env = %v, set = %v", p.Env, p.Set)
	}
}

// TestBuildAbsentProtected: a protected file that does not exist where a process inside
// may create files is not protected by Landlock, and the report says so; in a directory
// closed to new files (one holding another protected file) it is not reported.
func TestBuildAbsentProtected(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		want  bool
	}{
		{"nothing protected in ~/.codex yet", []string{".codex/"}, true},
		{"~/.codex closed to new files by hooks.json", []string{".codex/hooks.json"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := tree(t, c.files...)
			p, err := Build(Options{
				Section: section(t, "", "codex"), Host: pathset.Host{Home: home}, Workspace: []string{tree(t, "a")},
				ABI: 7, Errata: 7, UserTasks: func() (uint64, error) { return 5, nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			config := filepath.Join(home, ".codex", "config.toml")
			var absent, state bool
			for _, n := range p.Notes {
				absent = absent || n.Kind == NoteAbsent && n.Pattern == config
				state = state || n.Kind == NoteState && n.Pattern == filepath.Join(home, ".codex", "sessions")
			}
			if absent != c.want {
				t.Errorf("absent %s reported: %v, want %v (notes %+v)", config, absent, c.want, p.Notes)
			}
			if !state {
				t.Error("a dry run does not say that the launch creates ~/.codex/sessions")
			}
			if _, err := os.Stat(filepath.Join(home, ".codex", "sessions")); err == nil {
				t.Error("a plan without CreateDirs created the state")
			}
		})
	}
}
