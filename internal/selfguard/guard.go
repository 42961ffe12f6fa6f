// Package selfguard finds, in the commands of a shell line, the runs of moat's own CLI
// that would loosen its protection, reading them with the flag definitions the CLI uses.
package selfguard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
)

// FindingID is the finding the guard reports on a command that would loosen moat's
// protection; self-protection denies it.
const FindingID = "tamper.moat-command"

// Options configure a Guard.
type Options struct {
	// Binary is the running moat binary: a file that is this file (a link to it) is moat.
	// "" when it is not known.
	Binary string
	// Path is the PATH programs named without a slash are found in, as the agent's shell
	// finds them: the hook's own, which the agent passed on.
	Path string
}

// Guard judges command lines by moat's CLI surface. It is immutable and safe for
// concurrent use.
type Guard struct {
	root      *node
	hook      *node // moat hook, where the hook client's arguments go
	programs  []Program
	envGroups []EnvVar // the variables whose setting loosens protection, and PATH
	binary    string
	path      string
	readBuild func(path string) (string, error)
}

// New indexes moat's command tree and the uses of it that loosen protection.
func New(opts Options) *Guard {
	g := &Guard{binary: opts.Binary, path: opts.Path, readBuild: readBuildPath, programs: Programs()}
	byPath := make(map[string]*node)
	for _, c := range Surface() {
		byPath[c.Path] = &node{Command: c, word: lastWord(c.Path)}
	}
	for _, p := range Placeholders() {
		if _, ok := byPath[p.Path]; !ok {
			// Until it exists, a placeholder takes any flags and always loosens.
			byPath[p.Path] = &node{Command: Command{Path: p.Path, Runnable: true}, word: lastWord(p.Path), uses: []Use{{Command: p.Path, Why: p.Why}}, placeholder: true}
		}
	}
	for _, u := range Uses() {
		if n := byPath[u.Command]; n != nil {
			n.uses = append(n.uses, u)
		}
	}
	for _, r := range Runners() {
		if n := byPath[r.Command]; n != nil {
			n.runner = &r
		}
	}
	// Link each command to its parent, making the parents of placeholders (daemon) as
	// commands that take any flags.
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		n := byPath[p]
		for p != "" {
			parent := ""
			if i := strings.LastIndexByte(p, ' '); i >= 0 {
				parent = p[:i]
			}
			pn := byPath[parent]
			if pn == nil {
				pn = &node{Command: Command{Path: parent}, word: lastWord(parent), placeholder: n.placeholder}
				byPath[parent] = pn
			}
			if !slices.Contains(pn.children, n) {
				pn.children = append(pn.children, n)
			}
			n, p = pn, parent
		}
	}
	g.root = byPath[""]
	g.root.markLoosens()
	g.hook = g.root.child("hook")
	for _, v := range EnvVars() {
		if v.Group != "" || v.Name == "PATH" {
			g.envGroups = append(g.envGroups, v)
		}
	}
	return g
}

// markLoosens sets loosens on n and every command below it from their uses.
func (n *node) markLoosens() bool {
	n.loosens = len(n.uses) > 0
	for _, c := range n.children {
		if c.markLoosens() {
			n.loosens = true
		}
	}
	return n.loosens
}

// Judgment is what the guard found about one command of a line.
type Judgment struct {
	// Findings are the uses of moat's CLI that loosen protection.
	Findings []call.Finding
	// Runs are the command lines the command runs (moat run -- CMD, moat shell -c CMD),
	// to be analysed as the agent's own: moat launch and moat mcp proxy do not decide
	// them, and moat run decides them with whatever policy it was given.
	Runs []string
	// Moat says the command runs moat, under whatever name: its uses are judged here, so
	// it is no unknown program.
	Moat bool
}

// line is what the guard knows of the whole line a command is part of.
type line struct {
	cmds []call.Command
	text string
	cwd  string
	// set maps each group of variables the line sets ("policy", "path") to the first
	// such variable, once computed.
	set map[string]string
}

// Line judges the commands of one analysed shell line: cmds are the commands the shell
// analysis found in text, run from cwd. The result has one judgment per command, or is
// nil when no command is a loosening use of moat.
func (g *Guard) Line(cmds []call.Command, text, cwd string) []Judgment {
	var out []Judgment
	l := &line{cmds: cmds, text: text, cwd: cwd}
	for i := range cmds {
		j := g.command(l, i)
		if len(j.Findings) == 0 && len(j.Runs) == 0 && !j.Moat {
			continue
		}
		if out == nil {
			out = make([]Judgment, len(cmds))
		}
		out[i] = j
	}
	return out
}

// command judges the i-th command of the line.
func (g *Guard) command(l *line, i int) Judgment {
	cmd := &l.cmds[i]
	var j Judgment
	if f, ok := g.exported(l, cmd); ok {
		j.Findings = append(j.Findings, f)
	}
	id, ok := g.identify(l, i)
	if !ok {
		return j
	}
	j.Moat = true
	for _, entry := range id.entries {
		args := id.args
		if entry != "" {
			args = append(strings.Fields(entry), args...)
		}
		v := g.judge(l, args, id)
		if v.finding != "" {
			how := ""
			if id.how != "" {
				how = " (" + id.how + ")"
			}
			f := Kinds.New(FindingID, v.finding+how)
			if !slices.Contains(j.Findings, f) {
				j.Findings = append(j.Findings, f)
			}
		}
		if v.runs != "" && !slices.Contains(j.Runs, v.runs) {
			j.Runs = append(j.Runs, v.runs)
		}
	}
	return j
}

// exportCommands are the builtins that export, or declare for a later export, a
// variable of the shell.
var exportCommands = []string{"export", "declare", "typeset", "readonly"}

// exported reports an export of one of moat's own variables that loosen protection
// (export MOAT_POLICY=…): in a shell that the agent keeps between calls, it would reach
// every moat command run later, which the line of that command does not show.
func (g *Guard) exported(l *line, cmd *call.Command) (call.Finding, bool) {
	if !slices.Contains(exportCommands, cmd.Name) {
		return call.Finding{}, false
	}
	for _, a := range cmd.Args {
		name, _, _ := strings.Cut(a, "=")
		name = strings.TrimSuffix(name, "+")
		if !strings.HasPrefix(name, "MOAT_") {
			continue
		}
		for _, v := range g.envGroups {
			if v.Name == name && v.Group != "" {
				return Kinds.New(FindingID, fmt.Sprintf("%s %s: would carry over to the moat commands run later in this shell, where it %s", cmd.Name, name, v.Why)), true
			}
		}
	}
	return call.Finding{}, false
}

// identify finds whether the i-th command of the line runs moat, and with which
// arguments. A program that is not named moat is looked at (its path, its file) only
// when its arguments would loosen protection if it were moat.
func (g *Guard) identify(l *line, i int) (identity, bool) {
	cmd := &l.cmds[i]
	if p, ok := g.programNamed(cmd.Name); ok && !cmd.Dynamic {
		path := execPath(cmd, l.cwd)
		if path == "" {
			path = g.lookPath(cmd.Name)
		}
		id := identity{entries: g.entriesOf(p.Package), sure: true, self: g.isSelf(path), args: cmd.Args}
		switch {
		case id.self || g.binary == "":
		case path == "":
			// Agents may run hooks with a shorter PATH than their shell's.
			id.how = cmd.Name + " is not on the PATH moat was given, so it may not be the moat binary " + g.binary
		default:
			id.how = path + " is not the moat binary " + g.binary
		}
		return id, true
	}
	if cmd.Name == "go" && !cmd.Dynamic && len(cmd.Args) > 0 && cmd.Args[0] == "run" {
		pkg, files, rest, _ := goCommand(cmd.Args[1:])
		if len(files) == 0 && pkg == "" {
			return identity{}, false
		}
		if id, ok := g.goRunIdentity(cmd.Args[1:], l.cwd, func(p string) bool { return l.writes(i, p) }); ok {
			// A package known to be moat is judged whatever its arguments; a local one
			// that only may be is judged by the arguments, as below.
			if id.sure || g.shaped(l, rest, false) {
				return id, true
			}
		}
		return identity{}, false
	}
	if !g.shaped(l, cmd.Args, true) {
		return identity{}, false
	}
	maybe := func(how string) (identity, bool) {
		return identity{entries: g.entriesOf(mainPackage), how: how, args: cmd.Args}, true
	}
	if cmd.Dynamic {
		return maybe("the program is only known when the line runs, and may be moat")
	}
	if path := execPath(cmd, l.cwd); path != "" {
		switch {
		case l.writes(i, path):
			return maybe(path + " is written on this line before it runs, and may be moat")
		case !exists(path):
			return maybe(path + " does not exist yet, and may be moat once the line runs")
		}
		if e, how, ok := g.fileIdentity(path); ok {
			return identity{entries: e, sure: true, self: g.isSelf(path), how: how, args: cmd.Args}, true
		}
		return identity{}, false
	}
	if p := g.lookPath(cmd.Name); p != "" {
		if e, how, ok := g.fileIdentity(p); ok {
			return identity{entries: e, sure: true, self: g.isSelf(p), how: how, args: cmd.Args}, true
		}
		return identity{}, false
	}
	if l.sets(g, "path") != "" {
		return maybe(cmd.Name + " is found through the PATH this line sets, and may be moat")
	}
	return identity{}, false
}

// shaped reports whether args, given to moat, would loosen protection as they are
// written: the cheap test every command passes through before its program is looked at.
// An argument only known at run time is taken as written here, and a parse error
// as no use: for a program that is not known to be moat, only what its words say counts.
// other: the program is not the running moat binary, if it is moat at all.
func (g *Guard) shaped(l *line, args []string, other bool) bool {
	c := conds{set: l.setter(g), self: !other}
	// Which binary it would be is not known: the words are read as moat's, and as the
	// hook client's (moat hook's). moat shell's reading needs the name moat-shell, which
	// only a program named so has.
	n, rest := g.root.find(args)
	if g.shapedAs(n, rest, c) {
		return true
	}
	return g.hook != nil && g.shapedAs(g.hook, args, c)
}

// shapedAs reports whether the run of n with the arguments rest loosens protection.
func (g *Guard) shapedAs(n *node, rest []string, c conds) bool {
	if !n.loosens {
		return false
	}
	if n.placeholder {
		return placeholderWhy(n, rest) != ""
	}
	if !n.mayUse(rest, c) {
		return false // the common case, decided without parsing
	}
	p := n.parse(rest)
	if p.Err != nil || p.Help {
		return false
	}
	_, ok := n.use(p, c)
	return ok
}

// execPath is the absolute path of the file the command runs, when it names one.
func execPath(cmd *call.Command, cwd string) string {
	for _, acc := range cmd.Accesses {
		if acc.Kind == call.Exec && !acc.Glob && filepath.IsAbs(acc.Path) {
			return acc.Path
		}
	}
	if cmd.Path == "" {
		return ""
	}
	if filepath.IsAbs(cmd.Path) {
		return filepath.Clean(cmd.Path)
	}
	if filepath.IsAbs(cwd) {
		return filepath.Join(cwd, cmd.Path)
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// writes reports whether a command before the i-th one writes path, or a directory
// holding it: what runs then is not what is there now.
func (l *line) writes(i int, path string) bool {
	for k := 0; k < i && k < len(l.cmds); k++ {
		c := &l.cmds[k]
		for _, acc := range c.Accesses {
			if acc.Kind == call.Write && (acc.Path == path || strings.HasPrefix(path, acc.Path+"/")) {
				return true
			}
		}
		if c.Name == "go" && len(c.Args) > 0 && (c.Args[0] == "build" || c.Args[0] == "install") {
			// go build -o FILE writes FILE, which the shell analysis does not know.
			if _, _, _, out := goCommand(c.Args[1:]); out != "" {
				if !filepath.IsAbs(out) {
					out = filepath.Join(l.cwd, out)
				}
				out = filepath.Clean(out)
				if out == path || strings.HasPrefix(path, out+"/") {
					return true
				}
			}
		}
	}
	return false
}

// sets returns a variable of group that the line sets ("" when none): as an
// assignment, an export, env NAME=…, unset, declare, read… anywhere in the line,
// including the code of sh -c strings, which is text of the line too. A mention that
// only reads the variable ($HOME, ${MOAT_POLICY:-x}) does not count; any other does,
// which is the cautious reading.
func (l *line) sets(g *Guard, group string) string {
	if l.set == nil {
		l.set = make(map[string]string)
		for _, v := range g.envGroups {
			grp := v.Group
			if v.Name == "PATH" {
				grp = "path"
			}
			if _, done := l.set[grp]; !done && setsVar(l.text, v.Name) {
				l.set[grp] = v.Name
			}
		}
	}
	return l.set[group]
}

// setter returns l.sets for g, as node.use takes it.
func (l *line) setter(g *Guard) func(string) string {
	return func(group string) string { return l.sets(g, group) }
}

// setsVar reports whether text names the variable other than to read it.
func setsVar(text, name string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], name)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(name)
		if off < len(text) && isNameByte(text[off]) {
			continue
		}
		if i > 0 && (isNameByte(text[i-1]) || text[i-1] == '$') {
			continue
		}
		// ${NAME…}, ${#NAME}, ${!NAME}: an expansion, which reads it.
		pre := text[:i]
		pre = strings.TrimSuffix(strings.TrimSuffix(pre, "#"), "!")
		if strings.HasSuffix(pre, "${") {
			continue
		}
		return true
	}
}

func isNameByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// verdict is how one run of moat is judged.
type verdict struct {
	finding string // what loosens protection, and why; "" when nothing does
	runs    string // the command line the run runs, to be analysed; "" when none
}

// conds is what the conditions of uses are evaluated against, besides the flags.
type conds struct {
	// set returns a variable of a group that the line sets, or "".
	set func(group string) string
	// unknown names the flags whose values are only known at run time: they may be set
	// to anything, and so cannot make a run read only.
	unknown map[string]bool
	// self: the program is the running moat binary, the one the hooks run.
	self bool
}

// mayUse reports whether a use of n may apply to a run with the arguments args: its
// conditions other than flags hold, and for each flag it needs, a word of args could set
// it (pflag has no abbreviations: --NAME…, or a bundle of shorthands holding its
// letter). It saves parsing the arguments of commands that cannot loosen protection.
func (n *node) mayUse(args []string, c conds) bool {
	for _, u := range n.uses {
		ok := true
		for _, w := range u.When {
			switch {
			case w == notSelf:
				ok = !c.self
			case strings.HasPrefix(w, "$"):
				ok = c.set(w[1:]) != ""
			default:
				ok = n.mayBeSet(args, w)
			}
			if !ok {
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// mayBeSet reports whether a word of args could set the flag called name.
func (n *node) mayBeSet(args []string, name string) bool {
	f := n.flag(name)
	if f == nil {
		return false
	}
	for _, a := range args {
		if rest, ok := strings.CutPrefix(a, "--"); ok {
			if rest == "" {
				return false // operands follow
			}
			if rest == name || strings.HasPrefix(rest, name+"=") {
				return true
			}
			continue
		}
		if f.Shorthand != "" && len(a) > 1 && a[0] == '-' && strings.Contains(a[1:], f.Shorthand) {
			return true
		}
	}
	return false
}

// use returns the first use of n that the parsed run p makes, with the conditions that
// hold.
func (n *node) use(p Parsed, c conds) (string, bool) {
	unknown := c.unknown
	for _, u := range n.uses {
		if slices.ContainsFunc(u.Unless, func(f string) bool { return isSet(p.Set[f]) && !unknown[f] }) {
			continue
		}
		var held []string
		ok := true
		for _, w := range u.When {
			switch {
			case w == notSelf:
				if c.self {
					ok = false
				}
			case w == approvalID:
				ok = ok && (len(p.Args) == 0 || mayBeApprovalID(p.Args[0]))
			case strings.HasPrefix(w, "$"):
				if v := c.set(w[1:]); v != "" {
					held = append(held, v)
				} else {
					ok = false
				}
			case isSet(p.Set[w]) || unknown[w]:
				held = append(held, "--"+w)
			default:
				ok = false
			}
		}
		if ok {
			what := "moat " + n.Path
			if len(held) > 0 {
				what += " (" + strings.Join(held, ", ") + ")"
			}
			return what + ": " + u.Why, true
		}
	}
	return "", false
}

// word is an argument of a moat command whose value may only be known at run time.
type word struct {
	text    string
	dynamic bool // holds an expansion, or a pattern that may match file names like flags
	whole   bool // the expansion is quoted as a whole, so it stays one word
}

// dynamicWord reports whether the analysed argument a keeps its source text because its
// value is only known at run time ($X, "$(cmd)"), or is a pattern whose matches may
// start with a dash (* matches a file named --uninstall).
func dynamicWord(a string) word {
	w := word{text: a}
	if strings.ContainsAny(a, "$`") {
		w.dynamic = true
		w.whole = len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"' && !strings.Contains(a[1:len(a)-1], `"`)
		return w
	}
	if a != "" && strings.ContainsAny(a, "*?[") && (strings.ContainsRune("*?[-", rune(a[0]))) {
		w.dynamic = true
	}
	return w
}

// judge reads args as moat's CLI would and returns the verdict. For a program known to
// be moat, arguments only known at run time are taken at their worst: where they could
// name a command, a flag or a flag's value that loosens protection, they are taken to.
func (g *Guard) judge(l *line, args []string, id identity) verdict {
	if !id.sure {
		// Only what the words say counts for a program that may be moat; that it would
		// not be the running binary is no evidence that it is moat at all.
		n, rest := g.root.find(args)
		if !n.loosens {
			return verdict{}
		}
		if n.placeholder {
			return placeholderVerdict(n, rest)
		}
		p := n.parse(rest)
		if p.Err != nil && n.parentOfPlaceholders() {
			return placeholderVerdict(n, rest)
		}
		if p.Err != nil || p.Help {
			return verdict{}
		}
		if what, ok := n.use(p, conds{set: l.setter(g), self: true}); ok {
			return verdict{finding: what}
		}
		return verdict{}
	}
	// Each word only known at run time is replaced by a marker that names no command or
	// flag, so that the static words are read as the CLI reads them; where a marker is
	// read then says what it may do.
	words := make([]word, len(args))
	static := make([]string, len(args))
	dynamic := false
	for i, a := range args {
		words[i] = dynamicWord(a)
		static[i] = a
		if words[i].dynamic {
			static[i] = marker(i)
			dynamic = true
		}
	}
	n, rest := g.root.find(static)
	if n.placeholder {
		return placeholderVerdict(n, rest)
	}
	if dynamic && len(n.children) > 0 && n.loosens {
		if first, ok := n.firstWord(rest); ok && isMarker(first) {
			return verdict{finding: unknownArgs(n, "a command")}
		}
	}
	if n.RawArgs {
		// The command reads its own arguments (moat shell): only the environment can
		// make it loosen protection, and what it runs is analysed. A shell that runs no
		// command string refuses to run at all.
		p := n.parse(rest)
		if r := n.runner; r != nil && r.Shell && !shellRunsString(p.Args) {
			return verdict{}
		}
		v := verdict{}
		if what, ok := n.use(p, conds{set: l.setter(g), self: id.self}); ok {
			v.finding = what
		}
		v.runs = n.runs(p, words, static)
		return v
	}
	unknown := map[string]bool{}
	if dynamic {
		var opaque bool
		rest, opaque = n.markUnknown(rest, words, unknown)
		if opaque && len(n.uses) > 0 {
			return verdict{finding: unknownArgs(n, "flags")}
		}
	}
	p := n.parse(rest)
	if p.Err != nil && n.parentOfPlaceholders() {
		return placeholderVerdict(n, rest)
	}
	if p.Err != nil {
		if len(n.uses) > 0 {
			return verdict{finding: fmt.Sprintf("moat %s: %v; another build of moat may read these arguments otherwise, and a use of this command loosens protection", n.Path, p.Err)}
		}
		return verdict{}
	}
	if p.Help {
		return verdict{}
	}
	v := verdict{}
	if what, ok := n.use(p, conds{set: l.setter(g), unknown: unknown, self: id.self}); ok {
		v.finding = what
	}
	v.runs = n.runs(p, words, static)
	return v
}

// placeholderVerdict judges a run of a placeholder command, or of the parent of some.
func placeholderVerdict(n *node, rest []string) verdict {
	if why := placeholderWhy(n, rest); why != "" {
		return verdict{finding: "moat " + n.Path + why}
	}
	return verdict{}
}

// placeholderWhy is the reason a placeholder command, or one of its children named in
// rest (daemon … stop), loosens protection; "" when neither does.
func placeholderWhy(n *node, rest []string) string {
	if len(n.uses) > 0 {
		return ": " + n.uses[0].Why
	}
	// The parent of placeholders (daemon) takes any flags, so any word may be the child.
	for _, w := range rest {
		if c := n.child(w); c != nil && len(c.uses) > 0 {
			return " " + c.name() + ": " + c.uses[0].Why
		}
	}
	return ""
}

// parentOfPlaceholders reports whether some children of n, a command below the root,
// are commands to come. Another build may have them with flags this one refuses (daemon
// --force uninstall): past arguments this build cannot read, any child named in them is
// taken to run.
func (n *node) parentOfPlaceholders() bool {
	if n.Path == "" {
		return false
	}
	for _, c := range n.children {
		if c.placeholder {
			return true
		}
	}
	return false
}

func unknownArgs(n *node, what string) string {
	why := ""
	for _, u := range n.uses {
		why = u.Why
		break
	}
	if why == "" {
		return fmt.Sprintf("moat %s: %s only known when the line runs may name one of moat's commands that loosen its protection", n.Path, what)
	}
	return fmt.Sprintf("moat %s: %s only known when the line runs may make it loosen protection: it %s", n.Path, what, why)
}

// marker stands for the i-th argument, only known at run time: a word that is no
// command and no flag, and that the CLI takes as an operand.
func marker(i int) string { return fmt.Sprintf("\x00%d", i) }

// mayBeApprovalID reports whether an operand may name a call of the approval queue: a
// hexadecimal word, or a word only known at run time.
func mayBeApprovalID(s string) bool {
	if isMarker(s) || strings.ContainsAny(s, "$`*?[") {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20 // lower case
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return s != ""
}

func isMarker(s string) bool { return strings.HasPrefix(s, "\x00") }

// markUnknown walks the arguments of n as pflag will, and decides what each marker
// stands for: the value of the flag before it (when the expansion stays one word), a
// flag's value after = (likewise), or an operand (after --, or after the first operand
// of a command whose flags end there). The flags given values only known at run time
// are recorded in unknown, and their markers replaced by a value of the flag's kind.
// opaque reports a marker that may be flags: nothing about the run is known then.
func (n *node) markUnknown(args []string, words []word, unknown map[string]bool) (out []string, opaque bool) {
	out = slices.Clone(args)
	wordOf := func(s string) (word, bool) {
		if !isMarker(s) {
			return word{}, false
		}
		var i int
		if _, err := fmt.Sscanf(s[1:], "%d", &i); err != nil || i < 0 || i >= len(words) {
			return word{}, false
		}
		return words[i], true
	}
	for i := 0; i < len(out); i++ {
		s := out[i]
		if w, ok := wordOf(s); ok {
			// --policy="$P" and -p"$P": a flag is named, its value is unknown.
			if f, ok := n.flagOfWord(w.text); ok && valueQuoted(w.text) {
				unknown[f.Name] = true
				out[i] = "--" + f.Name + "=" + placeholderValue(f)
				continue
			}
			return out, true
		}
		switch {
		case s == "--":
			return out, false
		case strings.HasPrefix(s, "--") && len(s) > 2:
			name, _, hasValue := strings.Cut(s[2:], "=")
			f := n.flag(name)
			if f == nil || hasValue || f.NoOptDefVal != "" || i+1 >= len(out) {
				continue
			}
			i++
			if w, ok := wordOf(out[i]); ok {
				if !w.whole {
					return out, true
				}
				unknown[f.Name] = true
				out[i] = placeholderValue(f)
			}
		case strings.HasPrefix(s, "-") && len(s) > 1:
			// A bundle of shorthands: the first that takes a value takes the rest of the
			// word, or the next word.
			for k := 1; k < len(s); k++ {
				f := n.shorthand(s[k : k+1])
				if f == nil || f.NoOptDefVal != "" {
					continue
				}
				if k == len(s)-1 && i+1 < len(out) {
					i++
					if w, ok := wordOf(out[i]); ok {
						if !w.whole {
							return out, true
						}
						unknown[f.Name] = true
						out[i] = placeholderValue(f)
					}
				}
				break
			}
		default:
			if n.NoInterspersed {
				return out, false
			}
		}
	}
	return out, false
}

// flagOfWord returns the flag a word starting with --NAME= or -X names, if n has it.
func (n *node) flagOfWord(s string) (*Flag, bool) {
	if name, ok := strings.CutPrefix(s, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		if f := n.flag(name); f != nil {
			return f, true
		}
		return nil, false
	}
	if len(s) >= 2 && s[0] == '-' {
		if f := n.shorthand(s[1:2]); f != nil {
			return f, true
		}
	}
	return nil, false
}

// valueQuoted reports whether a flag word is written --NAME="…", its name static and
// the expansion after = quoted as a whole (--policy="$P"), so that it stays one word.
func valueQuoted(s string) bool {
	name, v, ok := strings.Cut(s, "=")
	return ok && !strings.ContainsAny(name, "$`*?[\\\"'") &&
		len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.Contains(v[1:len(v)-1], `"`)
}

// placeholderValue is a value of the flag's kind that pflag accepts, standing for one
// only known at run time; it reads as set.
func placeholderValue(f *Flag) string {
	switch f.Kind {
	case "bool":
		return "true"
	case "int":
		return "1"
	case "duration":
		return "1s"
	}
	return "\x00"
}

// runs returns the command line that the run p of n runs, for analysis: the operands
// of moat run, launch and mcp proxy as a program's argv; those of moat shell as sh's.
// Arguments only known at run time keep their source text, so that the analysis
// expands what it can of them; the others are quoted.
func (n *node) runs(p Parsed, words []word, static []string) string {
	r := n.runner
	if r == nil || len(p.Args) == 0 || slices.ContainsFunc(r.Unless, func(f string) bool { return isSet(p.Set[f]) }) {
		return ""
	}
	argv := p.Args
	if r.Shell {
		if !shellRunsString(argv) {
			return ""
		}
		argv = append([]string{"sh"}, argv...)
	}
	parts := make([]string, 0, len(argv))
	for _, a := range argv {
		if isMarker(a) {
			if i := slices.Index(static, a); i >= 0 {
				parts = append(parts, words[i].text)
				continue
			}
		}
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = a
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " ")
}

// shellRunsString reports whether a shell's arguments run a command string: an option
// word among the leading ones holds c (-c, -lc, -ec). moat shell runs nothing else.
func shellRunsString(args []string) bool {
	for _, a := range args {
		if a == "--" || len(a) < 2 || a[0] != '-' && a[0] != '+' {
			return false
		}
		if a[0] == '-' && !strings.HasPrefix(a, "--") && strings.ContainsRune(a[1:], 'c') {
			return true
		}
	}
	return false
}
