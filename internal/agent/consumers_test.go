package agent

import (
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// consumers are the packages and files that read agent knowledge: their non-test Go
// sources and their YAML (sandbox profiles, the policy packs' rules) may name an agent or
// an agent's file only as the registry has it. Paths are relative to this package.
var consumers = []string{
	"../call/agent.go", "../call/tools.go", "../shell/agents.go",
	"../hook", "../setup", "../mcpconfig", "../pathset", "../sandbox", "../sandbox/profiles",
	"../policy/packs", "../policy/builtin", "../policy/templates",
}

// agentWords are names that say a path or a word is about a coding agent: the ones the
// registry knows, and others' (so that a consumer that learns a new agent fails here
// until the registry has it). They are compared with the components of each path.
var agentWords = []string{
	// Directories and files of agents the registry has.
	".claude", ".claude.json", ".mcp.json", ".cursor", ".codeium", ".windsurf", ".gemini", ".codex",
	".vscode", ".cline", ".continue", ".openclaw", ".aider", "claude-code", "ClaudeCode", "GeminiCli",
	"gemini-cli", "cursor-agent", "swe-agent", "swerex", "claude-cli-nodejs",
	"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", ".cursorrules",
	".windsurfrules", ".clinerules", "copilot-instructions.md", "claude_desktop_config.json",
	"mcp_config.json", "cline_mcp_settings.json", "openclaw.json",
	// Files every agent names alike (sharedNames): only with a directory of the registry's.
	"settings.json", "settings.local.json", "hooks.json", "mcp.json", "config.toml",
	// Other agents'.
	".roo", ".roorules", ".kiro", ".amp", ".opencode", ".goose", ".goosehints", ".qwen", "QWEN.md",
	".junie", ".augment", ".trae", ".kilocode", ".copilot", ".aiassistant", ".zed", ".crush",
	"roo-code", "kilo-code", "github-copilot", "opencode", "goose", "qwen-code", "kiro", "junie",
	"amp", "crush", "devin", "jules",
}

// sharedNames are the file names of agentWords that other programs use too.
var sharedNames = []string{"settings.json", "settings.local.json", "hooks.json", "mcp.json", "config.toml"}

// known returns every path the registry knows, relative to its root (system paths
// without their leading slash), each with whether it stands for a tree, and every name
// the registry gives an agent or a program.
func known() (paths map[string]bool, names map[string]bool) {
	paths, names = map[string]bool{}, map[string]bool{}
	for _, a := range All() {
		names[a.Name] = true
		for _, p := range a.CLI.Programs {
			names[p] = true
		}
		for _, p := range a.Places {
			paths[strings.TrimPrefix(p.Path, "/")] = paths[strings.TrimPrefix(p.Path, "/")] || p.Tree
		}
		for _, d := range a.Data {
			paths[d] = true
		}
		for _, in := range a.Instructions {
			rel, tree := strings.CutSuffix(strings.TrimPrefix(in.Pattern, "**/"), "/**")
			paths[rel] = paths[rel] || tree
		}
	}
	return paths, names
}

// covered reports whether the path p (relative, slash separated) is one the registry
// knows: one of its paths or a directory above one, or beneath one that is a tree; or,
// with no directory, the name of one of its files.
func covered(p string, paths map[string]bool) bool {
	for k, tree := range paths {
		if !strings.Contains(p, "/") && path.Base(k) == p {
			return true
		}
		if k == p || strings.HasPrefix(k, p+"/") {
			return true
		}
		if tree && strings.HasPrefix(p, k+"/") {
			return true
		}
		// A pattern of the registry's (.codex/*.config.toml) covers what it matches.
		if ok, _ := path.Match(k, p); ok {
			return true
		}
	}
	return false
}

// words splits a literal into the paths and words it holds.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return strings.ContainsRune(" \t\n\r,;:()[]{}<>\"'`=|&!?", r)
	})
}

// relative strips what anchors a path to a root: ~/, $HOME/, **/, ./ and a leading /.
func relative(w string) string {
	for _, p := range []string{"~/", "$HOME/", "${HOME}/", "$home/", "**/", "./", "/"} {
		w = strings.TrimPrefix(w, p)
	}
	return strings.TrimSuffix(strings.TrimSuffix(w, "/**"), "/")
}

// literals returns the text of the Go string literals of a file, or the text of a YAML
// file without its comments and its tests: section (examples, not knowledge).
func literals(t *testing.T, name string) []string {
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(name, ".yaml") {
		text, _, _ := strings.Cut(string(data), "\ntests:")
		var out []string
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if !strings.HasPrefix(strings.TrimSpace(line), "#") {
				out = append(out, line)
			}
		}
		return out
	}
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile(name, -1, len(data)), data, nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			if v, err := strconv.Unquote(lit); err == nil {
				out = append(out, v)
			}
		}
	}
}

// TestConsumersKnowOnlyTheRegistry is the registry's guard: a consumer that names an
// agent's file or an agent the registry does not have fails here, so that knowledge about
// an agent is added to its row (where setup, mcp wrap, the path sets, the hooks and the
// sandbox all read it) and not to one consumer.
func TestConsumersKnowOnlyTheRegistry(t *testing.T) {
	paths, names := known()
	vocabulary := slices.Clone(agentWords)
	for n := range names {
		vocabulary = append(vocabulary, n)
	}
	var files []string
	for _, c := range consumers {
		if strings.HasSuffix(c, ".go") {
			files = append(files, c)
			continue
		}
		entries, err := os.ReadDir(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			n := e.Name()
			if e.Type().IsRegular() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go")) {
				files = append(files, filepath.Join(c, n))
			}
		}
	}
	if len(files) < 40 {
		t.Fatalf("only %d files of consumers: the walk lost some", len(files))
	}
	for _, f := range files {
		for _, lit := range literals(t, f) {
			for _, w := range words(lit) {
				rel := relative(w)
				parts := strings.Split(rel, "/")
				agentish := func(c string) bool { return slices.Contains(vocabulary, c) }
				if len(parts) > 1 {
					// A name every agent uses alike (config.toml, settings.json) is an
					// agent's file only with a directory of an agent's beside it.
					agentish = func(c string) bool { return slices.Contains(vocabulary, c) && !slices.Contains(sharedNames, c) }
				}
				if !slices.ContainsFunc(parts, agentish) {
					continue
				}
				if !strings.Contains(rel, "/") && !strings.HasPrefix(rel, ".") && !strings.Contains(rel, ".") {
					// A word: the name of an agent or of its program.
					if !names[rel] {
						t.Errorf("%s names the agent %q, which the agent registry (internal/agent) does not have", f, w)
					}
					continue
				}
				if !covered(rel, paths) {
					t.Errorf("%s names %q, a path of an agent the agent registry (internal/agent) does not list: add it to the agent's row", f, w)
				}
			}
		}
	}
}
