package shell

import (
	"path"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// Links and copies made in the line. `ln -s ~/.claude/settings.json s && echo '{}' > s`
// writes the settings through s, and `cp /bin/rm ./x && ./x -rf ~` runs rm: a name the
// line gives a file or a program keeps what it names. Links made in an earlier call are
// the engine's to see, on disk (internal/fileid).

// linkMade is a name a command gives a file: a symbolic or a hard link.
type linkMade struct {
	name, target string
	hard         bool
	// tree marks a directory copied as hard links (cp -al): every file below name is
	// another name of the file below target.
	tree bool
}

// maxLinkHops bounds how many links of the line one path is followed through (a link
// to a link…); the line is finite, so this only bounds the work.
const maxLinkHops = 16

// linksOf returns the links the command at i makes, with absolute paths: ln, link and
// cp -l/-s. A path that cannot be resolved is left out.
func (a *analyzer) linksOf(i int) []linkMade {
	c := &a.cmds[i]
	var hard bool
	switch a.meta[i].prog {
	case "ln":
		hard = !c.HasFlag("s") && !c.HasFlag("symbolic")
	case "link":
		hard = true
	case "cp":
		hard = c.HasFlag("l") || c.HasFlag("link")
		if !hard && !c.HasFlag("s") && !c.HasFlag("symbolic-link") {
			return nil
		}
	default:
		return nil
	}
	ops := c.Operands
	if len(ops) == 0 {
		return nil
	}
	tree := hard && a.meta[i].prog == "cp" && c.HasFlag("r")
	cwd := a.meta[i].cwd
	relative := c.HasFlag("r") || c.HasFlag("relative") // ln -sr: targets are taken from the cwd
	var out []linkMade
	add := func(target, name string) {
		ln, ok, _ := a.abs(name, cwd)
		if !ok {
			return
		}
		base := cwd
		if !hard && !relative {
			base = dir{path.Dir(ln), true} // a symbolic link's target is read from where the link is
		}
		t, ok, _ := a.abs(target, base)
		if ok {
			out = append(out, linkMade{name: ln, target: t, hard: hard, tree: tree})
		}
	}
	switch len(ops) {
	case 1:
		add(ops[0], path.Base(ops[0])) // ln -s /x/y: ./y
	case 2:
		// ln T L makes L, or L/T's base name when L is a directory.
		add(ops[0], ops[1])
		add(ops[0], strings.TrimSuffix(ops[1], "/")+"/"+path.Base(ops[0]))
	default:
		d := strings.TrimSuffix(ops[len(ops)-1], "/")
		for _, t := range ops[:len(ops)-1] {
			add(t, d+"/"+path.Base(t))
		}
	}
	return out
}

// inlineLinks gives every write and delete of the line through a link the line made
// the same access to what the link names (a hard link only passes writes: deleting it
// leaves the file), and marks the targets of the links as linked (call.Access.Link),
// so that the engine can tell a link to a protected file from any other. It runs after
// the walk, over every command in the order they run; the links are kept by name, the
// latest for each, so that a path is looked up once per directory above it.
func (a *analyzer) inlineLinks() {
	var links map[string]linkMade
	for i := range a.cmds {
		if len(links) > 0 {
			a.throughLinks(&a.cmds[i], links)
		}
		made := a.linksOf(i)
		if len(made) == 0 {
			continue
		}
		c := &a.cmds[i]
		seen := ""
		for _, l := range made {
			if l.target != seen {
				c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: l.target, Link: true})
				seen = l.target
			}
			if links == nil {
				links = make(map[string]linkMade)
			}
			links[l.name] = l
		}
	}
}

// throughLinks adds to c the accesses its writes and deletes make through links.
func (a *analyzer) throughLinks(c *call.Command, links map[string]linkMade) {
	n := len(c.Accesses)
	for k := 0; k < n; k++ {
		acc := c.Accesses[k]
		if acc.Kind != call.Write && acc.Kind != call.Delete || acc.Link || acc.Glob {
			continue
		}
		p := acc.Path
		for hop := 0; hop < maxLinkHops; hop++ {
			next, ok := throughLink(p, acc.Kind, links)
			if !ok || next == p {
				break
			}
			added := acc
			added.Path = next
			if !hasAccess(c.Accesses, added) {
				c.Accesses = append(c.Accesses, added)
			}
			p = next
		}
	}
	if len(c.Accesses) > n {
		a.pathFindings(c)
	}
}

// throughLink returns what an access of kind to p reaches through the link that p is,
// or through a symbolic link to a directory that p lies under.
func throughLink(p string, kind call.AccessKind, links map[string]linkMade) (string, bool) {
	if l, ok := links[p]; ok && (!l.hard || kind == call.Write) {
		return l.target, true
	}
	for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
		if l, ok := links[d]; ok && (!l.hard || l.tree && kind == call.Write) {
			return path.Join(l.target, p[len(d):]), true // a link to / leaves no //
		}
	}
	return "", false
}

func hasAccess(accs []call.Access, x call.Access) bool {
	for _, acc := range accs {
		if acc.Equal(x) {
			return true
		}
	}
	return false
}

// copyingProgram reports whether prog gives a file's content or identity another name.
func copyingProgram(prog string) bool {
	switch prog {
	case "cp", "ln", "link", "mv", "install", "rsync", "ditto":
		return true
	}
	return false
}

// noteCopies records, after the command at i, the copies and links it makes of a known
// program: `cp /bin/rm ./x` makes ./x rm, so that running it is judged as rm.
func (a *analyzer) noteCopies(i int) {
	m := &a.meta[i]
	if !copyingProgram(m.prog) {
		return
	}
	ops := a.cmds[i].Operands
	if len(ops) < 2 {
		return
	}
	src, dst := ops[len(ops)-2], ops[len(ops)-1]
	prog := located(src)
	if prog == "" {
		prog = canonicalProgram(path.Base(src))
	}
	if !knownProgram(prog) {
		return
	}
	d, ok, _ := a.abs(dst, m.cwd)
	if !ok {
		return
	}
	if a.sh.copies == nil {
		a.sh.copies = make(map[string]string)
	}
	a.sh.copies[d] = prog
	a.sh.copies[d+"/"+path.Base(src)] = prog // dst was a directory
}

// copiedProgram returns the program that the program word names when the line made it a
// copy or link of one. Only a word with a slash is a path; a bare name is looked up in
// PATH, which the analysis does not follow.
func (a *analyzer) copiedProgram(prog arg, cwd dir) (string, bool) {
	if len(a.sh.copies) == 0 || prog.dynamic || !strings.Contains(prog.lit, "/") {
		return "", false
	}
	p, ok, _ := a.abs(prog.lit, cwd)
	if !ok {
		return "", false
	}
	name, ok := a.sh.copies[p]
	return name, ok
}

// runsByPath notes that the command at i runs, as its program, the file its program word
// names (./x, /tmp/x.sh): when the line wrote that file, dataflow judges its text as the
// code it is (writtenCode), and when it downloaded it, as downloaded code.
func (a *analyzer) runsByPath(i int) {
	m := &a.meta[i]
	c := &a.cmds[i]
	if m.script != "" || c.Path == "" || c.Dynamic {
		return
	}
	for _, acc := range c.Accesses {
		if acc.Kind == call.Exec && !acc.Glob {
			m.script = acc.Path
			return
		}
	}
}

// scriptLang returns the interpreter a file run as code is written for: the program
// that runs it when that is an interpreter (python x.py), else the one its #! line names
// (./x.py); false for shell code.
func scriptLang(prog string, r runFile, text string) (oneliner.Interpreter, bool) {
	if r.shell {
		return oneliner.Interpreter{}, false
	}
	if in, ok := oneliner.Lookup(prog); ok {
		return in, true
	}
	line, ok := strings.CutPrefix(text, "#!")
	if !ok {
		return oneliner.Interpreter{}, false
	}
	line, _, _ = strings.Cut(line, "\n")
	words := strings.Fields(line)
	if len(words) == 0 {
		return oneliner.Interpreter{}, false
	}
	name := path.Base(words[0])
	if name == "env" {
		// #!/usr/bin/env [-S] python3
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				name = path.Base(w)
				break
			}
		}
	}
	return oneliner.Lookup(canonicalProgram(name))
}

// copyWritten carries what the line wrote into a file over to the copy, link or new
// name the command at i gives it (cp a.sh /tmp/b.sh, mv, ln), so that running the copy
// runs the text. carried is the path the text was carried to, "" when none was. A copy
// of a file the line did not write is that file: one of the project or the system is
// as trusted as its source (trusted names it, so that it is not taken for a file
// written with unknown text), one from elsewhere (cp /tmp/x.sh build.sh) is not.
func (a *analyzer) copyWritten(i int, written map[string]fileText) (_ map[string]fileText, carried, trusted string) {
	m := &a.meta[i]
	if !copyingProgram(m.prog) {
		return written, "", ""
	}
	ops := a.cmds[i].Operands
	if len(ops) < 2 {
		return written, "", ""
	}
	src, ok1, _ := a.abs(ops[len(ops)-2], m.cwd)
	dst, ok2, _ := a.abs(ops[len(ops)-1], m.cwd)
	if !ok1 || !ok2 {
		return written, "", ""
	}
	t, ok := written[src]
	if !ok {
		if a.trustedSource(src) || a.trustedDir(src, m.cwd) {
			delete(written, dst) // what the line wrote there before is gone
			return written, "", dst
		}
		return written, "", ""
	}
	written[dst] = t
	written[dst+"/"+path.Base(src)] = t
	return written, dst, ""
}

// locatorOptions returns, for a program that prints where a program is, the options
// that make it do so (none needed: which); ok is false for other programs.
func locatorOptions(prog string) (opts []string, ok bool) {
	switch prog {
	case "which":
		return nil, true
	case "command":
		return []string{"-v"}, true
	case "type":
		return []string{"-P", "-p"}, true
	}
	return nil, false
}

// located returns the program a word names by locating it ($(which rm), `command -v
// rm`), or "".
func located(word string) string {
	inner, ok := strings.CutPrefix(word, "$(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	} else if inner, ok = strings.CutPrefix(word, "`"); ok {
		inner, ok = strings.CutSuffix(inner, "`")
	}
	if !ok {
		return ""
	}
	f := strings.Fields(inner)
	if len(f) < 2 {
		return ""
	}
	opts, known := locatorOptions(f[0])
	if !known || len(opts) > 0 && !contains(opts, f[1]) {
		return ""
	}
	return canonicalProgram(path.Base(f[len(f)-1]))
}

// keepsText reports whether the writes of prog leave a file's text as it was (chmod +x),
// or its code as it was (line endings, a formatter's layout).
func keepsText(prog string) bool {
	switch prog {
	case "chmod", "chown", "chgrp", "touch", "chattr", "setfacl",
		"dos2unix", "unix2dos", "mac2unix", "unix2mac", "shfmt":
		return true
	}
	return false
}

// writesThroughLinks adds, for each file a command writes that is a symbolic link on this
// machine (or lies below one), the write of the file the link leads to (Env.RealPath):
// `echo … >> notes` where notes is a link to ~/.bashrc appends to ~/.bashrc, and is judged
// so, its findings and the code it plants included. Deletes are left as written: rm
// removes a link, not what it leads to.
func (a *analyzer) writesThroughLinks(cmd *call.Command) {
	real := a.sh.env.RealPath
	if real == nil {
		return
	}
	n := len(cmd.Accesses)
	for i := 0; i < n; i++ {
		acc := cmd.Accesses[i]
		if acc.Kind != call.Write || acc.Glob || acc.Link || acc.Path == "/" || !path.IsAbs(acc.Path) {
			continue
		}
		p, ok := real(acc.Path)
		if !ok || p == acc.Path {
			continue
		}
		linked := acc
		linked.Path = p
		if !hasAccess(cmd.Accesses, linked) {
			cmd.Accesses = append(cmd.Accesses, linked)
		}
	}
}

// linksTo reports whether the path p is a link to real on this machine (Env.RealPath).
func (a *analyzer) linksTo(p, real string) bool {
	if a.sh.env.RealPath == nil || p == "" {
		return false
	}
	r, ok := a.sh.env.RealPath(p)
	return ok && r == real
}
