package patch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A unified diff (diff -u, git diff, git format-patch) holds, for each file, a header
// (--- old and +++ new paths, after git's diff --git line and extended headers such as
// new file mode or rename from/to) and hunks:
//
//	@@ -12,3 +12,4 @@        then the counted lines: " " context, "-" removed, "+" added
//
// Text between files (a commit message, a signature) is not applied by patch or git
// apply, and is skipped. A hunk is read by its counts, so that an added line that looks
// like a header is still an added line.

// unifiedFile is the file a unified diff's header block names, while it is read.
type unifiedFile struct {
	gitOld, gitNew string // from diff --git a/OLD b/NEW
	old, new       string // from --- and +++
	created        bool   // new file mode, or --- /dev/null
	deleted        bool   // deleted file mode, or +++ /dev/null
	renameFrom     string
	renameTo       string
	git            bool
	added          []string
}

func parseUnified(text, cwd string) ([]Change, error) {
	resolve := resolver(cwd)
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if lines[len(lines)-1] == "" {
		// What follows the last newline is not a line.
		lines = lines[:len(lines)-1]
	}
	var changes []Change
	var cur *unifiedFile
	flush := func() error {
		if cur == nil {
			return nil
		}
		ch, err := cur.change(resolve)
		cur = nil
		if err != nil {
			return err
		}
		changes = append(changes, ch)
		return nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "diff --git "):
			if err := flush(); err != nil {
				return nil, err
			}
			a, b, err := gitPaths(strings.TrimPrefix(line, "diff --git "))
			if err != nil {
				return nil, fmt.Errorf("patch: line %d: %w", i+1, err)
			}
			cur = &unifiedFile{gitOld: a, gitNew: b, git: true}
		case strings.HasPrefix(line, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			if cur == nil || cur.old != "" {
				if err := flush(); err != nil {
					return nil, err
				}
				cur = &unifiedFile{}
			}
			old, err := headerPath(strings.TrimPrefix(line, "--- "))
			if err != nil {
				return nil, fmt.Errorf("patch: line %d: %w", i+1, err)
			}
			nw, err := headerPath(strings.TrimPrefix(lines[i+1], "+++ "))
			if err != nil {
				return nil, fmt.Errorf("patch: line %d: %w", i+2, err)
			}
			cur.old, cur.new = old, nw
			i++
		case strings.HasPrefix(line, "@@ "):
			if cur == nil || cur.old == "" {
				return nil, fmt.Errorf("patch: line %d: a hunk outside any file", i+1)
			}
			next, err := cur.hunk(lines, i)
			if err != nil {
				return nil, err
			}
			i = next - 1
		case strings.HasPrefix(line, "GIT binary patch"), strings.HasPrefix(line, "Binary files ") && strings.HasSuffix(line, " differ"):
			return nil, fmt.Errorf("patch: line %d: a binary change, whose content moat cannot read", i+1)
		case cur != nil && cur.git && cur.old == "":
			// git's extended headers, between diff --git and the --- line.
			switch {
			case strings.HasPrefix(line, "new file mode "):
				cur.created = true
			case strings.HasPrefix(line, "deleted file mode "):
				cur.deleted = true
			case strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "copy from "):
				cur.renameFrom = strings.TrimPrefix(strings.TrimPrefix(line, "rename from "), "copy from ")
			case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
				cur.renameTo = strings.TrimPrefix(strings.TrimPrefix(line, "rename to "), "copy to ")
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, errors.New("patch: the diff changes no file")
	}
	return changes, nil
}

// hunk reads the hunk whose header is lines[at], and returns the index of the line after
// it. Its lines must add up to the header's counts.
func (f *unifiedFile) hunk(lines []string, at int) (int, error) {
	oldLeft, newLeft, err := hunkCounts(lines[at])
	if err != nil {
		return 0, fmt.Errorf("patch: line %d: %w", at+1, err)
	}
	i := at + 1
	for ; i < len(lines) && (oldLeft > 0 || newLeft > 0); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, `\`):
			// \ No newline at end of file: a marker, not a line of the file.
			continue
		case line == "" || line[0] == ' ':
			// Context; an empty line is context whose space was stripped on the way.
			oldLeft--
			newLeft--
		case line[0] == '-':
			oldLeft--
		case line[0] == '+':
			newLeft--
			f.added = append(f.added, line[1:])
		default:
			return 0, fmt.Errorf("patch: line %d of a hunk cannot be read: %.60q", i+1, line)
		}
		if oldLeft < 0 || newLeft < 0 {
			return 0, fmt.Errorf("patch: line %d: the hunk at line %d holds more lines than its header says", i+1, at+1)
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return 0, fmt.Errorf("patch: the hunk at line %d ends before its header's count", at+1)
	}
	for i < len(lines) && strings.HasPrefix(lines[i], `\`) {
		i++
	}
	return i, nil
}

// hunkCounts reads @@ -OLD[,N] +NEW[,M] @@: the old and new line counts (1 when left out).
func hunkCounts(header string) (oldCount, newCount int, err error) {
	rest := strings.TrimPrefix(header, "@@ ")
	end := strings.Index(rest, " @@")
	if end < 0 {
		return 0, 0, fmt.Errorf("a hunk header without its closing @@: %.60q", header)
	}
	fields := strings.Fields(rest[:end])
	if len(fields) != 2 || !strings.HasPrefix(fields[0], "-") || !strings.HasPrefix(fields[1], "+") {
		return 0, 0, fmt.Errorf("a hunk header that cannot be read: %.60q", header)
	}
	count := func(r string) (int, error) {
		_, n, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1, nil
		}
		c, err := strconv.Atoi(n)
		if err != nil || c < 0 {
			return 0, fmt.Errorf("a hunk header that cannot be read: %.60q", header)
		}
		return c, nil
	}
	if oldCount, err = count(fields[0]); err != nil {
		return 0, 0, err
	}
	newCount, err = count(fields[1])
	return oldCount, newCount, err
}

// headerPath reads the path of a --- or +++ line: git's quoted form or plain text, without
// the timestamp diff -u puts after a tab.
func headerPath(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		q, err := quotedPrefix(s)
		if err != nil {
			return "", err
		}
		return strconv.Unquote(q)
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " ")
	if s == "" {
		return "", errors.New("a file header without a path")
	}
	return s, nil
}

// gitPaths reads the two paths of diff --git a/OLD b/NEW, quoted or not. Unquoted paths
// with spaces are split where the second begins with b/ (as git does when the two are
// the same path).
func gitPaths(s string) (string, string, error) {
	if strings.HasPrefix(s, `"`) {
		q, err := quotedPrefix(s)
		if err != nil {
			return "", "", err
		}
		a, err := strconv.Unquote(q)
		if err != nil {
			return "", "", err
		}
		b, err := headerPath(strings.TrimSpace(s[len(q):]))
		return a, b, err
	}
	if i := strings.LastIndex(s, ` "`); i >= 0 && strings.HasSuffix(s, `"`) {
		b, err := strconv.Unquote(s[i+1:])
		return s[:i], b, err
	}
	if i := strings.Index(s, " b/"); i >= 0 {
		return s[:i], s[i+1:], nil
	}
	return "", "", fmt.Errorf("diff --git line that cannot be read: %.60q", s)
}

// quotedPrefix returns the double-quoted string at the start of s, quotes included.
func quotedPrefix(s string) (string, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i+1], nil
		}
	}
	return "", errors.New("a quoted path without its closing quote")
}

// change is the Change the file's block makes.
func (f *unifiedFile) change(resolve func(string) (string, error)) (Change, error) {
	old, nw := f.old, f.new
	if old == "" {
		// A git change with no hunks: a mode change, an empty new file, a rename.
		old, nw = f.gitOld, f.gitNew
	}
	strip := f.git || strings.HasPrefix(old, "a/") && strings.HasPrefix(nw, "b/")
	unprefix := func(p, prefix string) string {
		if strip && p != "/dev/null" {
			return strings.TrimPrefix(p, prefix)
		}
		return p
	}
	old, nw = unprefix(old, "a/"), unprefix(nw, "b/")
	ch := Change{Op: Update, Added: strings.Join(f.added, "\n")}
	var err error
	switch {
	case old == "/dev/null" || f.created:
		ch.Op = Add
		ch.Path, err = resolve(nw)
	case nw == "/dev/null" || f.deleted:
		if len(f.added) > 0 {
			return Change{}, fmt.Errorf("patch: %s is deleted, yet the diff adds lines to it", old)
		}
		ch.Op = Delete
		ch.Path, err = resolve(old)
	default:
		if f.renameFrom != "" || f.renameTo != "" {
			old, nw = f.renameFrom, f.renameTo
		}
		ch.Path, err = resolve(old)
		if err == nil && nw != old {
			ch.MoveTo, err = resolve(nw)
		}
	}
	if err != nil {
		return Change{}, fmt.Errorf("patch: %w", err)
	}
	return ch, nil
}
