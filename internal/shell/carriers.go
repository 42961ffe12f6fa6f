package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// This file runs code that a command hands to another program by naming it rather than by
// running it: the value of a git setting or of an environment variable, a trap's action, a
// prompt string, an array subscript that bash evaluates. Such code is analysed where it is
// named, as what it is (a command line, interpreter code, text the shell expands), so that
// `git -c core.pager='rm -rf ~' log` is decided as rm -rf ~. Code computed at run time is
// reported as such, and a value that names a script or program file, whose code moat cannot
// read, makes the command opaque: it carries analysis.opaque, which the recommended policy
// asks about.

// codeKind is how a program runs the code a value holds.
type codeKind uint8

const (
	codeShell   codeKind = iota + 1 // a shell command line (core.pager, GIT_SSH_COMMAND)
	codeProgram                     // one program path, run with arguments of the reader's (GIT_ASKPASS)
	codeText                        // text the shell expands as inside double quotes, running its substitutions (PS1, ${x@P}, a[$(…)])
	codeGitArgs                     // arguments of git (an alias without !)
	codeInterp                      // code in an interpreter's language (PERL5DB, a data: URL)
)

// codeRef is code that a command makes another program run.
type codeRef struct {
	code    arg // the code; dynamic, with the word it comes from, when computed at run time
	kind    codeKind
	lang    oneliner.Lang // for codeInterp
	carrier string        // what hands the code over, for evidence: "core.pager", "GIT_SSH_COMMAND", "trap"
	// direct says the code is a command given on the command line to be run (git rebase
	// --exec), judged as if run directly; otherwise it is a setting, and a program file it
	// names is code moat cannot read.
	direct bool
	// secretInput says what the code reads on its standard input is credentials (git
	// hands a credential helper the username and password it stores or looks up).
	secretInput bool
}

// runCode analyses code that the command at index at makes a program run, as commands run
// after it. The command must have been emitted.
func (a *analyzer) runCode(at int, r codeRef, cwd dir) {
	if r.code.dynamic {
		if r.kind == codeShell || r.kind == codeProgram {
			if substs := cmdSubsts(r.code.word); len(substs) > 0 {
				// $(curl …) as a pager: dataflow judges what the substitution prints.
				m := &a.meta[at]
				m.codeSubsts = append(m.codeSubsts, substs...)
				m.execStdin, m.codeFromSubst = execShell, true
				a.cmds[at].Opaque = true
				return
			}
		}
		c := &a.cmds[at]
		c.Findings = appendFinding(c.Findings, findDynamicCommand, r.carrier+" holds code known only at run time: "+shorten(r.code.lit))
		c.Opaque = true
		return
	}
	start := len(a.cmds)
	if r.secretInput && !a.sh.secretInput {
		a.sh.secretInput = true
		defer func() { a.sh.secretInput = false }()
	}
	switch r.kind {
	case codeShell:
		a.nested(at, r.code.lit, cwd, false)
	case codeProgram:
		a.nested(at, shellQuote(r.code.lit), cwd, false)
	case codeText:
		a.nested(at, expandedText(r.code.lit), cwd, false)
	case codeGitArgs:
		a.nested(at, "git "+r.code.lit, cwd, false)
	case codeInterp:
		a.inspect(at, r.lang, r.code.lit, cwd)
	}
	if r.direct || r.kind != codeShell && r.kind != codeProgram {
		return
	}
	for _, c := range a.cmds[start:] {
		if f := programFile(c); f != "" {
			a.opaque(at, r.carrier+" runs "+f+", whose code moat cannot read")
			return
		}
	}
}

// opaque marks the command at index at as running code moat cannot read.
func (a *analyzer) opaque(at int, evidence string) {
	c := &a.cmds[at]
	c.Findings = appendFinding(c.Findings, findOpaque, evidence)
	c.Opaque = true
}

// opaqueCmd is opaque for a command not emitted yet.
func opaqueCmd(c *call.Command, evidence string) {
	c.Findings = appendFinding(c.Findings, findOpaque, evidence)
	c.Opaque = true
}

// expandedText is shell code whose only effect is to expand text as bash expands a prompt
// string or an array subscript: parameters, command substitutions and arithmetic, with
// quotes taken literally. An unquoted here-document body is expanded exactly so.
func expandedText(text string) string {
	delim := "MOAT_TEXT"
	for strings.Contains(text, delim) {
		delim += "_"
	}
	return ": <<" + delim + "\n" + text + "\n" + delim + "\n"
}

// programFile returns the file whose code a command runs when moat cannot read it: a program
// named by a path outside the system's directories, or a script given to a shell or an
// interpreter. It returns "" for a program named by its name, which is judged as that
// program, and for a dynamic one, which is reported as such.
func programFile(c call.Command) string {
	if c.Dynamic {
		return ""
	}
	if c.Path != "" && !systemPath(c.Path) {
		return c.Path
	}
	name := canonicalProgram(c.Name)
	if len(c.Operands) == 0 || c.Operands[0] == "-" {
		return ""
	}
	if shells()[name] {
		if c.HasFlag("c") || c.HasFlag("s") {
			return ""
		}
		return c.Operands[0]
	}
	if in, ok := oneliner.Lookup(name); ok && in.Lang != oneliner.Awk {
		for _, f := range c.Flags {
			if f == "m" && in.Lang == oneliner.Python || len(f) == 1 && strings.Contains(in.CodeShort, f) || slices.Contains(in.CodeLong, f) {
				return ""
			}
		}
		return c.Operands[0]
	}
	return ""
}

// systemDirs hold what the operating system and its package managers install, which only an
// administrator can change: a program, library or script there is the system's, not code an
// agent can have planted.
var systemDirs = []string{
	"/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/etc/", "/opt/",
	"/nix/store/", "/snap/", "/System/", "/Library/Apple/", "/Library/Developer/", "/Applications/",
}

// systemPath reports whether p is absolute and inside one of the system's directories.
func systemPath(p string) bool {
	if !path.IsAbs(p) {
		return false
	}
	p = path.Clean(p)
	for _, d := range systemDirs {
		if strings.HasPrefix(p+"/", d) {
			return true
		}
	}
	return false
}

// trustedDir reports whether code loaded from the directory or file p is code the agent
// could run anyway: the system's, or the project's (inside the working directory, which an
// unknown working directory is assumed to contain when p is relative and does not climb out).
func (a *analyzer) trustedDir(p string, cwd dir) bool {
	return p == "" || systemPath(p) || a.inProject(p, cwd)
}

// inProject reports whether p is inside the working directory, the project: when the
// working directory is unknown, whether p is relative and does not climb out.
func (a *analyzer) inProject(p string, cwd dir) bool {
	if !path.IsAbs(p) {
		if home, _ := a.st.get("HOME"); home.known && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = home.s + p[1:]
		} else if strings.HasPrefix(p, "~") {
			return false
		} else if !cwd.known {
			c := path.Clean(p)
			return c != ".." && !strings.HasPrefix(c, "../")
		} else {
			p = cwd.path + "/" + p
		}
	}
	if !cwd.known || cwd.path == "/" {
		return false
	}
	p = path.Clean(p)
	if _, fetched := a.fetchedAt(p); fetched {
		return false // git clone URL && ./tool/install.sh (fetched.go)
	}
	return p == cwd.path || strings.HasPrefix(p, cwd.path+"/")
}
