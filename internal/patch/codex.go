package patch

import (
	"errors"
	"fmt"
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
// ParseApplyPatch reads a patch in that format only, as Codex's apply_patch takes it.
// Anything it cannot read is an error, and so is anything but blank lines after ***
// End Patch.
func ParseApplyPatch(patch, cwd string) ([]Change, error) {
	lines := strings.Split(strings.ReplaceAll(patch, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || strings.TrimSpace(lines[i]) != "*** Begin Patch" {
		return nil, errors.New("apply_patch: the patch does not start with *** Begin Patch")
	}
	var changes []Change
	var cur *Change
	var added []string
	flush := func() {
		if cur != nil {
			cur.Added = strings.Join(added, "\n")
			changes = append(changes, *cur)
		}
		cur, added = nil, nil
	}
	resolvePath := resolver(cwd)
	resolve := func(p string) (string, error) {
		p, err := resolvePath(p)
		if err != nil {
			return "", fmt.Errorf("apply_patch: %w", err)
		}
		return p, nil
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
			op, rest := Add, strings.TrimPrefix(line, "*** Add File: ")
			if strings.HasPrefix(line, "*** Update File: ") {
				op, rest = Update, strings.TrimPrefix(line, "*** Update File: ")
			} else if strings.HasPrefix(line, "*** Delete File: ") {
				op, rest = Delete, strings.TrimPrefix(line, "*** Delete File: ")
			}
			p, err := resolve(rest)
			if err != nil {
				return nil, err
			}
			cur = &Change{Op: op, Path: p}
		case strings.HasPrefix(line, "*** Move to: "):
			if cur == nil || cur.Op != Update || cur.MoveTo != "" {
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
			if cur.Op == Delete {
				return nil, fmt.Errorf("apply_patch: line %d adds text to a deleted file", i+1)
			}
			added = append(added, line[1:])
		case cur.Op == Add:
			if line != "" {
				return nil, fmt.Errorf("apply_patch: line %d of an added file does not start with +", i+1)
			}
		case cur.Op == Update && (strings.HasPrefix(line, "@@") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "-") || line == ""):
		default:
			return nil, fmt.Errorf("apply_patch: line %d cannot be read: %.60q", i+1, line)
		}
	}
	return nil, errors.New("apply_patch: the patch does not end with *** End Patch")
}
