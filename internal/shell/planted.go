package shell

import (
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
)

// plantedText judges text the command at i writes into a file that tools run later
// without asking (a Makefile, package.json, a git hook, a CI workflow, a startup file:
// internal/planted): the code the file carries is analysed as if it ran, in the
// directory it would run in, and the findings of its commands name the file. A write
// whose text the line does not show is opaque: moat cannot tell what it plants.
func (a *analyzer) plantedText(i int, file string, kind planted.File, t fileText, home string) {
	run := kind.RunDir(file, home)
	cwd := dir{path: run, known: run != ""}
	// npm scripts find the project's dependencies' programs first: its own tooling.
	programs := append(kind.Programs(t.text), kind.Programs(a.sh.env.Before[file])...)
	if len(programs) > 0 {
		saved := a.sh.projectPrograms
		a.sh.projectPrograms = programs
		defer func() { a.sh.projectPrograms = saved }()
	}
	before, hadBefore := a.sh.env.Before[file]
	if !t.known && !t.partial {
		if text, after, ok := a.editedOnDisk(i, file); ok {
			a.plantedCodes(i, file, kind, kind.Extract(after), cwd, text, true)
			return
		}
		inserted, ok := inPlaceInserted(a.meta[i].prog, a.cmds[i].Args)
		if !ok && (kind.Declarative || kind.Marked || kind.Program) {
			// A generated manifest, a source file, a script downloaded or copied: the
			// command that made it is judged (and one that runs it, with what it runs).
			return
		}
		if !ok {
			if a.sh.discarded > 0 && a.sh.checkout != "" && !under(file, a.sh.checkout) {
				// On a machine discarded after the job, a file of that machine's runs in
				// that job alone, and what put it there (a download, a copy) is judged.
				return
			}
			a.opaque(i, "writes "+file+", a "+kind.Kind+" whose commands tools run later, with text moat cannot read")
			return
		}
		// An in-place edit: what it puts in is the code it may plant, whatever the rest.
		for _, text := range inserted {
			if codes := kind.Extract(text); len(codes) > 0 {
				a.plantedCodes(i, file, kind, codes, cwd, before, hadBefore)
			} else if !kind.Marked && !kind.IsData(text) {
				// Text that is none of the format's data may be code anywhere in it.
				a.plantedCodes(i, file, kind, []planted.Code{{Lang: planted.Shell, Text: text, Where: "edit"}}, cwd, before, hadBefore)
			}
		}
		return
	}
	codes := kind.Extract(t.text)
	if a.sh.env.Pieces[file] {
		codes = kind.PieceCode(t.text)
	}
	a.plantedCodes(i, file, kind, codes, cwd, before, hadBefore)
}

// editedOnDisk returns the text the file has on disk and the text it is left with by the
// command at i, an in-place edit by sed of a file the agent's own line finds on disk:
// none of the line's commands before it may have changed the file, and the line runs
// now. It reports false when the disk is not read, the file is not there, or moat does
// not follow the edit (sedApply).
func (a *analyzer) editedOnDisk(i int, file string) (before, after string, ok bool) {
	if a.depth > 0 || a.sh.env.Text == nil || a.meta[i].prog != "sed" {
		return "", "", false
	}
	for k := range i {
		c := &a.cmds[k]
		if c.Opaque || c.Dynamic || slices.ContainsFunc(c.Accesses, func(acc call.Access) bool {
			return acc.Kind != call.Read && (under(file, acc.Path) || under(acc.Path, file))
		}) {
			return "", "", false
		}
	}
	before, ok = a.sh.env.Text(file)
	if !ok {
		return "", "", false
	}
	after, ok = sedApply(a.cmds[i].Args, before)
	return before, after, ok
}

// maxPlantedPieces is how many pieces of code of one file are analysed one by one, each
// with evidence naming where it is; the rest of a larger file (a Makefile of a thousand
// recipe lines) is analysed in one pass, each piece in a subshell of its own as the tool
// would run it, because every separate analysis has a fixed cost that a hook cannot pay a
// thousand times.
const maxPlantedPieces = 64

// plantedCodes analyses the code found in a file the command at i writes, less the code
// the file carried before when that is known (hadBefore).
func (a *analyzer) plantedCodes(i int, file string, kind planted.File, codes []planted.Code, cwd dir, before string, hadBefore bool) {
	var had map[planted.Code]bool
	var beforeCodes []planted.Code
	if hadBefore {
		had = make(map[planted.Code]bool)
		beforeCodes = kind.Extract(before)
		for _, c := range beforeCodes {
			had[c] = true
		}
	}
	var rest strings.Builder
	pieces := 0
	for _, code := range codes {
		if had[code] {
			continue // the file carried this code before
		}
		if code.Opaque != "" {
			a.opaque(i, file+" "+code.Where+": "+code.Opaque)
			continue
		}
		if kind.Program && code.Lang == planted.Interp && hadBefore && len(code.Text) > maxProgramWhole {
			// An edit of a large module is judged by the lines it adds: the rest is the
			// project's code as it was, and reading all of it on each edit would cost
			// more than a hook may.
			code.Text = addedLines(beforeCodes, code)
			if strings.TrimSpace(code.Text) == "" {
				continue
			}
			code.Where = "lines added"
		}
		if pieces++; pieces > maxPlantedPieces && code.Lang == planted.Shell {
			rest.WriteString("(\n" + code.Text + "\n)\n")
			continue
		}
		a.plantedPiece(i, file, file+" "+code.Where+": ", kind, code, cwd)
	}
	if rest.Len() > 0 {
		a.plantedPiece(i, file, file+": ", kind, planted.Code{Lang: planted.Shell, Text: rest.String()}, cwd)
	}
}

// plantedPiece analyses one piece of planted code, prefixing the evidence of the findings
// of the commands it runs.
func (a *analyzer) plantedPiece(i int, file, prefix string, kind planted.File, code planted.Code, cwd dir) {
	first := len(a.cmds)
	if kind.Program && code.Lang == planted.Interp {
		// A source file is read whole, up to maxProgramCode: a module is larger than the
		// code of a command line.
		savedProgram, savedInterp := a.sh.program, a.sh.interp
		a.sh.program, a.sh.interp = true, max(a.sh.interp, len(code.Text))
		defer func() { a.sh.program, a.sh.interp = savedProgram, max(0, savedInterp-len(code.Text)) }()
	}
	if kind.Program {
		// The code of an interpreter moat reads is judged on the writing command itself
		// (a.inspect): what it adds there that is the program's own goes too.
		writer := a.cmds[i]
		had := len(writer.Findings)
		defer func() {
			c := &a.cmds[i]
			own := call.Command{Findings: slices.Clone(c.Findings[had:]), Opaque: c.Opaque && !writer.Opaque, Dynamic: c.Dynamic && !writer.Dynamic}
			programOwn(&own)
			c.Findings = append(c.Findings[:had], own.Findings...)
			c.Opaque = writer.Opaque || own.Opaque
			c.Dynamic = writer.Dynamic || own.Dynamic
		}()
	}
	if len(kind.Functions) > 0 {
		// The tool's own functions (direnv's layout, use, dotenv…) are known while its
		// file's code is analysed, and only then.
		saved := a.sh.functions
		a.sh.functions = make(map[string]bool, len(saved)+len(kind.Functions))
		for n := range saved {
			a.sh.functions[n] = true
		}
		for _, n := range kind.Functions {
			a.sh.functions[n] = true
		}
		defer func() { a.sh.functions = saved }()
	}
	elsewhere, discarded := code.Host.Elsewhere(), code.Host == planted.Discarded
	if elsewhere {
		a.sh.elsewhere++
	}
	if discarded {
		saved := a.sh.checkout
		a.sh.discarded++
		a.sh.checkout = ""
		if cwd.known {
			a.sh.checkout = cwd.path
		}
		defer func() { a.sh.checkout = saved }()
	}
	switch {
	case code.Lang == planted.Interp:
		a.inspect(i, code.Interp, code.Text, cwd)
	case kind.Program:
		// A script run by name: $0 (and ${BASH_SOURCE[0]}) is its own path, as in the
		// idiom ROOT="$(cd "$(dirname "$0")/.." && pwd)".
		a.nestedWith(i, code.Text, cwd, false, map[string]string{"0": file})
	default:
		a.nested(i, code.Text, cwd, false)
	}
	if elsewhere {
		a.sh.elsewhere--
	}
	if discarded {
		a.sh.discarded--
	}
	for k := first; k < len(a.cmds); k++ {
		if elsewhere {
			a.cmds[k].Elsewhere = true
			// sudo apt-get install on a runner is the runner's privilege, not this user's.
			a.cmds[k].Findings = dropFinding(a.cmds[k].Findings, findSudo)
		}
		if elsewhere && cwd.known {
			// The runner's checkout: its files are not this project's (echo … >> .env,
			// find . -exec chmod … on the runner change nothing here).
			a.cmds[k].Accesses = slices.DeleteFunc(a.cmds[k].Accesses, func(acc call.Access) bool { return under(acc.Path, cwd.path) })
		}
		if discarded {
			discardedMachine(&a.cmds[k])
		}
		if kind.Program {
			programOwn(&a.cmds[k])
		}
		fs := a.cmds[k].Findings
		for j := range fs {
			fs[j].Evidence = prefix + fs[j].Evidence
		}
		if elsewhere && (hasFinding(fs, findSecretShown) || hasFinding(fs, findEnvDump)) {
			a.cmds[k].Findings = appendFinding(fs, findExfiltration, prefix+"prints secrets into the job's log, which everyone who can read the project's CI logs reads")
		}
	}
}

// discardedMachine leaves out of cmd what it does only to a machine discarded after the
// job (a hosted runner, a job's container): its changes to that machine's files, and the
// findings that are about that machine alone (persistence there, its system files and
// accounts, a tree deleted there). What it reads stays (a credential printed into the
// job's log is sent out), as does all it does beyond the machine: what it sends, runs
// from the network, pushes, deploys or deletes in a database or a cloud account.
func discardedMachine(cmd *call.Command) {
	cmd.Accesses = slices.DeleteFunc(cmd.Accesses, func(acc call.Access) bool { return acc.Kind != call.Read })
	cmd.Findings = slices.DeleteFunc(cmd.Findings, func(f call.Finding) bool { return machineOnly(f.ID) })
}

// programOwn leaves out of cmd, a command of a program the project keeps (a shell
// script written now and run by name later), what is the program's own business rather
// than harm: programs moat does not know and commands computed at run time (as in any
// of the project's code, which moat does not read when it runs), lines it cannot parse,
// sudo (which asks its user for a password), the use or printing of a secret variable or
// of the environment (a child given {...process.env}; a program's output is its user's,
// not the agent's context; sending it anywhere is a finding of its own), and a raw
// connection (a wait-for script's /dev/tcp probe: a program's network use is its own, as
// its HTTP requests are; a shell handed to one is a reverse shell all the same).
func programOwn(cmd *call.Command) {
	cmd.Opaque, cmd.Dynamic = false, false
	cmd.Findings = slices.DeleteFunc(cmd.Findings, func(f call.Finding) bool {
		switch f.ID {
		case findOpaque, findDynamicCommand, findParseError, findTooDeep, findTooComplex, findSudo, findSecretEnv, findSecretShown, findEnvDump, findRawSocket:
			return true
		}
		return false
	})
}

// machineOnly reports whether findings of kind id are about the machine the command runs
// on and nothing beyond it.
func machineOnly(id string) bool {
	switch id {
	case findRecursiveDelete, findSetuid, findAccount, findNamespace, findWorldWritable,
		findContainerHost, findContainerEscape, findLogTamper, findSecurityOff,
		findShutdown, findKillAll, findPackages, findForkBomb, findDiskWipe,
		// The job's checkout is discarded with it: what is discarded there is not
		// pushed (a force push, a remote branch deleted are findings of their own).
		findResetHard, findGitClean, findGitDiscard, findStashDrop, findHistoryRewrite:
		return true
	}
	return strings.HasPrefix(id, "persistence.")
}

// plantedShadow appends the finding of a write that puts a program on PATH under the name
// of a common program, which then runs in its place.
func plantedShadow(dst []call.Finding, acc call.Access, home string) []call.Finding {
	if acc.Kind != call.Write {
		return dst
	}
	if prog, ok := planted.Shadow(acc.Path, home); ok && !hasFinding(dst, planted.FindShadow) {
		dst = append(dst, planted.Kinds.New(planted.FindShadow, "writes "+acc.Path+", which runs in place of "+prog+" for every program that looks "+prog+" up on PATH"))
	}
	return dst
}

// packageScriptCode finds the scripts a package manager's command stores in package.json
// (npm pkg set scripts.NAME=CODE, npm set-script NAME CODE): code that npm runs later,
// a lifecycle script on the next install without being named.
func packageScriptCode(a *analyzer, v *view) string {
	ops := v.raw
	if len(ops) < 2 || ops[0].dynamic {
		return ""
	}
	add := func(name string, code arg) {
		a.later = append(a.later, codeRef{code: code, kind: codeShell, carrier: "scripts." + name + " in package.json", direct: true})
	}
	switch ops[0].lit {
	case "pkg":
		if ops[1].dynamic || ops[1].lit != "set" {
			return ""
		}
		for _, o := range ops[2:] {
			key, val, ok := strings.Cut(o.lit, "=")
			name, isScript := strings.CutPrefix(key, "scripts.")
			if !ok || !isScript {
				if strings.HasPrefix(key, "scripts") && o.dynamic {
					add(key, o)
				}
				continue
			}
			code := o
			if !o.dynamic {
				code = arg{lit: val}
			}
			add(name, code)
		}
	case "set-script":
		if len(ops) >= 3 {
			add(ops[1].lit, ops[2])
		}
	}
	return ""
}

// inPlaceInserted returns the texts an in-place edit by sed -i or perl -pi puts into a
// file: the replacements of its s commands and the text of sed's a, i and c. ok is false
// when the script cannot be read (a script file, a command moat does not know).
func inPlaceInserted(prog string, args []string) (texts []string, ok bool) {
	var scripts []string
	operand := false
	for j := 0; j < len(args); j++ {
		x := args[j]
		switch {
		case x == "-e" || x == "--expression":
			if j+1 < len(args) {
				scripts = append(scripts, args[j+1])
				j++
			}
		case strings.HasPrefix(x, "--expression="):
			scripts = append(scripts, x[len("--expression="):])
		case x == "-f" || strings.HasPrefix(x, "--file"):
			return nil, false
		case strings.HasPrefix(x, "-") && prog == "perl" && strings.HasSuffix(x, "e") && j+1 < len(args):
			scripts = append(scripts, args[j+1]) // -pie, -pe
			j++
		case !strings.HasPrefix(x, "-") && !operand && prog == "sed":
			operand = true
			if len(scripts) == 0 {
				scripts = append(scripts, x)
			}
		}
	}
	if len(scripts) == 0 || prog != "sed" && prog != "perl" {
		return nil, false
	}
	for _, sc := range scripts {
		t, ok := editInserts(sc)
		if !ok {
			return nil, false
		}
		texts = append(texts, t...)
	}
	return texts, true
}

// editInserts reads a sed (or perl -p substitution) script: the replacement of each s
// command and the text of a, i and c; ok is false for a command it does not know.
func editInserts(sc string) (out []string, ok bool) {
	for i := 0; i < len(sc); {
		c := sc[i]
		switch {
		case c == ';' || c == '\n' || c == ' ' || c == '\t' || c == '{' || c == '}' || c == '!' || c == ',' || c == '$' || c >= '0' && c <= '9':
			i++
		case c == '/':
			j := strings.IndexByte(sc[i+1:], '/') // an address /re/
			if j < 0 {
				return nil, false
			}
			i += j + 2
		case c == 's' && i+1 < len(sc):
			d := sc[i+1]
			parts, n := delimited(sc[i+2:], d, 2)
			if len(parts) < 2 {
				return nil, false
			}
			// \\ is a backslash; the escapes are read left to right, so \\n is one followed by n.
			repl := strings.NewReplacer(`\\`, `\`, `\`+string(d), string(d), `\n`, "\n", "&", "", `\1`, "", `\2`, "", "$1", "", "$2", "").Replace(parts[1])
			out = append(out, repl)
			i += 2 + n
			for i < len(sc) && strings.IndexByte("gipIM0123456789ewxsmr", sc[i]) >= 0 {
				i++
			}
		case c == 'a' || c == 'i' || c == 'c':
			text, _, _ := strings.Cut(sc[i+1:], "\n")
			text = strings.TrimPrefix(strings.TrimLeft(text, " "), "\\")
			out = append(out, strings.TrimLeft(strings.ReplaceAll(text, `\t`, "\t"), " \t\\"))
			i = len(sc)
		case strings.IndexByte("dpqQ=nNDPhHgGxlz", c) >= 0:
			i++
		default:
			return nil, false
		}
	}
	return out, true
}

// delimited splits s into the n fields that end with the delimiter d (a backslash escapes
// it), returning them and the bytes they took, delimiters included.
func delimited(s string, d byte, n int) ([]string, int) {
	var fields []string
	start := 0
	for i := 0; i < len(s) && len(fields) < n; i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == d {
			fields = append(fields, s[start:i])
			start = i + 1
		}
	}
	return fields, start
}

// addedLines returns the lines of code that the same language's code of the file before
// did not have (as many times as it did not), in their order.
func addedLines(before []planted.Code, code planted.Code) string {
	count := make(map[string]int)
	for _, b := range before {
		if b.Lang == code.Lang && b.Interp == code.Interp {
			for line := range strings.Lines(b.Text) {
				count[strings.TrimRight(line, "\n")]++
			}
		}
	}
	var out strings.Builder
	for line := range strings.Lines(code.Text) {
		key := strings.TrimRight(line, "\n")
		if count[key] > 0 {
			count[key]--
			continue
		}
		out.WriteString(key)
		out.WriteByte('\n')
	}
	return out.String()
}
