package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/policy"
)

// sharedHomeDirs are directories under the home that profiles open which belong to no
// agent: package managers' caches and the places they install programs.
var sharedHomeDirs = []string{".npm", ".cache/pip", ".cache/huggingface", ".cache/uv", ".local/bin", ".local/pipx", ".local/share/uv"}

// under reports whether p is dir or beneath it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestProfilesAreTheRegistrys ties the sandbox profiles to the agent registry: each
// profile is named after an agent the registry says has one (and each such agent has a
// profile), a hooked agent's profile is chosen by the registry's programs, and every
// directory of the home a profile opens is that agent's data in the registry, or a
// shared tool directory; each of the agent's data is opened for writing.
func TestProfilesAreTheRegistrys(t *testing.T) {
	profiles, err := Profiles()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range profiles {
		names = append(names, p.Name)
		row, ok := agent.Lookup(p.Name)
		if !ok || !row.HasProfile() {
			t.Errorf("profile %s is for no agent of the registry with a profile (one with data)", p.Name)
			continue
		}
		s := p.Sandbox
		// A hooked agent's program is the registry's: shell analysis knows it by that
		// name, and the profile is chosen by it.
		if row.Guard == agent.Hooked {
			for _, c := range s.Commands {
				if !slices.Contains(row.CLI.Programs, c) {
					t.Errorf("profile %s is chosen by the program %s, which the registry does not give %s", p.Name, c, row.Name)
				}
			}
		}
		for _, list := range [][]policy.SandboxPath{s.Write, s.State, s.Exec, s.Read} {
			for _, sp := range list {
				rel, ok := strings.CutPrefix(sp.Pattern, "~/")
				if !ok {
					continue
				}
				rel = strings.TrimSuffix(strings.TrimSuffix(rel, "/**"), "/")
				own := slices.ContainsFunc(row.Data, func(d string) bool { return under(rel, d) })
				shared := slices.ContainsFunc(sharedHomeDirs, func(d string) bool { return under(rel, d) })
				if !own && !shared {
					t.Errorf("profile %s:%d opens %s, which is neither %s's data in the agent registry nor a shared tool directory", p.Name, sp.Line, sp.Pattern, row.Name)
				}
			}
		}
		for _, d := range row.Data {
			if !slices.ContainsFunc(s.Write, func(sp policy.SandboxPath) bool {
				rel, _ := strings.CutPrefix(sp.Pattern, "~/")
				return under(d, strings.TrimSuffix(rel, "/**"))
			}) {
				t.Errorf("profile %s does not open ~/%s, which the registry says is %s's data", p.Name, d, row.Name)
			}
		}
	}
	for _, row := range agent.All() {
		if row.HasProfile() && !slices.Contains(names, row.Name) {
			t.Errorf("the registry gives %s data, but the sandbox has no profile for it", row.Name)
		}
	}
}

// A launched agent reads its own login and no other agent's: $agent-credentials in the
// default deny list becomes every other agent's credential files.
func TestEffectiveDeniesOtherAgentsCredentials(t *testing.T) {
	codex, err := LookupProfile("codex")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		profiles     []*Profile
		denied, open []string
	}{
		{nil, []string{"~/.codex/auth.json", "~/.claude/.credentials.json"}, nil},
		{[]*Profile{codex}, []string{"~/.claude/.credentials.json", "~/.gemini/oauth_creds.json"}, []string{"~/.codex/auth.json"}},
	} {
		sec, err := Effective(nil, tt.profiles...)
		if err != nil {
			t.Fatal(err)
		}
		var deny []string
		for _, e := range sec.Deny {
			deny = append(deny, e.Pattern)
		}
		if slices.Contains(deny, "$agent-credentials") {
			t.Errorf("profiles %v: $agent-credentials left unexpanded in %v", sec.Profiles, deny)
		}
		for _, p := range tt.denied {
			if !slices.Contains(deny, p) {
				t.Errorf("profiles %v: %s not denied: %v", sec.Profiles, p, deny)
			}
		}
		for _, p := range tt.open {
			if slices.Contains(deny, p) {
				t.Errorf("profiles %v: the launched agent's own %s is denied", sec.Profiles, p)
			}
		}
	}
}
