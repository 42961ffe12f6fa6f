package engine

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/scan/smuggling"
)

// maxPlantedFile bounds the file read from disk to apply an edit to; a larger file is
// judged by the edit's new text alone.
const maxPlantedFile = 1 << 20

// plantedUnits returns the units of the code a file write or edit plants in a file that
// tools run later without asking (a Makefile recipe, a package.json script, a git hook…):
// the write is judged as the shell line that writes the same text (cat > FILE <<EOF), so
// that one analysis (internal/shell with internal/planted) serves the agents' file tools
// and their shell commands alike, and the code is decided by the rules it would meet when
// it runs. An edit is judged by the file it leaves, less the code the file already
// carried; text that adds no line the file did not already have plants nothing new.
func (e *Engine) plantedUnits(c *call.Call, base policy.Subject) []unit {
	if c.Class != call.FileWrite && c.Class != call.FileEdit {
		return nil
	}
	raw := c.String(call.ArgPath)
	if raw == "" {
		return nil
	}
	p, ok := e.plantedPath(e.resolvePath(raw, c.Cwd))
	var before string
	var readable bool
	if !ok {
		// A file of no kind by its name that begins with an interpreter line is a script
		// (bin/setup): what the write leaves in it says so. Only a write that starts so,
		// or an edit of a file that does, costs a read of the file.
		if c.Class == call.FileWrite && !strings.HasPrefix(c.String(call.ArgContent), "#!") || c.Class == call.FileEdit && !startsWithShebang(p) {
			return nil
		}
		before, readable = readSmall(p)
		text, _ := plantedText(c, before, readable)
		if _, ok = planted.ByShebang(text); !ok {
			return nil
		}
	} else {
		before, readable = readSmall(p)
	}
	text, whole := plantedText(c, before, readable)
	if text == "" || readable && addsNoLine(before, text) {
		return nil
	}
	sc := &call.Call{Agent: c.Agent, Class: call.Shell, Tool: c.Tool, Args: map[string]any{call.ArgCommand: hereDocument(p, text)}, Cwd: c.Cwd, Project: c.Project, Session: c.Session}
	sb := base
	sb.Call = sc
	env := e.shell
	if readable {
		// Code the file already carried is the user's, judged when it was written.
		env.Before = map[string]string{p: before}
	}
	if !whole {
		env.Pieces = map[string]bool{p: true}
	}
	units := e.shellUnitsWith(sc, sb, 0, env, nil)
	kept := units[:0]
	for _, u := range units {
		// Look-alike forms (…, ², fullwidth punctuation) are everyday text in a file's
		// strings and comments; its code is analysed as normalised all the same, so a
		// look-alike command is judged as the command it reads as. Invisible characters
		// stay findings: they hide what the code says (Trojan Source).
		isCompat := func(f call.Finding) bool { return f.ID == smuggling.FindCompatibilityForm }
		if slices.ContainsFunc(u.subject.Findings, isCompat) {
			u.subject.Findings = slices.DeleteFunc(slices.Clone(u.subject.Findings), isCompat)
			if len(u.subject.Findings) == 0 && u.label == fixedLabel("the command line") && len(units) > 1 {
				continue // the line's own unit held nothing else
			}
		}
		u.label.prefix = "the code written into " + p + ", " + u.label.prefix
		kept = append(kept, u)
	}
	return kept
}

// plantedPath returns the file a write of the path p on this machine puts code in that a
// tool runs later, and whether it is one: p, or the file a link at p leads to
// (notes.txt → ~/.bashrc), which the write goes through.
func (e *Engine) plantedPath(p string) (string, bool) {
	if _, ok := planted.Lookup(p, e.host.Home); ok {
		return p, true
	}
	real, linked := e.realPath(p)
	if !linked {
		return p, false
	}
	_, ok := planted.Lookup(real, e.host.Home)
	return real, ok
}

// plantedText is the text a write or edit leaves in the file: a write's content; an edit
// applied to the file as it is on disk, or, when the file cannot be read or the edit does
// not apply, the edit's new text alone, a piece of the file (whole is false).
func plantedText(c *call.Call, before string, readable bool) (text string, whole bool) {
	if c.Class == call.FileWrite {
		return c.String(call.ArgContent), true
	}
	if readable {
		if after, ok := applyEdits(c, before); ok {
			return after, true
		}
	}
	var b strings.Builder
	for _, w := range writtenTexts(c) {
		b.WriteString(w.text)
		b.WriteByte('\n')
	}
	return b.String(), false
}

// applyEdits applies an edit's replacements to text, as the agents' edit tools do.
func applyEdits(c *call.Call, text string) (string, bool) {
	type edit struct {
		old, new string
		all      bool
	}
	var edits []edit
	if old, ok := c.Args[call.ArgOld].(string); ok {
		n, _ := c.Args[call.ArgNew].(string)
		all, _ := c.Args["replace_all"].(bool)
		edits = append(edits, edit{old, n, all})
	}
	if list, ok := c.Args[call.ArgEdits].([]any); ok {
		for _, x := range list {
			m, ok := x.(map[string]any)
			if !ok {
				return "", false
			}
			old, _ := m[call.ArgOld].(string)
			n, _ := m[call.ArgNew].(string)
			all, _ := m["replace_all"].(bool)
			edits = append(edits, edit{old, n, all})
		}
	}
	if len(edits) == 0 {
		return "", false
	}
	for _, ed := range edits {
		if ed.old == "" || !strings.Contains(text, ed.old) {
			return "", false
		}
		if ed.all {
			text = strings.ReplaceAll(text, ed.old, ed.new)
		} else {
			text = strings.Replace(text, ed.old, ed.new, 1)
		}
	}
	return text, true
}

// startsWithShebang reports whether the file at p begins with #!.
func startsWithShebang(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [2]byte
	n, _ := io.ReadFull(f, b[:])
	return n == 2 && string(b[:]) == "#!"
}

// readSmall reads a file of at most maxPlantedFile bytes.
func readSmall(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlantedFile+1))
	if err != nil && !errors.Is(err, io.EOF) || len(b) > maxPlantedFile {
		return "", false
	}
	return string(b), true
}

// addsNoLine reports whether every line of after with text on it is already a line of
// before: the write reorders, removes or keeps code, but plants none.
func addsNoLine(before, after string) bool {
	have := make(map[string]bool, strings.Count(before, "\n")+1)
	for _, l := range strings.Split(before, "\n") {
		have[strings.TrimRight(l, "\r")] = true
	}
	for _, l := range strings.Split(after, "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) != "" && !have[l] {
			return false
		}
	}
	return true
}

// hereDocument is the shell line that writes text into the file p.
func hereDocument(p, text string) string {
	delim := "MOAT_PLANTED_EOF"
	for strings.Contains(text, delim) {
		delim += "_"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return "cat > " + shellWord(p) + " <<'" + delim + "'\n" + text + delim + "\n"
}

// shellWord quotes s as one shell word.
func shellWord(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
