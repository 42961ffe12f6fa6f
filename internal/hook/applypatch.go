package hook

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Codex edits files with apply_patch, whose one argument is a patch in its own format:
//
//	*** Begin Patch
//	*** Add File: path        then the new file's lines, each prefixed with +
//	*** Update File: path     optionally *** Move to: newpath, then @@ hunks of
//	                          " " context, "-" removed and "+" added lines
//	*** Delete File: path
//	*** End Patch
//
// moat splits it into one change per file, so that each is decided like a write, an
// edit or a delete.

// patchOp is what a patch does to one file.
type patchOp int

const (
	patchAdd patchOp = iota + 1
	patchUpdate
	patchDelete
)

// patchChange is one file's change: its path (resolved against the working directory),
// where an update moves it, and the text it adds (the lines with +).
type patchChange struct {
	Op     patchOp
	Path   string
	MoveTo string
	Added  string
}

// parsePatch reads an apply_patch argument. Anything it cannot read is an error, and so is
// anything but blank lines after *** End Patch: a patch moat does not understand is not a
// patch moat may let through.
func parsePatch(patch, cwd string) ([]patchChange, error) {
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || strings.TrimSpace(lines[i]) != "*** Begin Patch" {
		return nil, errors.New("apply_patch: the patch does not start with *** Begin Patch")
	}
	var changes []patchChange
	var cur *patchChange
	var added []string
	flush := func() {
		if cur != nil {
			cur.Added = strings.Join(added, "\n")
			changes = append(changes, *cur)
		}
		cur, added = nil, nil
	}
	resolve := func(p string) (string, error) {
		p = strings.TrimSpace(p)
		if p == "" {
			return "", errors.New("apply_patch: a file header without a path")
		}
		if !filepath.IsAbs(p) {
			if cwd == "" {
				return "", fmt.Errorf("apply_patch: relative path %q and no working directory", p)
			}
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p), nil
	}
	for i++; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "*** End Patch":
			flush()
			if len(changes) == 0 {
				return nil, errors.New("apply_patch: the patch changes no file")
			}
			// Whatever follows the end (a second patch, stray text) is something the
			// agent's own reader might apply and moat would not have decided.
			for j := i + 1; j < len(lines); j++ {
				if strings.TrimSpace(lines[j]) != "" {
					return nil, fmt.Errorf("apply_patch: line %d follows *** End Patch: %.60q", j+1, lines[j])
				}
			}
			return changes, nil
		case strings.HasPrefix(line, "*** Add File: "), strings.HasPrefix(line, "*** Update File: "), strings.HasPrefix(line, "*** Delete File: "):
			flush()
			op, rest := patchAdd, strings.TrimPrefix(line, "*** Add File: ")
			if strings.HasPrefix(line, "*** Update File: ") {
				op, rest = patchUpdate, strings.TrimPrefix(line, "*** Update File: ")
			} else if strings.HasPrefix(line, "*** Delete File: ") {
				op, rest = patchDelete, strings.TrimPrefix(line, "*** Delete File: ")
			}
			p, err := resolve(rest)
			if err != nil {
				return nil, err
			}
			cur = &patchChange{Op: op, Path: p}
		case strings.HasPrefix(line, "*** Move to: "):
			if cur == nil || cur.Op != patchUpdate || cur.MoveTo != "" {
				return nil, fmt.Errorf("apply_patch: line %d: *** Move to: outside an update", i+1)
			}
			p, err := resolve(strings.TrimPrefix(line, "*** Move to: "))
			if err != nil {
				return nil, err
			}
			cur.MoveTo = p
		case line == "*** End of File":
		case cur == nil:
			if strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("apply_patch: line %d is outside any file section: %.60q", i+1, line)
			}
		case strings.HasPrefix(line, "+"):
			if cur.Op == patchDelete {
				return nil, fmt.Errorf("apply_patch: line %d adds text to a deleted file", i+1)
			}
			added = append(added, line[1:])
		case cur.Op == patchAdd:
			if line != "" {
				return nil, fmt.Errorf("apply_patch: line %d of an added file does not start with +", i+1)
			}
		case cur.Op == patchUpdate && (strings.HasPrefix(line, "@@") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "-") || line == ""):
		default:
			return nil, fmt.Errorf("apply_patch: line %d cannot be read: %.60q", i+1, line)
		}
	}
	return nil, errors.New("apply_patch: the patch does not end with *** End Patch")
}
