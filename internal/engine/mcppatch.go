package engine

import (
	"path/filepath"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/patch"
)

// An MCP tool that applies a patch (apply_patch, git_apply, apply_diff, an edit tool
// given a diff) writes, edits and deletes the files the patch names, with the text its
// hunks add: each is judged as the agents' own file tools' change of that file is, as
// Codex's apply_patch is (internal/hook). A patch is recognised by its text (the
// apply_patch form or a unified diff) in an argument of a tool that applies, or in a
// patch argument of a tool that writes; a tool that applies, given in such an argument
// a text moat cannot read as a patch, is opaque.

var (
	// mcpApplyVerbs are the words of a tool's name that say it applies what it is given.
	mcpApplyVerbs = []string{"apply", "patch"}
	// mcpPatchKeys are the argument names (squashed) that hold a patch.
	mcpPatchKeys = []string{"patch", "diff", "unifieddiff", "patchtext", "difftext", "patchcontent", "input"}
	// mcpPatchDirKeys are the argument names (squashed) of the directory a patch's
	// relative paths are applied in.
	mcpPatchDirKeys = []string{"repopath", "repositorypath", "cwd", "workdir", "workingdirectory", "directory", "dir", "root"}
)

// mcpPatch is what an MCP call's patches do.
type mcpPatch struct {
	changes []patch.Change
	// opaque says why a patch the tool applies could not be read ("" when none).
	opaque string
}

// mcpPatches reads the patches an MCP call applies.
func (e *Engine) mcpPatches(c *call.Call) mcpPatch {
	var out mcpPatch
	if c.MCP == nil {
		return out
	}
	words := nameWords(c.MCP.Tool)
	applies := hasWord(words, mcpApplyVerbs)
	if !applies && !hasWord(words, mcpWriteVerbs) {
		return out
	}
	dir := c.Cwd
	for _, k := range sortedKeys(c.Args) {
		if s, ok := c.Args[k].(string); ok && containsWord(mcpPatchDirKeys, squash(k)) && s != "" {
			dir = e.resolvePath(s, c.Cwd)
			break
		}
	}
	for _, k := range sortedKeys(c.Args) {
		text, ok := c.Args[k].(string)
		if !ok {
			continue
		}
		isKey := containsWord(mcpPatchKeys, squash(k))
		form := patch.Form(text)
		if form == patch.FormNone || !applies && !isKey {
			if applies && isKey && text != "" && out.opaque == "" {
				out.opaque = c.MCP.String() + " applies " + k + ", which is not a patch moat can read"
			}
			continue
		}
		changes, err := patch.Parse(text, filepath.Clean(dir))
		if err != nil {
			if out.opaque == "" {
				out.opaque = c.MCP.String() + " applies a patch moat cannot read: " + err.Error()
			}
			continue
		}
		out.changes = append(out.changes, changes...)
	}
	return out
}

// accesses are the file accesses the patches make: a write of each file added or
// updated, a deletion of each file deleted or moved away.
func (p mcpPatch) accesses() []call.Access {
	var out []call.Access
	for _, ch := range p.changes {
		switch {
		case ch.Op == patch.Delete:
			out = append(out, call.Access{Kind: call.Delete, Path: ch.Path})
		case ch.MoveTo != "":
			out = append(out, call.Access{Kind: call.Delete, Path: ch.Path}, call.Access{Kind: call.Write, Path: ch.MoveTo})
		default:
			out = append(out, call.Access{Kind: call.Write, Path: ch.Path})
		}
	}
	return out
}

// writes are the files the patches write, with the text they add: a new file's content,
// or an update's added lines as one replacement of unknown text (which mcpWrite.text
// judges as those lines alone).
func (p mcpPatch) writes() []mcpWrite {
	var out []mcpWrite
	for _, ch := range p.changes {
		switch {
		case ch.Op == patch.Delete:
		case ch.Op == patch.Add:
			out = append(out, mcpWrite{path: ch.Path, content: ch.Added})
		default:
			to := ch.Path
			if ch.MoveTo != "" {
				to = ch.MoveTo
			}
			out = append(out, mcpWrite{path: to, edits: []mcpEdit{{new: ch.Added}}})
		}
	}
	return out
}
