// Package pathset defines the named sets of paths that policies refer to ($secrets,
// $system, $agent-config, …), as data.
package pathset

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/glob"
)

// Host is what the sets depend on for one user and one moat installation.
type Host struct {
	Home string
	// Temp lists the temporary directories ($temp).
	Temp []string
	// Moat lists the patterns of the files and directories moat owns ($moat): its policy
	// files, its config and state directories, its binary.
	Moat []string
	// Vars are environment variables whose values place this host's directories
	// ($XDG_STATE_HOME, $XDG_RUNTIME_DIR), known before a command runs: the shell
	// analysis reads a command naming them as naming those directories.
	Vars map[string]string `json:",omitempty"`
	// Globs, when set, keeps the patterns compiled for this host, which its sets are
	// compiled through: the policy, self-protection and the engine resolve the same sets.
	// Nil compiles each pattern afresh. It describes no host, and is never encoded (a
	// sandbox's carving is keyed by the host's encoding).
	Globs *glob.Memo `json:"-"`
}

// Entry is one pattern of a set, with the reason it is there. Patterns are written with
// `~/` for the home directory and `**/` for "in any directory".
type Entry struct {
	Pattern string
	Why     string
}

// Set is a named set of paths: everything an Include entry matches and no Exclude entry does.
type Set struct {
	Name    string // with its $, as policies write it
	Summary string
	Include []Entry
	Exclude []Entry
}

// Workspace is the set whose roots are only known per call (the project of the call).
const Workspace = "$workspace"

// Names lists every set a policy may name, in documentation order.
var Names = []string{"$workspace", "$home", "$temp", "$system", "$secrets", "$agent-credentials", "$agent-config", "$agent-instructions", "$moat"}

// Roots lists the sets that stand for directory trees and so may be followed by a path
// (`$home/.config/**`, `$workspace/build/**`).
var Roots = []string{"$workspace", "$home", "$temp"}

// IsRoot reports whether name is a set that may prefix a path.
func IsRoot(name string) bool {
	for _, r := range Roots {
		if r == name {
			return true
		}
	}
	return false
}

// Known reports whether name is a set.
func Known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// Resolved is a set as absolute glob patterns for one host.
type Resolved struct {
	Include []string
	Exclude []string
}

// Resolve returns the absolute patterns of the set name on host h. $workspace cannot be
// resolved here: its roots belong to each call.
func Resolve(name string, h Host) (Resolved, error) {
	switch name {
	case Workspace:
		return Resolved{}, fmt.Errorf("%s depends on the call and is resolved when a call is evaluated", name)
	case "$home":
		return Resolved{Include: []string{path.Join(h.Home, "**")}}, nil
	case "$temp":
		var r Resolved
		for _, t := range h.Temp {
			r.Include = append(r.Include, path.Join(t, "**"))
			r.Exclude = append(r.Exclude, homeBelow(t, h.Home)...)
		}
		return r, nil
	case "$moat":
		return Resolved{Include: append([]string(nil), h.Moat...)}, nil
	}
	if name == AgentConfig {
		s := agentConfig()
		return Resolved{Include: absolute(s.Include, h)}, nil
	}
	if name == AgentInstructions {
		s := agentInstructions()
		return withoutHome(Resolved{Include: absolute(s.Include, h)}, h.Home, h.Globs), nil
	}
	if name == AgentCredentials {
		return Resolved{Include: absolute(agentCredentials().Include, h)}, nil
	}
	for _, s := range staticSets {
		if s.Name == name {
			r := Resolved{Include: absolute(s.Include, h), Exclude: absolute(s.Exclude, h)}
			return withoutHome(r, h.Home, h.Globs), nil
		}
	}
	return Resolved{}, fmt.Errorf("unknown path set %s (known: %s)", name, strings.Join(Names, ", "))
}

// homeBelow returns, when the home directory lies inside the temporary directory t (a CI
// runner's or a sandbox's HOME under /tmp), the paths of $temp that are the home
// directory's and not the machine's scratch space: the home directory, all below it, and
// the directories between t and it, whose deletion deletes it. Nothing when it does not.
func homeBelow(t, home string) []string {
	if home == "" || home == "/" || !strings.HasPrefix(home, strings.TrimSuffix(t, "/")+"/") {
		return nil
	}
	out := []string{path.Join(home, "**")}
	for d := home; d != t && len(d) > len(t); d = path.Dir(d) {
		out = append(out, d)
	}
	return out
}

// Static returns the data of the sets that do not depend on the host beyond its home, in
// documentation order.
func Static() []Set {
	out := make([]Set, 0, len(staticSets)+2)
	for _, n := range Names {
		switch n {
		case AgentConfig:
			out = append(out, agentConfig())
			continue
		case AgentInstructions:
			out = append(out, agentInstructions())
			continue
		case AgentCredentials:
			out = append(out, agentCredentials())
			continue
		}
		for _, s := range staticSets {
			if s.Name == n {
				out = append(out, s)
			}
		}
	}
	return out
}

// AgentConfig is the set of the agents' hook and MCP configuration.
const AgentConfig = "$agent-config"

// agentConfig makes $agent-config from the agent registry: every place of every agent,
// on every system, and the backups moat keeps of the files it rewrites. `moat setup` and
// `moat mcp wrap` find the files they edit in the same registry, so a file moat edits is
// always a file self-protection guards. The set is made once per process: every policy
// compiled resolves it (self-protection names it), and the registry does not change.
var agentConfig = sync.OnceValue(func() Set {
	return registrySet(AgentConfig, "the agents' hook and MCP configuration: changing it can switch moat off", agent.Protected())
})

// registrySet makes a set of patterns from the agent registry.
func registrySet(name, summary string, patterns []agent.Pattern) Set {
	s := Set{Name: name, Summary: summary}
	for _, p := range patterns {
		s.Include = append(s.Include, Entry{Pattern: p.Pattern, Why: p.Why})
	}
	s.Include = slices.Clip(s.Include) // shared: an append by a caller copies it
	return s
}

// AgentInstructions is the set of the files agents read as standing instructions.
const AgentInstructions = "$agent-instructions"

// agentInstructions makes $agent-instructions from the agent registry: each agent's row
// names the instruction files it reads, beside its hook and MCP places. It is made once,
// as agentConfig is.
var agentInstructions = sync.OnceValue(func() Set {
	return registrySet(AgentInstructions, "the files agents read as standing instructions: text written there steers every later session", agent.Instructions())
})

// AgentCredentials is the set of the files where agents keep their own logins.
const AgentCredentials = "$agent-credentials"

// agentCredentials makes $agent-credentials from the agent registry. It is made once, as
// agentConfig is.
var agentCredentials = sync.OnceValue(func() Set {
	return registrySet(AgentCredentials, "the files where agents keep their own logins: each agent reads its own itself, so a tool call that reads one takes another program's credentials", agent.Credentials())
})

// Expand turns a pattern as written in a set or a policy into an absolute pattern:
// `~` and `~/…` name the home directory, `**/…` means any directory.
func Expand(pattern, home string) string {
	switch {
	case pattern == "~":
		return home
	case strings.HasPrefix(pattern, "~/"):
		return path.Join(home, pattern[2:])
	case strings.HasPrefix(pattern, "**/"):
		return "/" + pattern
	}
	return pattern
}

func absolute(entries []Entry, h Host) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = Expand(e.Pattern, h.Home)
	}
	return out
}
