package policy

import (
	"reflect"
	"strings"
	"testing"
)

func loadSandbox(t *testing.T, section string) (*Sandbox, error) {
	t.Helper()
	doc := "version: 1\nsandbox:\n" + section
	p, err := Load("moat.yaml", []byte(doc), Host{Home: "/home/u"})
	if err != nil {
		return nil, err
	}
	return p.Sandbox, nil
}

func TestSandboxSection(t *testing.T) {
	s, err := loadSandbox(t, `
  read: [$system, $home, /opt/tools, "~/.cargo/**"]
  write: $workspace
  exec: []
  deny: [$secrets, "$home/.private/**"]
  protect: [$moat, $agent-config]
  connect: [443, "8000-8002", 80]
  bind: any
  scope: {signals: false}
  limits: {memory: 2GiB, open-files: 1024, processes: "+64", cpu-time: 30m}
  env: {allow: [GITHUB_TOKEN, "MY_*"], deny: [EXTRA]}
`)
	if err != nil {
		t.Fatal(err)
	}
	pats := func(ps []SandboxPath) []string {
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Pattern)
		}
		return out
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"read", pats(s.Read), []string{"$system", "$home", "/opt/tools", "~/.cargo/**"}},
		{"write", pats(s.Write), []string{"$workspace"}},
		{"exec", pats(s.Exec), []string{}},
		{"deny", pats(s.Deny), []string{"$secrets", "$home/.private/**"}},
		{"protect", pats(s.Protect), []string{"$moat", "$agent-config"}},
		{"connect", s.Connect.List(), []uint16{80, 443, 8000, 8001, 8002}},
		{"connect string", s.Connect.String(), "443, 8000-8002, 80"},
		{"bind", s.Bind.Any, true},
		{"scope", *s.Scope, Scope{AbstractUnixSockets: true, Signals: false}},
		{"limits", *s.Limits, Limits{Memory: 2 << 30, OpenFiles: 1024, Processes: 64, ProcessesRelative: true, CPUSeconds: 1800}},
		{"env", *s.Env, EnvFilter{Allow: []string{"GITHUB_TOKEN", "MY_*"}, Deny: []string{"EXTRA"}}},
		{"line", s.Line, 4},
		{"read line", s.Read[2].Line, 4},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	if s.Exec == nil {
		t.Error("an empty exec list must stay distinct from an unwritten one")
	}
}

func TestSandboxAbsent(t *testing.T) {
	p, err := Load("moat.yaml", []byte("version: 1\n"), Host{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Sandbox != nil {
		t.Fatalf("Sandbox = %+v for a policy without the section", p.Sandbox)
	}
}

func TestSandboxErrors(t *testing.T) {
	cases := []struct {
		section, want string
	}{
		{"  read: [$secret]\n", `moat.yaml:3:10: sandbox read path "$secret": unknown path set $secret (did you mean "$secrets"?)`},
		{"  read: [relative/dir]\n", `moat.yaml:3:10: sandbox read path "relative/dir": must be a path set`},
		{"  write: [$secrets/x]\n", `moat.yaml:3:11: sandbox write path "$secrets/x": $secrets is a set of paths, not a directory`},
		{"  write: [\"/a/[b\"]\n", `moat.yaml:3:11: sandbox write path "/a/[b": `},
		{"  read: {a: b}\n", `moat.yaml:3:9: sandbox read must be a path or a list of paths, not a mapping`},
		{"  connect: [0]\n", `moat.yaml:3:13: sandbox.connect entry "0" must be a port from 1 to 65535`},
		{"  connect: [70000]\n", `moat.yaml:3:13: sandbox.connect entry "70000" must be a port`},
		{"  connect: [\"9-3\"]\n", `moat.yaml:3:13: sandbox.connect range "9-3" runs backwards`},
		{"  connect: [\"1-65535\"]\n", `holds 65535 ports; at most 4096`},
		{"  connect: [any]\n", "`any` stands alone"},
		{"  bind: true\n", "sandbox.bind must be `any`, a port, or a list"},
		{"  bind: yes\n", `sandbox.bind entry "yes" must be a port`},
		{"  conect: [443]\n", `moat.yaml:3:3: unknown key "conect" in sandbox (did you mean "connect"?)`},
		{"  scope: {signals: 1}\n", `sandbox.scope.signals must be true or false, not the number 1`},
		{"  scope: {ipc: true}\n", `unknown key "ipc" in sandbox.scope`},
		{"  limits: {memory: 12}\n", `sandbox.limits.memory: "12" is under 1MiB`},
		{"  limits: {memory: 4XB}\n", `sandbox.limits.memory: "4XB" is not a size`},
		{"  limits: {processes: -3}\n", `sandbox.limits.processes: "-3" is not a whole number above 0`},
		{"  limits: {cpu-time: 10ms}\n", `sandbox.limits.cpu-time: "10ms" is not a duration of a second or more`},
		{"  limits: {open-files: [1]}\n", `sandbox.limits.open-files must be a number or ` + "`unlimited`"},
		{"  env: {allow: [\"A-B\"]}\n", `sandbox.env.allow entry "A-B" must be a variable name`},
		{"  commands: [claude]\n", `unknown key "commands" in sandbox`},
		{"  state: [~/.x/y/]\n", `unknown key "state" in sandbox`},
		{"  env: {set: [A]}\n", `sandbox.env.set must be a mapping of variable names to values, not a list`},
		{"  env: {set: {\"A-B\": x}}\n", `sandbox.env.set key "A-B" must be a variable name`},
		{"  env: {set: {A_*: x}}\n", `sandbox.env.set key "A_*" must be a variable name`},
		{"  [1]\n", `sandbox must be a mapping, not a list`},
	}
	for _, c := range cases {
		_, err := loadSandbox(t, c.section)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("section %q: error %v, want it to contain %q", c.section, err, c.want)
		}
	}
}

func TestSandboxLimitValues(t *testing.T) {
	cases := []struct {
		yaml string
		want Limits
	}{
		{"{memory: 512MiB}", Limits{Memory: 512 << 20}},
		{"{memory: 2GB}", Limits{Memory: 2e9}},
		{"{memory: 2097152}", Limits{Memory: 2 << 20}},
		{"{memory: unlimited, cpu-time: 90}", Limits{Memory: Unlimited, CPUSeconds: 90}},
		{"{processes: 200, cpu-time: 2h}", Limits{Processes: 200, CPUSeconds: 7200}},
	}
	for _, c := range cases {
		s, err := loadSandbox(t, "  limits: "+c.yaml+"\n")
		if err != nil {
			t.Errorf("%s: %v", c.yaml, err)
			continue
		}
		if *s.Limits != c.want {
			t.Errorf("%s = %+v, want %+v", c.yaml, *s.Limits, c.want)
		}
	}
}

func TestLoadSandboxProfile(t *testing.T) {
	s, err := LoadSandboxProfile("embedded:profile/x", []byte("description: X agent\ncommands: [x, x-cli]\nwrite: [\"~/.x/**\"]\nconnect: 443\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Description != "X agent" || !reflect.DeepEqual(s.Commands, []string{"x", "x-cli"}) || s.Write[0].Pattern != "~/.x/**" || !s.Connect.Contains(443) || s.Connect.Contains(80) {
		t.Fatalf("profile = %+v", s)
	}
	if _, err := LoadSandboxProfile("p", []byte("commands: [/usr/bin/x]\n")); err == nil || !strings.Contains(err.Error(), "p:1:12: commands lists program names without a directory") {
		t.Fatalf("error = %v", err)
	}
	if _, err := LoadSandboxProfile("p", []byte("rules: []\n")); err == nil || !strings.Contains(err.Error(), `unknown key "rules" in the profile`) {
		t.Fatalf("error = %v", err)
	}
}

// TestLoadSandboxProfileState: a profile's state lies under its own writable
// directories of home, as literal paths; caveats are words; env.set a mapping.
func TestLoadSandboxProfileState(t *testing.T) {
	s, err := LoadSandboxProfile("p", []byte("write: [\"~/.x/**\"]\nstate: [~/.x/sessions/, ~/.x/id]\ncaveats: [\"x: y\"]\nenv: {set: {X_HOME: ~/.x/db}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.State) != 2 || s.State[0].Pattern != "~/.x/sessions/" || s.State[1].Pattern != "~/.x/id" || s.State[1].Line != 2 {
		t.Errorf("state = %+v", s.State)
	}
	if !reflect.DeepEqual(s.Caveats, []string{"x: y"}) || !reflect.DeepEqual(s.Env.Set, []EnvVar{{"X_HOME", "~/.x/db"}}) {
		t.Errorf("caveats = %q, env.set = %v", s.Caveats, s.Env.Set)
	}
	cases := []struct{ profile, want string }{
		{"write: [\"~/.x/**\"]\nstate: [~/.y/z/]\n", `p:2:9: state path "~/.y/z/" is beneath none of the profile's writable directories of home`},
		{"write: [\"~/.x/**\"]\nstate: [~/.x]\n", `state path "~/.x" is beneath none`},
		{"write: [\"~/.x/**\"]\nstate: [/etc/x]\n", `p:2:9: state path "/etc/x" must be a path under ~/`},
		{"write: [\"~/.x/**\"]\nstate: [\"~/.x/*/\"]\n", `state path "~/.x/*/" must be a literal path`},
		{"write: [\"~/.x/**\"]\nstate: [~/.x/../.ssh/]\n", `state path "~/.x/../.ssh/" must be a literal path, without patterns or ..`},
		{"caveats: [{a: b}]\n", `caveats entry must be a string`},
	}
	for _, c := range cases {
		if _, err := LoadSandboxProfile("p", []byte(c.profile)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("profile %q: error %v, want it to contain %q", c.profile, err, c.want)
		}
	}
}

func FuzzSandboxSection(f *testing.F) {
	for _, s := range []string{
		"read: [$system, ~/x]\nconnect: [443, \"1-3\"]\n",
		"limits: {memory: 1GiB, processes: \"+5\", cpu-time: 1h}\n",
		"scope: {signals: false}\nenv: {allow: [A_*]}\n",
		"bind: any\nwrite: $workspace/build/**\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := LoadSandboxProfile("fuzz", []byte(s))
		if err != nil || p == nil {
			return
		}
		for _, ports := range []*Ports{p.Connect, p.Bind} {
			if ports == nil {
				continue
			}
			for _, r := range ports.Ranges {
				if r.Lo == 0 || r.Lo > r.Hi || int(r.Hi)-int(r.Lo) >= MaxPortRange {
					t.Fatalf("range %+v passed validation", r)
				}
			}
		}
		for _, list := range [][]SandboxPath{p.Read, p.Write, p.Exec, p.Deny, p.Protect} {
			for _, sp := range list {
				if checkSandboxPath(sp.Pattern) != "" {
					t.Fatalf("path %q passed validation", sp.Pattern)
				}
			}
		}
	})
}
