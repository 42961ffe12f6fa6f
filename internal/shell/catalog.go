package shell

import (
	_ "embed"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// This file decides whether moat understands a program at all. A program that none of the
// tables knows is not harmless: it may delete, send or run anything, and an agent steered
// by injected text picks exactly the name moat has no entry for. Such a command is opaque
// (analysis.opaque, asked by the recommended policy). What moat knows about a program is
// the union of its tables (wrappers, file effects, option tables, effect rules, streams,
// interpreters, databases, credential stores, system and infrastructure CLIs…) and the
// catalog of everyday programs in catalog.txt, whose entries say which kind of program
// each is.

//go:embed catalog.txt
var catalogText string

// programKind is what the catalog knows about a program it lists.
type programKind uint8

const (
	// kindBuiltin is a shell builtin or keyword: its effects are the shell's own, which
	// the analyser models.
	kindBuiltin programKind = iota + 1
	// kindTool is an ordinary program whose effects are the ones its operands and options
	// name (reading, printing, computing, querying): it runs no code it is handed, unless
	// its entry says where (exec=).
	kindTool
	// kindProject runs the project's own code or configuration (make, go test, npm run,
	// pytest): code the agent can read and change anyway, and which is judged when it is
	// written (planted code). Code files named outside the project are opaque.
	kindProject
	// kindRunner has subcommands that run the command given after them (poetry run CMD,
	// bundle exec CMD): that command is analysed as if run directly.
	kindRunner
	// kindSelf is moat: internal/selfguard reads its command lines with its own CLI's flag
	// definitions, and the engine judges them.
	kindSelf
)

var kindNames = map[string]programKind{
	"builtin": kindBuiltin, "tool": kindTool, "project": kindProject, "runner": kindRunner, "self": kindSelf,
}

// catalogEntry is one program of catalog.txt.
type catalogEntry struct {
	kind programKind
	// codeOptions are the options of a project program whose value names a file or
	// directory whose code it runs (make -f FILE, make -C DIR).
	codeOptions []string
	// inline are the options of a project program whose value is code in the program's
	// own language, which moat does not read (make --eval, cargo --config): opaque.
	inline []string
	// runs are the subcommands that run code: a runner's, which run the command after
	// them, and a project program's, which run a file or a module named by a reference
	// (go run pkg@version).
	runs []string
	// values are a runner's options that take a value (conda run -n ENV), and operands
	// the words its subcommand takes before the command (aws-vault exec PROFILE).
	values   []string
	operands int
	// shell are a runner's options whose value is a command line it runs (doppler run
	// --command 'CMD').
	shell []string
	// scripts are a runner's subcommands that also run the project's scripts by name (pdm
	// run lint, with lint in pyproject.toml's [tool.pdm.scripts]): a first word that is
	// no program moat knows, and no path, is one, judged when its file was written.
	scripts []string
	// secretFile are a runner's subcommands that hand their command a file holding the
	// decrypted content of their operand, where the command's {} stands (sops exec-file
	// secrets.enc.json 'cat {}').
	secretFile []string
	// exec are a tool's options after which the remaining words are a command it runs on
	// each path it finds, with {}-placeholders for the path (fd -x CMD).
	exec []string
	// evals are the first words of a project program's first operand that make it run
	// code handed to it rather than the project's (crystal eval CODE, sbt "eval EXPR",
	// clojure - reading its standard input): opaque, in a language moat does not read.
	evals []string
	// stdinCode says that, given no operand, the program runs the code on its standard
	// input (an interpreter's REPL fed by a pipe or a here-document).
	stdinCode bool
	// changes are, for a tool that both reports on and changes the machine (ip, swapon,
	// timedatectl), the operands (patterns such as set-*, or * for any) and options
	// (-a, --add-*) that make it change something; such a use is opaque, as moat does not
	// model what it changes.
	changes []string
	// writes are a tool's options that make it rewrite the files among its operands in
	// place (yq -i, xmlstarlet ed -L): each operand is then written, with text moat does
	// not know, as well as read.
	writes []string
}

// catalog parses catalog.txt on first use.
var catalog = sync.OnceValue(func() map[string]*catalogEntry {
	c, err := parseCatalog(catalogText)
	if err != nil {
		// The file is embedded and checked by TestCatalogParses; a broken build is the
		// only way here, and an empty catalog only makes more commands opaque.
		return map[string]*catalogEntry{}
	}
	return c
})

// parseCatalog reads the catalog's text: "[kind]" lines start a section, other lines list
// programs, either several names, or one name followed by key=value attributes
// (options=-f,--file runs=run,exec). The programs of a plain line share one entry per
// section: the catalog is read by the first command of every hook process.
func parseCatalog(text string) (map[string]*catalogEntry, error) {
	c := make(map[string]*catalogEntry, 1024)
	var kind programKind
	var plain *catalogEntry // the entry of the section's plain programs
	n := 0
	for line := range strings.Lines(text) {
		n++
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		first, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
		if first == "" {
			continue
		}
		if s, ok := strings.CutPrefix(first, "["); ok {
			k, known := kindNames[strings.TrimSuffix(s, "]")]
			if !known || strings.TrimSpace(rest) != "" || !strings.HasSuffix(s, "]") {
				return nil, fmt.Errorf("catalog.txt:%d: unknown section %q", n, strings.TrimSpace(line))
			}
			kind, plain = k, &catalogEntry{kind: k}
			continue
		}
		if kind == 0 {
			return nil, fmt.Errorf("catalog.txt:%d: program before any [section]", n)
		}
		if strings.Contains(rest, "=") {
			e, err := parseAttributes(kind, rest, n)
			if err != nil {
				return nil, err
			}
			if err := addProgram(c, first, e, n); err != nil {
				return nil, err
			}
			continue
		}
		if kind == kindRunner {
			return nil, fmt.Errorf("catalog.txt:%d: runner %s names no subcommand (runs=…)", n, first)
		}
		if err := addProgram(c, first, plain, n); err != nil {
			return nil, err
		}
		for name := range strings.FieldsSeq(rest) {
			if err := addProgram(c, name, plain, n); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// parseAttributes reads the key=value attributes of one program's line.
func parseAttributes(kind programKind, attrs string, n int) (*catalogEntry, error) {
	e := &catalogEntry{kind: kind}
	lists := map[string]*[]string{
		"options": &e.codeOptions, "code": &e.inline, "runs": &e.runs, "values": &e.values,
		"shell": &e.shell, "changes": &e.changes, "exec": &e.exec, "evals": &e.evals,
		"writes": &e.writes, "scripts": &e.scripts, "secretfile": &e.secretFile,
	}
	for attr := range strings.FieldsSeq(attrs) {
		key, val, ok := strings.Cut(attr, "=")
		if !ok || val == "" {
			return nil, fmt.Errorf("catalog.txt:%d: %q is not key=value", n, attr)
		}
		if list, ok := lists[key]; ok {
			*list = strings.Split(val, ",")
			for i, w := range *list {
				// A long option of a program that writes them with one dash (gdb -ex) is
				// spelt as the option parser names every long option.
				if len(w) > 2 && w[0] == '-' && w[1] != '-' {
					(*list)[i] = "-" + w
				}
			}
			continue
		}
		if key == "stdin" {
			if val != "code" {
				return nil, fmt.Errorf("catalog.txt:%d: stdin=%s: the only value is code", n, val)
			}
			e.stdinCode = true
			continue
		}
		if key != "operands" {
			return nil, fmt.Errorf("catalog.txt:%d: unknown attribute %q", n, key)
		}
		count, err := strconv.Atoi(val)
		if err != nil || count < 0 {
			return nil, fmt.Errorf("catalog.txt:%d: operands=%s is not a count", n, val)
		}
		e.operands = count
	}
	if kind == kindRunner && len(e.runs) == 0 && len(e.shell) == 0 {
		return nil, fmt.Errorf("catalog.txt:%d: runner names no subcommand (runs=…) and no option holding a command (shell=…)", n)
	}
	return e, nil
}

// addProgram lists one program of line n.
func addProgram(c map[string]*catalogEntry, name string, e *catalogEntry, n int) error {
	if strings.Contains(name, "=") {
		return fmt.Errorf("catalog.txt:%d: attributes go on a line of one program: %q", n, name)
	}
	if _, dup := c[name]; dup {
		return fmt.Errorf("catalog.txt:%d: %s is listed twice", n, name)
	}
	c[name] = e
	return nil
}

// describedByTables reports whether one of the analyser's tables describes the program:
// each table is knowledge of what it does. The tables are tried commonest first, and
// each is built only when reached: a hook decides one command per process, and building
// every table to look up ls would cost it a millisecond.
func describedByTables(name string) bool {
	return has(programEffects(), name) || has(effectRules(), name) || has(valueOptions(), name) ||
		has(wrappers(), name) || has(shells(), name) || evaluators[name] || dirChangers[name] ||
		has(varSetters(), name) || has(executors(), name) || has(inPlaceEditors(), name) ||
		has(decoders(), name) || has(downloaders(), name) || has(dbClients(), name) ||
		has(credentialRules(), name) || has(systemRules(), name) || has(uploaders(), name) ||
		has(fileServers(), name) || has(secretSinks(), name)
}

func has[V any](m map[string]V, name string) bool {
	_, ok := m[name]
	return ok
}

// projectScriptName reports whether the word after a runner's script subcommand names
// one of the project's scripts rather than a program: no program moat knows, no path,
// nothing computed (hatch run test:cov, pdm run lint).
func projectScriptName(w string) bool {
	return w != "" && !strings.ContainsAny(w, "/ \t\n$`") && !knownProgram(canonicalProgram(w))
}

// knownProgram reports whether moat knows what the program of this canonical name does:
// a table describes it, the catalog lists it, it is an agent CLI (launched with its own
// hooks; agents.go judges how), or it is an interpreter whose code is inspected.
func knownProgram(name string) bool {
	if describedByTables(name) || has(catalog(), name) {
		return true
	}
	if _, ok := agent.ForProgram(name); ok {
		return true
	}
	_, ok := oneliner.Lookup(name)
	return ok
}

// foldedProgram is the program a name runs where names are found whatever their case
// and with .exe, as on Windows (REG.EXE is reg) and on macOS's file system (RM is rm):
// the lower-case name without .exe when moat knows it, the name as written otherwise (R,
// the language, and any unknown name stay).
func foldedProgram(name string) string {
	l := strings.ToLower(name)
	if knownProgram(name) {
		return name // clip.exe is known by that name
	}
	if strings.HasSuffix(l, ".exe") || strings.HasSuffix(l, ".com") {
		l = l[:len(l)-4]
	} else if len(name) < 2 || strings.ToUpper(name) != name || l == name {
		return name
	}
	if knownProgram(canonicalProgram(l)) {
		return l
	}
	return name
}

// unknownProgramNote is in the evidence of every unknown program.
const unknownProgramNote = "a program moat does not know"

// UnknownProgram reports whether a finding is the one of a program moat does not know,
// which a caller that identifies the program another way (moat's own binary under another
// name, by its content) may drop.
func UnknownProgram(f call.Finding) bool {
	return f.ID == findOpaque && strings.Contains(f.Evidence, unknownProgramNote)
}

// unknownProgram makes a command whose program moat does not know opaque: a program given
// by name that no table or catalog entry describes, or by a path outside the project and
// the system's directories whose name moat does not know either. A function the line
// defines, and an alias, are code the analyser reads; the project's own programs
// (./build.sh, node_modules/.bin/x) are code the agent can read and change anyway, judged
// when they are written.
func (a *analyzer) unknownProgram(cmd *call.Command, name string, cwd dir) {
	if name == "" || a.sh.functions[cmd.Name] || knownProgram(name) || setupGenerator(name, cmd.Operands) {
		return
	}
	if cmd.Path == "" && slices.Contains(a.sh.projectPrograms, cmd.Name) {
		return // a dependency's program, run from node_modules/.bin by npm
	}
	if a.sh.mounts != nil && (cmd.Path == "" || strings.HasPrefix(cmd.Path, "/")) {
		// In a container, a program moat does not know is one of the image's, as its
		// own command is (imageCommand): it may read what is mounted, and write what is
		// mounted writable.
		for _, m := range a.sh.mounts {
			if under(m.source, unknownSource) {
				continue
			}
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: m.source, Recursive: true})
			if !m.readOnly {
				cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Write, Path: m.source, Recursive: true})
			}
		}
		return
	}
	if cmd.Path == "" && a.sh.elsewhere > 0 {
		// On a CI runner or a platform's builder, a program moat does not know is one
		// the job's image or its earlier steps installed (from registries, judged there):
		// its effects are on that machine, and what it is given or sends is still read.
		return
	}
	if _, alias := a.sh.aliases[cmd.Name]; alias {
		return
	}
	if cmd.Path != "" && !systemPath(cmd.Path) {
		if a.inProject(cmd.Path, cwd) && !strings.HasPrefix(cmd.Path, "~") {
			return
		}
		if p, ok, _ := a.resolve(cmd.Path, cwd); ok {
			if t, fetched := a.fetchedAt(p); fetched {
				opaqueCmd(cmd, "runs "+cmd.Path+", fetched by "+t.by+" earlier in the line, which moat has not read")
				return
			}
		}
		if a.sh.elsewhere > 0 && strings.HasPrefix(cmd.Path, "/") {
			// On a platform's builder or a CI runner, a program at an absolute path is
			// one of its image's, built from the project (fly.toml's release_command =
			// "/app/bin/migrate"), or the runner's tools: none of this machine's.
			return
		}
		opaqueCmd(cmd, "runs "+cmd.Path+", "+unknownProgramNote+", outside the project and the system")
		return
	}
	opaqueCmd(cmd, "runs "+cmd.Name+", "+unknownProgramNote+": it may do anything")
}

// catalogEffects applies what the catalog knows about a program it lists: a runner's
// subcommand runs the command after it; a project program's code named outside the project
// is opaque.
func (a *analyzer) catalogEffects(at int, rest []arg, ops []arg, opts []option, cwd dir) {
	e, ok := catalog()[a.meta[at].prog]
	if !ok {
		return
	}
	if (e.kind == kindTool || e.kind == kindProject) && !describedByTables(a.meta[at].prog) {
		// A tool whose in-place options the catalog lists (yq -i) writes nothing without
		// one of them: it only reads what it is given.
		readOnly := len(e.writes) > 0 && !slices.ContainsFunc(opts, func(o option) bool { return containsString(e.writes, optionSpelling(o.name)) })
		a.unmodelledFiles(at, ops, opts, cwd, readOnly)
	}
	switch e.kind {
	case kindRunner:
		a.runnerCommand(at, e, rest, cwd)
	case kindProject:
		a.projectCode(at, e, ops, opts, cwd)
	case kindTool:
		if w := changeWord(e.changes, ops, opts); w != "" {
			a.opaque(at, a.meta[at].prog+" "+w+" changes the machine in a way moat does not model")
		}
		if slices.ContainsFunc(opts, func(o option) bool { return containsString(e.writes, optionSpelling(o.name)) }) {
			// The expression among the operands is written too, as a file of that odd
			// name: what matters is that the files are.
			c := &a.cmds[at]
			from := len(c.Accesses)
			for _, o := range ops {
				c.Opaque = a.addAccess(&c.Accesses, call.Write, o, false, cwd) || c.Opaque
			}
			a.accessFindings(c, from)
		}
		if len(e.exec) > 0 {
			a.execOnFound(at, e, rest, cwd)
		}
	}
}

// unmodelledFiles judges the files named to a program whose file effects moat does
// not model (readOnly: the catalog says it writes none of them) (a catalogued tool with no table: yq, pandoc, iconv, xmllint) by what they
// are. One that self-protection guards makes it opaque: `yq -i … moat.yaml` and `pandoc
// -o ~/.claude/settings.json` may rewrite it, and moat cannot tell whether they do. One
// that holds credentials is read: `yq . ~/.kube/config` and `iconv … ~/.ssh/id_rsa`
// print it, as cat would.
func (a *analyzer) unmodelledFiles(at int, ops []arg, opts []option, cwd dir, readOnly bool) {
	protected, sensitive := a.sh.env.Protected, a.sh.env.Sensitive
	if readOnly {
		protected = nil
	}
	if protected == nil && sensitive == nil {
		return
	}
	guarded := false
	check := func(x arg) {
		if x.dynamic || x.lit == "" || strings.Contains(x.lit, "://") {
			return
		}
		p, ok, _ := a.resolve(x.lit, cwd)
		if !ok {
			return
		}
		if !guarded && protected != nil && protected(call.Access{Kind: call.Write, Path: p, Glob: x.glob}) {
			guarded = true
			a.opaque(at, a.meta[at].prog+" is given "+p+", a file moat protects, and moat does not model what "+a.meta[at].prog+" does to its files")
		}
		if sensitive != nil && sensitive(call.Access{Kind: call.Read, Path: p, Glob: x.glob}) {
			c := &a.cmds[at]
			c.Opaque = a.addAccess(&c.Accesses, call.Read, x, false, cwd) || c.Opaque
		}
	}
	for _, o := range ops {
		check(o)
	}
	for _, o := range opts {
		if o.hasValue {
			check(o.val)
		}
	}
}

// execOnFound analyses the command a finder runs on what it finds (fd -x CMD ARGS): its
// words, with each {}-placeholder standing for every path below the search root (the
// finder's second operand, or the working directory) with the extensions it is limited to
// (-e go).
func (a *analyzer) execOnFound(at int, e *catalogEntry, rest []arg, cwd dir) {
	var operands, roots []arg
	var exts []string
	values := valueOptions()[a.meta[at].prog]
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if !containsString(e.exec, x.lit) {
			if x.dynamic || !strings.HasPrefix(x.lit, "-") || x.lit == "-" {
				operands = append(operands, x)
				continue
			}
			// An option, with its value: the next word, or what follows = or the letter.
			name, val, attached := strings.Cut(strings.TrimLeft(x.lit, "-"), "=")
			takes := strings.HasPrefix(x.lit, "--") && containsString(values.long, name) ||
				!strings.HasPrefix(x.lit, "--") && len(name) >= 1 && strings.IndexByte(values.short, name[0]) >= 0
			if !takes {
				continue
			}
			if !attached && !strings.HasPrefix(x.lit, "--") && len(name) > 1 {
				val, attached = name[1:], true // -ego
			}
			if !attached {
				if i+1 >= len(rest) {
					continue
				}
				i++
				val = rest[i].lit
			}
			switch {
			case name == "extension" || !strings.HasPrefix(x.lit, "--") && name[0] == 'e':
				exts = append(exts, val)
			case name == "search-path" || name == "base-directory":
				roots = append(roots, arg{lit: val, dynamic: rest[i].dynamic})
			}
			continue
		}
		if len(operands) >= 2 {
			roots = append(roots, operands[1:]...)
		}
		if len(roots) == 0 {
			roots = []arg{{lit: "."}}
		}
		root := roots[0]
		for _, r := range roots {
			if r.dynamic {
				root = r
			}
		}
		if len(roots) > 1 && !root.dynamic {
			// Several roots: the command is judged below each in turn would be; their
			// common ancestor is the safe stand-in.
			root = arg{lit: commonDir(roots)}
		}
		if root.dynamic {
			a.opaque(at, a.meta[at].prog+" runs a command on paths below a directory known only at run time")
			return
		}
		found := shellQuote(strings.TrimRight(root.lit, "/")) + "/**/*"
		switch {
		case len(exts) == 1 && plainName(exts[0]):
			found += "." + exts[0]
		case len(exts) > 1:
			names := make([]string, 0, len(exts))
			for _, x := range exts {
				if plainName(x) {
					names = append(names, x)
				}
			}
			if len(names) == len(exts) {
				found += ".{" + strings.Join(names, ",") + "}"
			}
		}
		var line strings.Builder
		placed := false
		for k, w := range rest[i+1:] {
			if w.lit == ";" {
				break
			}
			if k > 0 {
				line.WriteByte(' ')
			}
			if strings.HasPrefix(w.lit, "{") && strings.HasSuffix(w.lit, "}") {
				line.WriteString(found)
				placed = true
				continue
			}
			line.WriteString(shellQuote(w.lit))
		}
		if line.Len() == 0 {
			return
		}
		if !placed {
			// Without a placeholder the path is the last argument.
			line.WriteString(" " + found)
		}
		a.nested(at, line.String(), cwd, false)
		return
	}
}

// commonDir is the longest directory every path of roots is in ("/" at worst; relative
// paths are taken as they are written).
func commonDir(roots []arg) string {
	common := strings.TrimRight(roots[0].lit, "/")
	for _, r := range roots[1:] {
		p := strings.TrimRight(r.lit, "/")
		if path.IsAbs(p) != path.IsAbs(common) {
			return "/"
		}
		for common != "" && common != "." && p != common && !strings.HasPrefix(p, common+"/") {
			common = path.Dir(common)
		}
	}
	if common == "" {
		return "/"
	}
	return common
}

// changeWord returns the first operand or option of a command that matches one of the
// patterns: operands match the plain ones (path.Match, on the lower-cased word; * is any
// operand), options those that start with "-".
func changeWord(patterns []string, ops []arg, opts []option) string {
	if len(patterns) == 0 {
		return ""
	}
	for _, o := range ops {
		for _, p := range patterns {
			if strings.HasPrefix(p, "-") {
				continue
			}
			if o.dynamic || p == "*" {
				return o.lit
			}
			if ok, _ := path.Match(p, strings.ToLower(o.lit)); ok {
				return o.lit
			}
		}
	}
	for _, o := range opts {
		spelt := optionSpelling(o.name)
		for _, p := range patterns {
			if ok, _ := path.Match(p, spelt); ok && strings.HasPrefix(p, "-") {
				return spelt
			}
		}
	}
	return ""
}

// runnerCommand analyses the command a runner's subcommand runs: the words after the
// subcommand, its options (with the values of those listed as taking one) and its leading
// operands. An option's value not listed may be taken for the program, which then is
// unknown and opaque: never an allow by mistake.
func (a *analyzer) runnerCommand(at int, e *catalogEntry, rest []arg, cwd dir) {
	if len(e.runs) == 0 {
		// A runner without subcommands runs only the command line of its option
		// (nix-shell -p jq --run 'CMD').
		for j := 0; j < len(rest); j++ {
			if y := rest[j]; !y.dynamic && strings.HasPrefix(y.lit, "-") {
				next, ran := a.runnerOption(at, e, rest, j, cwd)
				if ran {
					return
				}
				j = next
			}
		}
		return
	}
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if x.dynamic {
			return
		}
		if strings.HasPrefix(x.lit, "-") {
			if !strings.Contains(x.lit, "=") && containsString(e.values, x.lit) {
				i++ // poetry -C DIR run: the option's value
			}
			continue
		}
		if !containsString(e.runs, x.lit) {
			return // another subcommand: poetry add, bundle install
		}
		scripts := containsString(e.scripts, x.lit)
		secretFile := containsString(e.secretFile, x.lit)
		var source *arg
		operands := e.operands
		for j := i + 1; j < len(rest); j++ {
			y := rest[j]
			switch {
			case y.dynamic:
			case y.lit == "--":
				if j+1 < len(rest) {
					a.command(rest[j+1:], nil, nil)
				}
				return
			case strings.HasPrefix(y.lit, "-") && len(y.lit) > 1:
				next, ran := a.runnerOption(at, e, rest, j, cwd)
				if ran {
					return
				}
				j = next
				continue
			case operands > 0:
				if source == nil {
					source = &rest[j]
				}
				operands--
				continue
			}
			if secretFile {
				rest = a.decryptedPlaceholder(a.meta[at].prog, source, rest, j)
			}
			if scripts && projectScriptName(y.lit) {
				return // the project's script, judged when its file was written
			}
			if j == len(rest)-1 && strings.ContainsAny(rest[j].lit, " \t\n") {
				// One word with spaces is no program's name: it is a command line, which
				// some runners hand to a shell (sops exec-env FILE 'CMD'), and which is
				// judged as one either way.
				a.nestedWord(at, rest[j], cwd)
				return
			}
			a.command(rest[j:], nil, nil)
			return
		}
		return
	}
}

// decryptedPlaceholder returns rest with the {} of the command at rest[j:] standing for
// the file a runner writes its source's decrypted content into (sops exec-file): a file
// of secrets for this line, whose reading is a credentials read and whose sending is
// exfiltration.
func (a *analyzer) decryptedPlaceholder(prog string, source *arg, rest []arg, j int) []arg {
	name := "secrets"
	if source != nil && !source.dynamic {
		name = baseName(source.lit)
	}
	p := "/tmp/.decrypted-by-" + prog + "/" + name
	if a.sh.secretFiles == nil {
		a.sh.secretFiles = make(map[string]bool)
	}
	a.sh.secretFiles[p] = true
	out := slices.Clone(rest)
	for k := j; k < len(out); k++ {
		if !out[k].dynamic && strings.Contains(out[k].lit, "{}") {
			out[k] = arg{lit: strings.ReplaceAll(out[k].lit, "{}", p), glob: out[k].glob}
		}
	}
	return out
}

// runnerOption reads the runner's option at rest[j]: an option holding a command line
// (doppler run --command 'CMD') has it analysed, and ran is true; otherwise next is the
// last word the option takes (its value, when the runner lists it as taking one).
func (a *analyzer) runnerOption(at int, e *catalogEntry, rest []arg, j int, cwd dir) (next int, ran bool) {
	y := rest[j]
	name, val, attached := strings.Cut(y.lit, "=")
	if containsString(e.shell, name) {
		code := arg{lit: val, dynamic: y.dynamic, word: y.word}
		if !attached && j+1 < len(rest) {
			code = rest[j+1]
		}
		a.nestedWord(at, code, cwd)
		return j, true
	}
	if !attached && containsString(e.values, name) {
		return j + 1, false // the option's value
	}
	return j, false
}

// codeExtensions are the file extensions of code that project programs run when given a
// file: a test file, a Go file, a script.
var codeExtensions = []string{
	".py", ".go", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".rb", ".sh", ".bash",
	".mk", ".rs", ".java", ".kt", ".kts", ".scala", ".php", ".pl", ".lua", ".ex", ".exs", ".swift",
	".groovy", ".gradle", ".cs", ".fsx", ".r", ".jl", ".dart", ".zig", ".nim", ".cr", ".hs",
	// What open and xdg-open run rather than show.
	".command", ".tool", ".app", ".desktop", ".jar", ".applescript", ".scpt", ".workflow",
}

// packageExtensions are the file extensions of source and binary packages, which a
// package manager given one by URL builds or installs, running its code.
var packageExtensions = []string{".gz", ".tgz", ".bz2", ".xz", ".zip", ".whl", ".egg", ".gem", ".rock", ".nupkg", ".crate"}

// packageSubcommands are a runner's subcommands whose every operand names a package to
// fetch and build, rather than code followed by its arguments.
var packageSubcommands = []string{"install", "download", "wheel", "profile"}

// projectCode makes opaque a project program run on code from outside the project: a code
// file among its operands, the file or directory of one of its code options, or, under a
// subcommand that runs code, a remote reference (go run example.com/x@latest).
func (a *analyzer) projectCode(at int, e *catalogEntry, ops []arg, opts []option, cwd dir) {
	prog := a.meta[at].prog
	if root := a.projectRoot(); root != "" && a.sh.remote == 0 {
		switch {
		case !cwd.known && a.cdToUnknown():
			// cd "$(mktemp -d)" && git clone … && make: a tree moat cannot name.
			a.opaque(at, prog+" runs the code of a directory known only at run time")
			return
		case cwd.known:
			// In a container, the directory is the host's it is mounted from; one of the
			// image's own is the image's code, which runs confined to its mounts.
			host, ok, _ := a.resolve(cwd.path, cwd)
			if ok && under(host, unknownSource) {
				// A directory of a container whose mounts nobody said (docker compose
				// run SERVICE npm test): the container's own code, judged as its own
				// command is, by what it can reach (opaqueMounts).
				break
			}
			if ok && !under(host, root) && !systemPath(host) && !a.inWorktree(host) {
				// cd /tmp/x && make: the Makefile, the tests, the scripts are another tree's.
				a.opaque(at, prog+" runs the code of "+host+", outside the project")
				return
			}
			if t, fetched := a.fetchedAt(host); ok && fetched {
				// git clone URL && cd tool && make
				a.opaque(at, prog+" runs the code of "+host+", fetched by "+t.by+" earlier in the line")
				return
			}
		}
	}
	// outside says where code named by p comes from when it is not the project's or the
	// system's: ", outside the project", ", fetched by git clone earlier in the line".
	outside := func(p string) string {
		if abs, ok, _ := a.resolve(p, cwd); ok {
			if t, fetched := a.fetchedAt(abs); fetched {
				return ", fetched by " + t.by + " earlier in the line"
			}
		}
		if a.foreignCode(p, cwd) {
			return ", outside the project"
		}
		return ""
	}
	debugged := false // the debugger is told to run the program it is given
	for _, o := range opts {
		if containsString(e.inline, optionSpelling(o.name)) {
			if o.hasValue && !o.val.dynamic && debuggerCommand(prog, o.val.lit) {
				// gdb -ex run -ex bt: the debugger's own commands.
				first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(o.val.lit)), " ")
				debugged = debugged || first == "run" || first == "r" || first == "start" || first == "process"
				continue
			}
			a.opaque(at, prog+" "+optionSpelling(o.name)+" holds code in "+prog+"'s own language, which moat does not read")
			return
		}
	}
	if debugged && len(ops) > 0 && !ops[0].dynamic && (localPath(ops[0].lit) || strings.HasPrefix(ops[0].lit, "~")) {
		if w := outside(a.tildePath(ops[0].lit)); w != "" {
			a.opaque(at, prog+" runs "+ops[0].lit+w)
			return
		}
	}
	if len(ops) > 0 && !ops[0].dynamic {
		if first, _, _ := strings.Cut(strings.TrimSpace(ops[0].lit), " "); containsString(e.evals, first) {
			a.opaque(at, prog+" "+first+" runs code handed to it in "+prog+"'s own language, which moat does not read")
			return
		}
	}
	if m := a.meta[at]; e.stdinCode && len(ops) == 0 && (m.piped || m.ownStdin) {
		a.opaque(at, prog+" runs the code on its standard input, in a language moat does not read")
		return
	}
	for _, o := range opts {
		if !o.hasValue || !containsString(e.codeOptions, optionSpelling(o.name)) {
			continue
		}
		if !o.val.dynamic && remoteSpec(o.val.lit) {
			a.opaque(at, prog+" runs code fetched from "+o.val.lit)
			return
		}
		if o.val.dynamic {
			a.opaque(at, "the code "+prog+" runs is in a file named at run time: "+shorten(o.val.lit))
			return
		}
		if o.val.lit == "-" {
			// make -f -: the code is what the program reads on its standard input.
			a.opaque(at, prog+" "+optionSpelling(o.name)+" - runs the code on its standard input")
			return
		}
		if w := outside(o.val.lit); w != "" {
			a.opaque(at, prog+" runs code from "+o.val.lit+w)
			return
		}
	}
	running := len(e.runs) > 0 && len(ops) > 0 && containsString(e.runs, ops[0].lit)
	// pip install A B C and nix profile install A B: every operand is a package to
	// fetch; go run PKG ARGS: the code is first, its arguments after it.
	packagesOnly := running && slices.Contains(packageSubcommands, ops[0].lit)
	for k, o := range ops {
		if o.dynamic {
			continue
		}
		if running && !packagesOnly && k >= 2 && !containsString(codeExtensions, strings.ToLower(path.Ext(ops[k-1].lit))) {
			// go run PKG ARGS…: after the code it runs (a package, or files of code),
			// the words are the program's arguments (--header "// Code generated…").
			break
		}
		if running && remoteReference(o.lit) {
			a.opaque(at, prog+" runs code fetched from "+o.lit)
			return
		}
		if w := outside(o.lit); running && localPath(o.lit) && w != "" {
			a.opaque(at, prog+" runs the code of "+o.lit+w)
			return
		}
		ext := strings.ToLower(path.Ext(o.lit))
		if ext != "" && (containsString(codeExtensions, ext) || containsString(packageExtensions, ext)) && remoteSpec(o.lit) {
			// A script, or a package whose build runs (cpanm https://…/X-1.0.tar.gz).
			a.opaque(at, prog+" runs code fetched from "+o.lit)
			return
		}
		if w := outside(o.lit); ext != "" && containsString(codeExtensions, ext) && w != "" {
			a.opaque(at, prog+" runs "+o.lit+w)
			return
		}
	}
}

// debuggerCommands are the commands of a debugger's own language that only drive the
// program it debugs (run it, stop it, show its state): none runs a shell command, loads a
// script, writes a file or attaches to another process. set takes only the settings of
// debuggerSettings.
var debuggerCommands = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"gdb": {"run", "r", "start", "bt", "backtrace", "where", "info", "i", "print", "p", "break", "b", "tbreak",
			"continue", "c", "next", "n", "step", "s", "finish", "list", "l", "frame", "f", "up", "down", "quit", "q",
			"kill", "k", "thread", "disassemble", "x", "display", "watch", "delete", "d", "show", "handle", "catch", "set"},
		"lldb": {"run", "r", "process", "bt", "thread", "frame", "breakpoint", "b", "continue", "c", "next", "n",
			"step", "s", "finish", "quit", "q", "print", "p", "register", "disassemble", "image", "settings"},
	}
})

// debuggerSettings are the settings a debugger's set may change: its output, not the
// program's files or the shell it starts.
var debuggerSettings = []string{"pagination", "confirm", "print", "width", "height", "listsize", "verbose", "style", "disassembly-flavor"}

// debuggerCommand reports whether cmd is one of debuggerCommands of prog. A command that
// calls a function (print system("id"), a breakpoint's condition) or holds what a shell
// would read (run's arguments go through sh: run $(id)) is none of them, and thread
// apply is one only when the command it applies is.
func debuggerCommand(prog, cmd string) bool {
	if strings.ContainsAny(cmd, "()$`;|&<>\\\n") {
		return false
	}
	words := strings.Fields(strings.ToLower(cmd))
	if len(words) == 0 || !slices.Contains(debuggerCommands()[prog], words[0]) {
		return false
	}
	switch words[0] {
	case "set":
		return len(words) > 1 && slices.Contains(debuggerSettings, words[1])
	case "process":
		return len(words) > 1 && (words[1] == "launch" || words[1] == "continue" || words[1] == "kill" || words[1] == "status")
	case "settings":
		return len(words) > 1 && words[1] == "show"
	case "thread":
		// thread apply all|N… COMMAND: the command applied is what runs.
		if len(words) > 1 && words[1] == "apply" {
			i := 2
			for i < len(words) && (words[i] == "all" || strings.Trim(words[i], "0123456789-") == "") {
				i++
			}
			return i < len(words) && words[i] != "thread" && debuggerCommand(prog, strings.Join(words[i:], " "))
		}
	}
	return true
}

// projectRoot is the project's root: the Env's, or its working directory; "" when
// neither is an absolute path other than /.
func (a *analyzer) projectRoot() string {
	root := a.sh.env.Project
	if root == "" {
		root = a.sh.env.Cwd
	}
	if !path.IsAbs(root) || path.Clean(root) == "/" {
		return ""
	}
	return path.Clean(root)
}

// foreignCode reports whether the file or directory p, named in cwd, holds code that is
// neither the project's nor the system's. With no project root known it falls back to
// the working directory's view (trustedDir).
func (a *analyzer) foreignCode(p string, cwd dir) bool {
	root := a.projectRoot()
	abs, ok, _ := a.resolve(p, cwd)
	if root == "" || !ok {
		return !a.trustedDir(p, cwd)
	}
	return !systemPath(abs) && !under(abs, root) && !a.inWorktree(abs)
}

// optionSpelling is how the catalog writes an option: -f or --file.
func optionSpelling(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// localPath reports whether an operand is written as a path (pip install /tmp/pkg,
// ./vendor/x), not as a name to look up.
func localPath(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || s == "." || s == ".."
}

// remoteReference reports whether an operand names code to fetch: a URL, a flake
// reference to a forge or an archive, or a module path whose first element is a host,
// with or without a version (example.com/x/cmd@v1).
func remoteReference(s string) bool {
	if remoteSpec(s) {
		return true // nix run github:owner/repo fetches the code it runs
	}
	first, _, hasPath := strings.Cut(s, "/")
	return hasPath && strings.Contains(first, ".") && !strings.HasPrefix(first, ".") && strings.Contains(s, "@")
}
