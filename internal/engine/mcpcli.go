package engine

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// MCP servers that wrap a command-line program with a tool for each of its commands pass
// the tool's arguments to that program as its words, where a value starting with a dash
// is an option (the reference git server's git_diff {target: "--output=~/.bashrc"} wrote
// the file, git_checkout {branch_name: "-f"} discarded work), or hand it a document it
// reads on its standard input (a Kubernetes server's kubectl_apply {manifest}). Such a
// call is judged as the command line the server runs.

// mcpGitSpec returns the git command of a reference git server's tool (mcp-server-git,
// tools git_NAME), by the words of the tool's name after "git": the git subcommand and
// the arguments, in order, whose values become its words. (A switch, not a map: the
// hook's process builds nothing at start that one call may not need.)
func mcpGitSpec(name string) ([]string, bool) {
	switch name {
	case "diff":
		return []string{"diff", "target"}, true
	case "checkout":
		return []string{"checkout", "branch_name"}, true
	case "show":
		return []string{"show", "revision"}, true
	case "create branch":
		return []string{"branch", "branch_name", "base_branch"}, true
	case "init":
		return []string{"init"}, true
	}
	return nil, false
}

// mcpGitCommand returns the git command line a git server's tool runs.
func mcpGitCommand(c *call.Call) (string, bool) {
	words := nameWords(c.MCP.Tool)
	if len(words) < 2 || words[0] != "git" || !hasWord(nameWords(c.MCP.Server), []string{"git"}) {
		return "", false
	}
	spec, ok := mcpGitSpec(strings.Join(words[1:], " "))
	if !ok {
		return "", false
	}
	repo, _ := c.Args["repo_path"].(string)
	argv := []any{"git"}
	if spec[0] == "init" {
		if repo == "" {
			return "", false
		}
		return quoteArgv(append(argv, "init", repo)), true
	}
	if repo != "" {
		argv = append(argv, "-C", repo)
	}
	argv = append(argv, spec[0])
	for _, k := range spec[1:] {
		if s, ok := c.Args[k].(string); ok && s != "" {
			argv = append(argv, s)
		}
	}
	return quoteArgv(argv), true
}

// mcpManifestKeys are the arguments (squashed) that hold a manifest a Kubernetes tool
// applies.
var mcpManifestKeys = []string{"manifest", "yaml", "yamlcontent", "resource", "resourceyaml", "content", "spec"}

// mcpManifestCommand returns kubectl apply -f - with the manifest a Kubernetes server's
// apply or create tool is given as its standard input.
func mcpManifestCommand(c *call.Call) (string, bool) {
	words := nameWords(c.MCP.Tool)
	kube := slices.Contains(words, "kubectl") || hasWord(nameWords(c.MCP.Server), []string{"kubernetes", "k8s", "kubectl", "kube"})
	if !kube || !hasWord(words, []string{"apply", "create", "replace"}) {
		return "", false
	}
	for _, k := range sortedKeys(c.Args) {
		s, ok := c.Args[k].(string)
		if !ok || !containsWord(mcpManifestKeys, squash(k)) || strings.TrimSpace(s) == "" {
			continue
		}
		d := stdinDelimiter(s)
		return "kubectl apply -f - <<'" + d + "'\n" + s + "\n" + d, true
	}
	return "", false
}
