package engine

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/policy"
)

// An MCP tool that writes a file plants code as the agents' own file tools do: a
// filesystem server's write_file into the project's Makefile, and as much a code host's
// create_or_update_file of .github/workflows/ci.yml or push_files of a Makefile, which
// CI or the next clone runs. Both are judged as the shell line that writes the same text,
// by plantedUnits' analysis.

// mcpWrite is a file an MCP call writes: its path as the tool names it, and the content
// it writes or the replacements it makes.
type mcpWrite struct {
	path    string
	content string
	edits   []mcpEdit
}

// mcpEdit is one replacement of an edit: old text, and the new text put in its place.
type mcpEdit struct{ old, new string }

// text is the text the write leaves in a file that held before (readable says it could
// be read): the content written, or the edits applied to what was there; when they do
// not apply, their new texts alone.
func (w mcpWrite) text(before string, readable bool) string {
	if len(w.edits) == 0 {
		return w.content
	}
	if readable {
		after, ok := before, true
		for _, ed := range w.edits {
			if ed.old == "" || !strings.Contains(after, ed.old) {
				ok = false
				break
			}
			after = strings.Replace(after, ed.old, ed.new, 1)
		}
		if ok {
			return after
		}
	}
	var b strings.Builder
	for _, ed := range w.edits {
		b.WriteString(ed.new)
		b.WriteByte('\n')
	}
	return b.String()
}

// Argument names (squashed) of the path, the content and the edits of a written file.
var (
	mcpWritePathKeys = []string{"path", "filepath", "file", "filename"}
	mcpContentKeys   = []string{"content", "contents", "filecontent", "text", "data", "newcontent"}
	mcpEditKeys      = []string{"edits", "changes", "replacements"}
	mcpOldTextKeys   = []string{"oldtext", "oldstring", "old", "search", "find", "original"}
	mcpNewTextKeys   = []string{"newtext", "newstring", "new", "replacement", "replace"}
	mcpFilesKeys     = []string{"files", "fileslist"}
	// mcpCommitVerbs are the writes of a code host's tools beside mcpWriteVerbs.
	mcpCommitVerbs = []string{"push", "commit"}
)

// mcpWrites returns the files an MCP call writes, with what it writes.
func mcpWrites(c *call.Call) []mcpWrite {
	if c.MCP == nil {
		return nil
	}
	if words := nameWords(c.MCP.Tool); !hasWord(words, mcpWriteVerbs) && !hasWord(words, mcpCommitVerbs) {
		return nil
	}
	var out []mcpWrite
	one := func(m map[string]any) {
		var w mcpWrite
		var old, repl string
		for _, k := range sortedKeys(m) {
			key := squash(k)
			switch v := m[k].(type) {
			case string:
				switch {
				case containsWord(mcpWritePathKeys, key):
					w.path = v
				case containsWord(mcpContentKeys, key):
					w.content = v
				case containsWord(mcpOldTextKeys, key):
					old = v
				case containsWord(mcpNewTextKeys, key):
					repl = v
				}
			case []any:
				if !containsWord(mcpEditKeys, key) {
					continue
				}
				for _, e := range v {
					em, _ := e.(map[string]any)
					var ed mcpEdit
					for _, ek := range sortedKeys(em) {
						s, _ := em[ek].(string)
						switch {
						case containsWord(mcpOldTextKeys, squash(ek)):
							ed.old = s
						case containsWord(mcpNewTextKeys, squash(ek)):
							ed.new = s
						}
					}
					w.edits = append(w.edits, ed)
				}
			}
		}
		if repl != "" {
			w.edits = append(w.edits, mcpEdit{old, repl})
		}
		if w.path != "" && (w.content != "" || len(w.edits) > 0) {
			out = append(out, w)
		}
	}
	one(c.Args)
	for _, k := range sortedKeys(c.Args) {
		if list, ok := c.Args[k].([]any); ok && containsWord(mcpFilesKeys, squash(k)) {
			for _, f := range list {
				if m, ok := f.(map[string]any); ok {
					one(m)
				}
			}
		}
	}
	return out
}

// mcpPlantedUnits returns the units of the code an MCP call plants in files that tools
// run later, by the files it writes and the patches it applies. A file the call writes on this machine (one of accesses) is judged as the
// agents' file tools' writes are; one it writes elsewhere (a code host's repository)
// is judged at a path of its own (a directory of the project named for the server), by
// the text it is given, and only for the code: its own path is not this machine's.
func (e *Engine) mcpPlantedUnits(c *call.Call, base policy.Subject, accesses []call.Access, patches mcpPatch) []unit {
	var units []unit
	for _, w := range append(mcpWrites(c), patches.writes()...) {
		local := e.resolvePath(w.path, c.Cwd)
		remote := !slices.ContainsFunc(accesses, func(a call.Access) bool { return a.Kind == call.Write && a.Path == local })
		p, ok := local, false
		if remote {
			// The server's repository stands as a directory of the project, so that its
			// code runs where the project's would: in a checkout of it.
			root := cmp.Or(c.Project, c.Cwd, "/")
			p = path.Join(root, c.MCP.Server+"-repository", path.Clean("/"+w.path))
			_, ok = planted.Lookup(p, e.host.Home)
		} else {
			p, ok = e.plantedPath(local) // through a link on this machine
		}
		if !ok {
			continue
		}
		env := e.shell
		var before string
		readable := false
		if !remote {
			before, readable = readSmall(p)
		}
		text := w.text(before, readable)
		if readable {
			if addsNoLine(before, text) {
				continue
			}
			// Code the file already carried is the user's, judged when it was written.
			env.Before = map[string]string{p: before}
		}
		sc := &call.Call{Agent: c.Agent, Class: call.Shell, Tool: c.Tool, Args: map[string]any{call.ArgCommand: hereDocument(p, text)}, Cwd: c.Cwd, Project: c.Project, Session: c.Session}
		sb := base
		sb.Call = sc
		where := "the code written into " + p + ", "
		if remote {
			where = "the code " + c.MCP.String() + " writes into " + w.path + " on the server, "
		}
		for _, u := range e.shellUnitsWith(sc, sb, 0, env, nil) {
			if remote {
				// The path below the server's name stands for the file there; only the
				// code it carries is this call's to judge.
				u.subject.Accesses = slices.DeleteFunc(slices.Clone(u.subject.Accesses), func(a call.Access) bool { return a.Path == p })
			}
			u.label.prefix = where + u.label.prefix
			units = append(units, u)
		}
	}
	return units
}
