// Package agent is the registry of the AI agents and MCP clients moat knows: where each
// keeps the settings that route its calls through moat, and how its program can be
// started without them.
package agent

import (
	"path"
	"strings"
)

// Every consumer of agent knowledge reads this one table: the agent names policies and
// calls use (call.Agents, call.ParseAgent) are its guarded rows; `moat hook` has an
// adapter for each hooked row and `moat setup` finds the hook files it edits here; `moat
// mcp wrap` finds the MCP files; the $agent-config path set lists every place of every
// row (so a file moat edits is always a file moat protects) and $agent-instructions
// every row's instruction files; each sandbox profile is named after a row and opens its
// data; and shell analysis reads the rows' CLI knowledge to tell a second agent started
// without its hooks from one started normally. Tests in those packages fail when their
// set of agents differs from the registry's, and consumers_test.go when any of them
// names an agent or an agent's file the table does not have. The table is static data:
// reading it costs no work when moat starts.

// Role says what a place holds and which of moat's commands edits it.
type Role uint8

// Roles of places. The zero value is not a role.
const (
	// Hooks are hook settings: `moat setup` writes moat's hooks there.
	Hooks Role = iota + 1
	// HookTrust is where the agent records which hooks the user trusted (Codex runs only
	// trusted hooks); `moat setup` records moat's hooks there.
	HookTrust
	// MCP are MCP server lists: `moat mcp wrap` rewrites them.
	MCP
	// Settings are the agent's other files that can add, replace or switch off its hooks
	// or MCP servers (managed settings, local overrides, profiles); moat never edits them.
	Settings
)

// Edited reports whether one of moat's commands rewrites places of the role, keeping a
// backup of the old text.
func (r Role) Edited() bool { return r == Hooks || r == HookTrust || r == MCP }

// Root says what a place's path is relative to.
type Root uint8

// Roots of places. The zero value is not a root.
const (
	// Home paths are relative to the user's home directory.
	Home Root = iota + 1
	// Project paths are relative to the root of a project (any directory, for protection).
	Project
	// System paths are absolute.
	System
)

// Place is one file (or, with Tree, one directory and everything below it) of an agent's
// configuration.
type Place struct {
	Role Role
	Root Root
	// Path is slash separated, relative to the root; absolute for System. It may hold
	// the glob metacharacter * for places the agent names by pattern (Codex profiles).
	Path string
	// OS is the GOOS value the place is for. A place with no OS is for every system that
	// has no place of its own of the same role and root.
	OS   string
	Tree bool
	Why  string
}

// Guard says how moat sees an agent's tool calls.
type Guard uint8

// Guards. The zero value is a program whose calls moat does not decide: an MCP client
// (Claude Desktop, VS Code) whose servers `moat mcp wrap` routes through moat's proxy.
const (
	// Hooked agents ask moat's hooks before each tool call: `moat hook NAME` answers
	// them in the agent's protocol, and `moat setup NAME` installs the hooks.
	Hooked Guard = iota + 1
	// Launched agents have no hooks moat answers: they are guarded through moat-shell,
	// `moat run` or the sandbox (`moat launch`), and policies name them all the same.
	Launched
)

// Agent is one row of the registry.
type Agent struct {
	// Name is how moat's commands and policies name the agent (setup, mcp wrap, hook,
	// a rule's agent:, a sandbox profile).
	Name  string
	Title string
	// Guard says how moat sees the agent's calls; zero for MCP clients only.
	Guard Guard
	// Dir is the directory, under the home, whose presence says the agent is installed;
	// empty for agents whose hooks moat does not set up.
	Dir    string
	Places []Place
	// Instructions are the files the agent reads as standing instructions, as path-set
	// patterns: the $agent-instructions set is made of them.
	Instructions []Pattern
	// Credentials are the files where the agent keeps its own login (tokens, keys), as
	// path-set patterns: the agent reads them itself, never through a tool call, so a
	// call that reads one is reading another program's credentials ($agent-credentials).
	// They stay out of $secrets, which the sandbox hides: each agent must read its own.
	Credentials []Pattern
	// Data, for an agent the sandbox has a profile for (internal/sandbox/profiles/
	// NAME.yaml), are the directories and files under the home, slash separated, where
	// the agent keeps its own configuration and state: the profile makes them writable,
	// except its places, which stay protected. Empty for agents without a profile.
	Data []string
	// CLI is the agent's command-line program; its zero value for agents without one.
	CLI CLI
}

// HasProfile reports whether the sandbox has a profile for the agent.
func (a Agent) HasProfile() bool { return len(a.Data) > 0 }

// BackupSuffix is added to a file's path for the copy of its old text that moat keeps
// when it rewrites the file: `moat mcp wrap` keeps it beside the file, `moat setup` under
// moat's state directory. A backup is restored by hand, so it is protected like the file.
const BackupSuffix = ".moat-backup"

// All returns every agent moat knows, in documentation order. The slice is shared: do
// not modify it.
func All() []Agent { return registry }

// Lookup returns the agent named name.
func Lookup(name string) (Agent, bool) {
	for _, a := range registry {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Files returns the paths of the agent's places of role and root on the system goos (a
// GOOS value): the places for goos when it has any, else those for every system. The
// paths are as written in the table (slash separated, relative to the root).
func (a Agent) Files(role Role, root Root, goos string) []string {
	var own, every []string
	for _, p := range a.Places {
		if p.Role != role || p.Root != root {
			continue
		}
		switch p.OS {
		case goos:
			own = append(own, p.Path)
		case "":
			every = append(every, p.Path)
		}
	}
	if len(own) > 0 {
		return own
	}
	return every
}

// Guarded returns the agents whose calls moat decides, in the order policies and error
// messages list them: the hooked agents first, then the launched ones, each in
// documentation order. The slice is new on every call.
func Guarded() []Agent {
	var out []Agent
	for _, g := range []Guard{Hooked, Launched} {
		for _, a := range registry {
			if a.Guard == g {
				out = append(out, a)
			}
		}
	}
	return out
}

// File returns the one path of the agent's places of role and root on goos, or "" when
// it has none.
func (a Agent) File(role Role, root Root, goos string) string {
	if f := a.Files(role, root, goos); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Pattern is a protected path as path sets write patterns: `~/` for the home directory,
// `**/` for any directory.
type Pattern struct {
	Pattern string
	Why     string
}

// Protected returns, for every agent and every system, each place as a pattern, and for
// each file moat rewrites the backup it keeps beside it. A file of another system is
// protected too: it is harmless where it means nothing, and the table stays one list.
func Protected() []Pattern {
	var out []Pattern
	seen := make(map[string]bool)
	add := func(p, why string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, Pattern{p, why})
		}
	}
	for _, a := range registry {
		for _, p := range a.Places {
			pat := p.Pattern()
			add(pat, a.Title+": "+p.Why)
			if p.Role.Edited() && !p.Tree {
				add(pat+BackupSuffix, a.Title+": the copy moat keeps when it rewrites "+path.Base(p.Path)+"; restoring it by hand would bring back what it holds")
			}
		}
	}
	return out
}

// Instructions returns every agent's instruction files, in documentation order, each once.
func Instructions() []Pattern {
	return everyAgents(func(a Agent) []Pattern { return a.Instructions })
}

// Credentials returns every agent's credential files, in documentation order, each once.
func Credentials() []Pattern {
	return everyAgents(func(a Agent) []Pattern { return a.Credentials })
}

// everyAgents returns the patterns of agent's row, in documentation order, each
// once.
func everyAgents(of func(Agent) []Pattern) []Pattern {
	var out []Pattern
	seen := make(map[string]bool)
	for _, a := range registry {
		for _, p := range of(a) {
			if !seen[p.Pattern] {
				seen[p.Pattern] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Pattern returns the place as a path-set pattern.
func (p Place) Pattern() string {
	var s string
	switch p.Root {
	case Home:
		s = "~/" + p.Path
	case Project:
		s = "**/" + p.Path
	default:
		s = p.Path
	}
	if p.Tree {
		s = strings.TrimSuffix(s, "/") + "/**"
	}
	return s
}
