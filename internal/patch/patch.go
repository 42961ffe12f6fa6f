// Package patch reads the patches agents and tools apply, so that each file a patch
// changes is decided like a write, an edit or a delete of that file: Codex's apply_patch
// format and unified diffs (diff -u, git diff, git format-patch).
//
// A patch is read strictly. Whatever the reader cannot account for (text outside a file's
// section, a hunk whose lines do not add up, a binary change) is an error: a patch moat
// does not understand is not one it may let through.
package patch

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Op is what a patch does to one file.
type Op int

const (
	Add Op = iota + 1
	Update
	Delete
)

// Change is one file's change: its path (resolved against the working directory), where
// an update moves it, and the text it adds (the lines with +, joined by newlines).
type Change struct {
	Op     Op
	Path   string
	MoveTo string
	Added  string
}

// Parse reads a patch in either form; cwd resolves relative paths (a relative path with
// no cwd is an error).
func Parse(text, cwd string) ([]Change, error) {
	switch Form(text) {
	case FormApplyPatch:
		return ParseApplyPatch(text, cwd)
	case FormUnified:
		return parseUnified(text, cwd)
	}
	return nil, errors.New("patch: neither an apply_patch patch nor a unified diff")
}

// Forms of patch.
const (
	FormNone = iota
	FormApplyPatch
	FormUnified
)

// Form says which form text is in, from its first lines: FormApplyPatch when its first
// line that is not blank is *** Begin Patch; FormUnified when it holds a file header of a
// unified diff (a --- line followed by a +++ line, or diff --git); FormNone otherwise.
// It reads no further than it must.
func Form(text string) int {
	first := strings.TrimLeft(text, " \t\r\n")
	if strings.HasPrefix(first, "*** Begin Patch") {
		return FormApplyPatch
	}
	prevOld := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "diff --git "):
			return FormUnified
		case strings.HasPrefix(line, "+++ ") && prevOld:
			return FormUnified
		}
		prevOld = strings.HasPrefix(line, "--- ")
	}
	return FormNone
}

// resolver resolves a patch's paths against cwd.
func resolver(cwd string) func(string) (string, error) {
	return func(p string) (string, error) {
		p = strings.TrimSpace(p)
		if p == "" {
			return "", errors.New("a file header without a path")
		}
		if !filepath.IsAbs(p) {
			if cwd == "" {
				return "", fmt.Errorf("relative path %q and no working directory", p)
			}
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p), nil
	}
}
