package sandbox

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/didyoumean"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
)

// Entry is one path of a section's lists, with where it was written.
type Entry struct {
	Pattern string
	Origin  string // "moat.yaml:12:5", "profile claude-code", "default"
	// Create is set on a profile's directories of home (~/.codex/**): a launch creates
	// them when missing, since the agent could not (its home is not writable).
	Create bool
}

// Caveat is something a profile says its agent does that the sandbox cannot allow.
type Caveat struct {
	Origin, Text string
}

// Section is the sandbox that applies to one launch: the default, the policy's section
// over it key by key, and the profiles added to it.
type Section struct {
	Read, Write, Exec, Deny, Protect []Entry
	// State lists the profiles' state paths (~/.claude/projects/, ~/.codex/installation_id),
	// created before the launch applies Landlock; Caveats what the profiles say Landlock
	// cannot allow their agent, for the report.
	State         []Entry
	Caveats       []Caveat
	Connect, Bind policy.Ports
	Scope         policy.Scope
	Limits        policy.Limits
	Env           policy.EnvFilter
	// Profiles names the profiles added, in order.
	Profiles []string
	// From says where the section came from, for reports.
	From string
}

//go:embed default.yaml profiles/*.yaml
var files embed.FS

// defaultSandbox is parsed once, on first use.
var defaultSandbox = sync.OnceValues(func() (*policy.Sandbox, error) {
	data, err := files.ReadFile("default.yaml")
	if err != nil {
		return nil, err
	}
	return policy.LoadSandboxProfile(policy.EmbeddedPrefix+"sandbox/default", data)
})

// Profile is an embedded agent profile.
type Profile struct {
	Name    string
	Sandbox *policy.Sandbox
	// Text is the profile's YAML, as `moat profile show` prints it.
	Text []byte
}

// Profiles returns every embedded profile, by name.
func Profiles() ([]*Profile, error) { return loadProfiles() }

var loadProfiles = sync.OnceValues(func() ([]*Profile, error) {
	entries, err := fs.ReadDir(files, "profiles")
	if err != nil {
		return nil, err
	}
	var out []*Profile
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		data, err := files.ReadFile("profiles/" + e.Name())
		if err != nil {
			return nil, err
		}
		s, err := policy.LoadSandboxProfile(policy.EmbeddedPrefix+"profile/"+name, data)
		if err != nil {
			return nil, err
		}
		out = append(out, &Profile{Name: name, Sandbox: s, Text: data})
	}
	return out, nil
})

// ProfileNames lists the embedded profiles.
func ProfileNames() []string {
	ps, _ := Profiles()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

// LookupProfile returns the embedded profile name, or an error naming the known ones.
func LookupProfile(name string) (*Profile, error) {
	ps, err := Profiles()
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown profile %q%s (known: %s)", name, didyoumean.Hint(name, ProfileNames()), strings.Join(ProfileNames(), ", "))
}

// ProfileFor returns the profile whose commands include the base name of program, or nil.
func ProfileFor(program string) *Profile {
	ps, _ := Profiles()
	base := path.Base(program)
	for _, p := range ps {
		if slices.Contains(p.Sandbox.Commands, base) {
			return p
		}
	}
	return nil
}

// Effective combines the default sandbox, the policy's section (nil when the policy has
// none) and the profiles into the section that applies.
func Effective(sec *policy.Sandbox, profiles ...*Profile) (*Section, error) {
	def, err := defaultSandbox()
	if err != nil {
		return nil, fmt.Errorf("the default sandbox: %w", err)
	}
	out := &Section{From: "moat's default sandbox"}
	apply(out, def, "default", true)
	if sec != nil {
		out.From = fmt.Sprintf("the sandbox section of %s (line %d) over moat's default", sec.Source, sec.Line)
		apply(out, sec, "", true)
	}
	for _, p := range profiles {
		apply(out, p.Sandbox, "profile "+p.Name, false)
		out.Profiles = append(out.Profiles, p.Name)
	}
	out.Deny = othersCredentials(out.Deny, out.Profiles)
	return out, nil
}

// othersCredentials replaces $agent-credentials in a deny list by the credential files
// of every agent but the ones launched (the profiles applied, named after their agents):
// an agent reads its own login, and no other's.
func othersCredentials(deny []Entry, launched []string) []Entry {
	i := slices.IndexFunc(deny, func(e Entry) bool { return e.Pattern == pathset.AgentCredentials })
	if i < 0 {
		return deny
	}
	origin := deny[i].Origin
	out := slices.Concat(deny[:i:i], nil)
	for _, a := range agent.All() {
		if slices.Contains(launched, a.Name) {
			continue
		}
		for _, p := range a.Credentials {
			out = append(out, Entry{Pattern: p.Pattern, Origin: origin + " (" + pathset.AgentCredentials + ": " + a.Title + ")"})
		}
	}
	return append(out, deny[i+1:]...)
}

// apply lays s over out: each key s writes replaces out's (replace) or adds to it.
// origin names s in reports; "" uses the position of each entry.
func apply(out *Section, s *policy.Sandbox, origin string, replace bool) {
	lists := []struct {
		dst *[]Entry
		src []policy.SandboxPath
	}{{&out.Read, s.Read}, {&out.Write, s.Write}, {&out.Exec, s.Exec}, {&out.Deny, s.Deny}, {&out.Protect, s.Protect}}
	for _, l := range lists {
		if l.src == nil {
			continue
		}
		if replace {
			*l.dst = nil
		}
		for _, p := range l.src {
			o := origin
			if o == "" {
				o = fmt.Sprintf("%s:%d:%d", s.Source, p.Line, p.Col)
			}
			create := !replace && strings.HasPrefix(p.Pattern, "~/") && strings.HasSuffix(p.Pattern, "/**")
			*l.dst = append(*l.dst, Entry{Pattern: p.Pattern, Origin: o, Create: create})
		}
	}
	for _, pp := range []struct {
		dst *policy.Ports
		src *policy.Ports
	}{{&out.Connect, s.Connect}, {&out.Bind, s.Bind}} {
		switch {
		case pp.src == nil:
		case replace:
			*pp.dst = policy.Ports{Any: pp.src.Any, Ranges: slices.Clone(pp.src.Ranges)}
		default:
			pp.dst.Any = pp.dst.Any || pp.src.Any
			pp.dst.Ranges = append(pp.dst.Ranges, pp.src.Ranges...)
		}
	}
	if s.Scope != nil && replace {
		out.Scope = *s.Scope
	}
	if l := s.Limits; l != nil && replace {
		for _, f := range []struct {
			dst *uint64
			src uint64
		}{{&out.Limits.Memory, l.Memory}, {&out.Limits.OpenFiles, l.OpenFiles}, {&out.Limits.CPUSeconds, l.CPUSeconds}} {
			if f.src != 0 {
				*f.dst = f.src
			}
		}
		if l.Processes != 0 {
			out.Limits.Processes, out.Limits.ProcessesRelative = l.Processes, l.ProcessesRelative
		}
	}
	if s.Env != nil {
		if replace {
			out.Env = policy.EnvFilter{}
		}
		out.Env.Allow = append(out.Env.Allow, s.Env.Allow...)
		out.Env.Deny = append(out.Env.Deny, s.Env.Deny...)
		out.Env.Set = append(out.Env.Set, s.Env.Set...)
	}
	for _, st := range s.State {
		out.State = append(out.State, Entry{Pattern: st.Pattern, Origin: origin, Create: true})
	}
	for _, c := range s.Caveats {
		out.Caveats = append(out.Caveats, Caveat{Origin: origin, Text: c})
	}
}
