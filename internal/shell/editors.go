package shell

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// Programs that change files without a redirection or a copy: in-place editors (perl -pi,
// vim -es, ed), converters that rewrite their operands (dos2unix), patch tools (patch,
// git apply), and archive extractors, which write anything the archive holds into their
// destination directory. Their writes are accesses like any other, so that
// self-protection and the policy's path rules judge them as they judge `> file`.

// editorPrograms are the file effects of the editing and extracting tools whose
// operands are otherwise plain (what editEffects adds comes on top); programEffects
// merges them.
func editorPrograms() map[string]fileEffects {
	// dos2unix, patch, unzip and link are in the catalog (catalog.yaml).
	return map[string]fileEffects{
		"cpio": noFiles,
		// 7-Zip matches the wildcards of the names it is given itself.
		"7z":  {rules: []accessRule{{secondOperand, call.Read}}, ownGlobs: true},
		"7za": {rules: []accessRule{{secondOperand, call.Read}}, ownGlobs: true},
		"7zr": {rules: []accessRule{{secondOperand, call.Read}}, ownGlobs: true},
		// rename's new names are computed by renamed, or its expression is opaque.
		"rename": noFiles, "prename": noFiles, "file-rename": noFiles,
	}
}

// editorOptions are the options of those tools that take a value; valueOptions merges
// them.
func editorOptions() map[string]valueOpts {
	sevenZip := valueOpts{attached: "otpmwiux"}
	return map[string]valueOpts{
		"patch": {short: "pidoBDFVrzYg", long: []string{"strip", "input", "directory", "output", "prefix", "ifdef", "fuzz", "version-control", "reject-file", "suffix", "basename-prefix", "get", "quoting-style", "reject-format", "read-only"}},
		"unzip": {short: "d"},
		"7z":    sevenZip, "7za": sevenZip, "7zr": sevenZip,
		"cpio": {short: "DEFHIMOR", long: []string{"directory", "file", "format", "pattern-file", "message", "owner", "io-size", "block-size", "rsh-command"}},
		// The editors' options that take a value, whose values are no files they edit.
		// vim's -s is left out: it is a flag in Ex mode (ex -s, vim -es), and taking its
		// value for a file only adds a write.
		"vi": vimOptions, "vim": vimOptions, "nvim": vimOptions, "ex": vimOptions, "vimdiff": vimOptions, "gvim": vimOptions, "view": vimOptions,
		"ed": {short: "p"}, "red": {short: "p"},
		"emacs": {short: "lLfe", long: []string{"eval", "load", "funcall", "directory", "chdir", "file", "insert", "visit", "find-file"}},
		"nano":  {short: "oQTXYs", long: []string{"operatingdir", "quotestr", "tabsize", "wordchars", "syntax", "speller"}},
		"kak":   {short: "ecsp"},
	}
}

// vimOptions are the value options of vi, vim, nvim and ex.
var vimOptions = valueOpts{short: "cSuUiTwWqt", long: []string{"cmd", "listen", "startuptime", "server", "remote", "servername", "cmdheight"}}

// inPlace describes a program that rewrites the files named among its operands.
type inPlace struct {
	// when are the options that make it edit in place; none means it always does.
	when []string
	// script means its first operand is its program (perl's script, rename's
	// expression) unless one of codeOpts gave the program instead.
	script   bool
	codeOpts []string
	// unread says why the commands it is given are not read (ed's can run shell
	// commands with !): the edit is then opaque as well as a write.
	unread string
	// deletes means it also removes the names it is given (rename).
	deletes bool
}

// inPlaceEditors maps a program to how it edits its operands. The editors are listed
// whatever their mode: an agent has no terminal, so an editor run by it reads its
// commands from its options, its script or standard input, and whether those write the
// file cannot be told cheaply; taking every file it opens as written is the safe answer.
var inPlaceEditors = sync.OnceValue(func() map[string]inPlace {
	edLike := inPlace{unread: "its commands, which moat does not read, can run shell commands (!)"}
	perlLike := inPlace{when: []string{"i"}, script: true, codeOpts: []string{"e", "E"}}
	return map[string]inPlace{
		"perl": perlLike, "ruby": perlLike,
		// Their options that take a value are in editorOptions; +CMD operands are
		// commands, not files.
		"vi": {}, "vim": {}, "nvim": {}, "ex": {}, "vimdiff": {}, "gvim": {}, "view": {},
		"ed": edLike, "red": edLike, "emacs": {}, "nano": {}, "kak": {}, "micro": {},
		// Converters that rewrite each file they are given.
		"dos2unix": {}, "unix2dos": {}, "mac2unix": {}, "unix2mac": {},
		"rename": {script: true, deletes: true}, "prename": {script: true, deletes: true}, "file-rename": {script: true, deletes: true},
	}
})

// editEffects adds the writes of editing, patching and extracting tools to cmd.
func (a *analyzer) editEffects(cmd *call.Command, v *view, cwd dir) {
	if e, ok := inPlaceEditors()[v.name]; ok {
		a.editedFiles(cmd, v, e, cwd)
		return
	}
	switch v.name {
	case "link":
		// link FILE1 FILE2 makes FILE2, another name of FILE1 (links.go).
		if len(v.raw) == 2 && a.addAccess(&cmd.Accesses, call.Write, v.raw[1], false, cwd) {
			cmd.Opaque = true
		}
	case "patch":
		a.patch(cmd, v, cwd)
	case "git":
		a.gitPatch(cmd, v, cwd)
	case "unzip":
		if v.flag("p", "c") && len(v.raw) > 1 && !v.raw[0].dynamic {
			// unzip -p A MEMBER…: prints the members named.
			if p, ok, _ := a.resolve(v.raw[0].lit, cwd); ok {
				a.membersRead(cmd, p, v.raw[1:], cwd)
			}
			return
		}
		if v.flag("l", "t", "v", "Z", "p", "c", "z", "T") {
			return // lists, tests or prints the archive
		}
		if v.flag(":") {
			anywhere(cmd, "unzip -:")
		}
		a.extractInto(cmd, lastValue(v, "d"), cwd)
	case "7z", "7za", "7zr":
		switch {
		case len(v.ops) > 0 && (v.ops[0] == "x" || v.ops[0] == "e"):
			a.extractInto(cmd, lastValue(v, "o"), cwd)
		case len(v.ops) > 2 && (v.ops[0] == "a" || v.ops[0] == "u"):
			// 7z a ARCHIVE FILES…: the archive is written, and each file or tree added is
			// read whole.
			cmd.Opaque = a.addAccess(&cmd.Accesses, call.Write, v.raw[1], false, cwd) || cmd.Opaque
			for _, f := range v.raw[2:] {
				cmd.Opaque = a.addAccess(&cmd.Accesses, call.Read, f, true, cwd) || cmd.Opaque
			}
		}
	case "cpio":
		switch {
		case v.flag("i", "extract"):
			if !v.flag("no-absolute-filenames") {
				// GNU cpio keeps a member's absolute name, and ../, unless told not to.
				anywhere(cmd, "cpio -i without --no-absolute-filenames")
			}
			a.extractInto(cmd, lastValue(v, "D", "directory"), cwd)
		case v.flag("p", "pass-through") && len(v.raw) > 0:
			a.extractInto(cmd, v.raw[len(v.raw)-1], cwd)
		}
	}
}

// anywhere makes an extraction that keeps its members' absolute names and ../ (tar -P,
// cpio -i, unzip -:) opaque: the archive, which moat does not read, decides where on the
// machine each file goes.
func anywhere(cmd *call.Command, how string) {
	opaqueCmd(cmd, how+" writes each member where the archive's own name for it says, anywhere on the machine")
}

// lastValue returns the value of the last of the options named, or a zero arg.
func lastValue(v *view, names ...string) arg {
	vals := v.values(names...)
	if len(vals) == 0 {
		return arg{}
	}
	return vals[len(vals)-1]
}

// extractInto records an extraction into the directory to (the working directory when
// not given): a write of the whole tree, since the archive decides which files.
func (a *analyzer) extractInto(cmd *call.Command, to arg, cwd dir) {
	if to.lit == "" && !to.dynamic {
		to = arg{lit: "."}
	}
	if a.addAccess(&cmd.Accesses, call.Write, to, true, cwd) {
		cmd.Opaque = true
	}
}

// editedFiles records the files an in-place editor writes.
func (a *analyzer) editedFiles(cmd *call.Command, v *view, e inPlace, cwd dir) {
	if len(e.when) > 0 && !v.flag(e.when...) {
		return
	}
	if e.unread != "" {
		opaqueCmd(cmd, v.name+" edits files with commands moat does not read: "+e.unread)
	}
	files := v.raw
	if e.script && !v.flag(e.codeOpts...) && len(files) > 0 {
		files = files[1:]
	}
	if e.deletes {
		a.renamed(cmd, v, cwd)
		return
	}
	for _, f := range files {
		if !f.dynamic && strings.HasPrefix(f.lit, "+") {
			continue // vim +CMD, ed's +LINE: a command, not a file
		}
		if a.addAccess(&cmd.Accesses, call.Write, f, false, cwd) {
			cmd.Opaque = true
		}
		if e.deletes {
			a.addAccess(&cmd.Accesses, call.Delete, f, false, cwd)
		}
	}
}

// patchTarget is a patch applied by a command whose diff may be in the line: the files
// it names are what the command writes, once dataflow knows the diff's text.
type patchTarget struct {
	at     int    // the command
	dir    dir    // the directory the diff's paths are relative to
	strip  int    // leading components removed from each path (-p N); -1 when not given
	prefix string // git apply --directory: prepended to each path
}

// patch: patch [OPTIONS] [ORIGFILE [PATCHFILE]]. With ORIGFILE, that file is written;
// with -o, only the output file is; otherwise the files the diff names, which are known
// when the diff is in the line, and are anything below the directory when it is not.
func (a *analyzer) patch(cmd *call.Command, v *view, cwd dir) {
	if v.flag("dry-run", "C", "check") {
		return
	}
	to := cwd
	if d := lastValue(v, "d", "directory"); d.lit != "" {
		if d.dynamic {
			cmd.Opaque = true
			return
		}
		if p, ok, opaque := a.abs(d.lit, cwd); ok {
			to = dir{p, !opaque && cwd.known}
		}
	}
	if out := lastValue(v, "o", "output"); out.lit != "" {
		if out.lit != "-" && a.addAccess(&cmd.Accesses, call.Write, out, false, to) {
			cmd.Opaque = true
		}
		return
	}
	if len(v.raw) > 0 {
		if a.addAccess(&cmd.Accesses, call.Write, v.raw[0], false, to) {
			cmd.Opaque = true
		}
		return
	}
	strip := -1
	if p := lastValue(v, "p", "strip"); p.lit != "" {
		if n, err := strconv.Atoi(p.lit); err == nil {
			strip = n
		}
	}
	a.patchTree(cmd, patchTarget{dir: to, strip: strip}, v.flag("i", "input"))
}

// gitPatch: git apply and git am change the working tree by the files their patches
// name.
func (a *analyzer) gitPatch(cmd *call.Command, v *view, cwd dir) {
	if len(v.ops) == 0 {
		return
	}
	var args []arg
	for i, x := range v.args {
		if !x.dynamic && x.lit == v.ops[0] {
			args = v.args[i+1:]
			break
		}
	}
	switch v.ops[0] {
	case "apply":
		t := patchTarget{dir: cwd, strip: 1}
		report, apply, cached, index := false, false, false, false
		fromFile := false
		for i := 0; i < len(args); i++ {
			s := args[i].lit
			switch {
			case s == "--stat" || s == "--numstat" || s == "--summary" || s == "--check":
				report = true
			case s == "--apply":
				apply = true
			case s == "--cached":
				cached = true
			case s == "--index" || s == "--3way" || s == "-3":
				index = true
			case strings.HasPrefix(s, "--directory="):
				t.prefix = strings.TrimSuffix(s[len("--directory="):], "/")
			case strings.HasPrefix(s, "-p") && len(s) > 2:
				if n, err := strconv.Atoi(s[2:]); err == nil {
					t.strip = n
				}
			case s == "-p" && i+1 < len(args):
				i++
				if n, err := strconv.Atoi(args[i].lit); err == nil {
					t.strip = n
				}
			case s == "-" || !strings.HasPrefix(s, "-"):
				fromFile = fromFile || s != "-"
			}
		}
		if report && !apply || cached && !index {
			return // prints what it would do, or changes only the index
		}
		a.patchTree(cmd, t, fromFile)
	case "am":
		for _, x := range args {
			if x.lit == "--show-current-patch" || strings.HasPrefix(x.lit, "--show-current-patch=") {
				return
			}
		}
		a.patchTree(cmd, patchTarget{dir: cwd, strip: 1}, true)
	}
}

// patchTree records a patch whose files are not named on the command line: a write of
// the whole tree it applies to, narrowed after the walk to the files the diff names when
// its text is in the line (and it is not read from a file).
func (a *analyzer) patchTree(cmd *call.Command, t patchTarget, fromFile bool) {
	if t.dir.path == "" {
		cmd.Opaque = true
		return
	}
	cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: t.dir.path, Recursive: true})
	if !fromFile {
		t.at = len(a.cmds) // the command is emitted next
		a.patches = append(a.patches, t)
	}
}

// patchedFiles narrows the writes of the patches whose diff the line holds to the files
// the diff names. It runs after the walk, when dataflow knows what each command reads.
func (a *analyzer) patchedFiles() {
	for _, t := range a.patches {
		if t.at >= len(a.cmds) {
			continue
		}
		in := a.inOf(t.at)
		if !in.known {
			continue
		}
		paths := diffPaths(in.text)
		if len(paths) == 0 {
			continue
		}
		c := &a.cmds[t.at]
		kept := c.Accesses[:0]
		for _, acc := range c.Accesses {
			if !(acc.Kind == call.Write && acc.Recursive && acc.Path == t.dir.path) {
				kept = append(kept, acc)
			}
		}
		c.Accesses = kept
		var names []string
		for _, p := range paths {
			for _, name := range stripped(p, t.strip) {
				if t.prefix != "" {
					name = t.prefix + "/" + name
				}
				if !contains(names, name) {
					names = append(names, name)
					a.addAccess(&c.Accesses, call.Write, arg{lit: name}, false, t.dir)
				}
			}
		}
		a.pathFindings(c)
	}
}

// diffPaths returns the paths a unified, context or git diff names, as written.
func diffPaths(text string) []string {
	var out []string
	add := func(p string) {
		p, _, _ = strings.Cut(p, "\t")
		p = strings.TrimSpace(p)
		if p != "" && p != "/dev/null" && !contains(out, p) {
			out = append(out, p)
		}
	}
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "--- ") && !strings.HasSuffix(line, " ----"):
			add(line[4:])
		case strings.HasPrefix(line, "*** ") && !strings.HasSuffix(line, " ****"):
			add(line[4:])
		case strings.HasPrefix(line, "diff --git "):
			for _, f := range strings.Fields(line[len("diff --git "):]) {
				add(f)
			}
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "), strings.HasPrefix(line, "rename from "):
			_, p, _ := strings.Cut(line, " to ")
			if strings.HasPrefix(line, "rename from ") {
				p = line[len("rename from "):]
			}
			add(p)
		}
	}
	return out
}

// stripped returns the names a diff's path p stands for after removing strip leading
// components; when strip is not known (patch without -p), both p itself and p without
// its first component (a/, b/) are taken.
func stripped(p string, strip int) []string {
	if strip < 0 {
		out := []string{p}
		if _, rest, ok := strings.Cut(p, "/"); ok && rest != "" {
			out = append(out, rest)
		}
		return out
	}
	for range strip {
		_, rest, ok := strings.Cut(p, "/")
		if !ok {
			break
		}
		p = rest
	}
	return []string{p}
}

// renamed records what rename does: Perl's rename (rename 's/A/B/' FILES) and
// util-linux's (rename FROM TO FILES) delete each file's name and write its new one. The
// new name is computed here for a plain substitution; any other expression is Perl code,
// and the names it makes are opaque.
func (a *analyzer) renamed(cmd *call.Command, v *view, cwd dir) {
	ops := v.raw
	if len(ops) < 2 {
		return
	}
	var newName func(string) (string, bool)
	files := ops[1:]
	expr := ops[0]
	switch {
	case expr.dynamic:
	case perlSubst(expr.lit) != nil:
		newName = perlSubst(expr.lit)
	case !strings.ContainsAny(expr.lit, "/$;()") && len(ops) >= 3 && !ops[1].dynamic:
		// util-linux: the first occurrence of FROM in each name becomes TO.
		from, to := expr.lit, ops[1].lit
		files = ops[2:]
		newName = func(s string) (string, bool) { return strings.Replace(s, from, to, 1), true }
	}
	for _, f := range files {
		if a.addAccess(&cmd.Accesses, call.Delete, f, false, cwd) {
			cmd.Opaque = true
		}
		if newName == nil || f.dynamic || f.glob {
			cmd.Findings = appendFinding(cmd.Findings, findOpaque, "rename computes the new names with code moat does not follow: "+shorten(expr.lit))
			continue
		}
		if to, ok := newName(f.lit); ok && to != f.lit {
			a.addAccess(&cmd.Accesses, call.Write, arg{lit: to}, false, cwd)
		}
	}
}

// perlSubst returns the renaming that a Perl substitution s/PATTERN/REPLACEMENT/FLAGS
// does to a name, when the pattern reads the same as a Go regular expression and the
// replacement is plain text or $1…$9; nil otherwise.
func perlSubst(expr string) func(string) (string, bool) {
	if len(expr) < 4 || expr[0] != 's' {
		return nil
	}
	sep := expr[1]
	if sep != '/' && sep != '|' && sep != '#' && sep != ',' {
		return nil
	}
	parts := strings.Split(expr[2:], string(sep))
	if len(parts) != 3 || strings.Trim(parts[2], "gi") != "" {
		return nil
	}
	pattern, repl := parts[0], parts[1]
	if strings.ContainsAny(repl, "\\@{}") || strings.Contains(pattern, "(?") {
		return nil
	}
	if strings.Contains(parts[2], "i") {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil
	}
	global := strings.Contains(parts[2], "g")
	// Perl's $1 is Go's ${1}.
	goRepl := dollarGroup().ReplaceAllString(repl, "$${$1}")
	return func(s string) (string, bool) {
		if global {
			return re.ReplaceAllString(s, goRepl), true
		}
		loc := re.FindStringSubmatchIndex(s)
		if loc == nil {
			return s, true
		}
		out := re.ExpandString(nil, goRepl, s, loc)
		return s[:loc[0]] + string(out) + s[loc[1]:], true
	}
}

// dollarGroup matches a Perl group reference in a replacement.
var dollarGroup = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$([0-9])`) })
