package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// This file follows code that a program takes in its arguments and runs in turn: an
// editor's commands (vim -c ':!cmd'), a stream editor's e command, a database shell's
// dot- and backslash-commands, a terminal multiplexer's new window or typed keys, a package
// runner's package, an archiver's test command. Which options and operands carry code, and
// of which kind, is data (executors); the few programs whose arguments are a small language
// of their own (vim's Ex commands, sed scripts, sqlite3's dot-commands, tmux commands) have a
// function that reads that language as far as it runs code, writes or reads files.
//
// Code written out in the line is analysed as what it is: a shell command line is parsed
// again, interpreter code is inspected. Code computed at run time, code in a language moat
// does not read (Tcl, Lisp beyond its process calls), and files of code moat cannot read
// make the command opaque (analysis.opaque), which the recommended policy asks about.

// execCall is a command whose arguments an executor reads.
type execCall struct {
	at   int
	prog string
	rest []arg // every word after the program
	ops  []arg
	opts []option
	cwd  dir
}

// executor says where a program takes code from its arguments. Option names are canonical
// names as parseOptions gives them; the options that take a value are in executorOptions.
type executor struct {
	shell   []string // options whose value is a shell command line run on this machine
	remote  []string // options whose value is a shell command line run on another host
	files   []string // options whose value names a file of code
	foreign []string // options whose value is code in a language moat does not analyse
	// reader reads a program whose arguments are a language of their own.
	reader execReader
}

// execReader names the function that reads a program's arguments (runExecutor).
type execReader uint8

const (
	readNone execReader = iota
	readVim
	readEmacs
	readSed
	readDBShell
	readTmux
	readScreen
	readZip
	readExpect
	readAt
	readSSH
	readParallel
	readRunuser
	readRunner
	readRemoteLogin
	readSSMCommands
	readCommandOperands
	readLess
	readRPMMacros
	readAptOptions
	readAnsible
	readNix
)

// executors maps a canonical program name to where it takes code.
var executors = sync.OnceValue(func() map[string]executor {
	vim := executor{reader: readVim}
	runner := executor{reader: readRunner}
	remoteLogin := executor{reader: readRemoteLogin}
	sqlClient := executor{reader: readDBShell}
	vsix := executor{files: []string{"install-extension"}}
	return map[string]executor{
		"vim": vim, "nvim": vim, "vi": vim, "ex": vim, "view": vim, "vimdiff": vim, "gvim": vim,
		"rvim": vim, "rview": vim, "evim": vim, "gview": vim, "nvi": vim,
		"emacs":       {reader: readEmacs},
		"emacsclient": {shell: []string{"a", "alternate-editor"}, reader: readEmacs},
		"sed":         {reader: readSed},
		"gsed":        {reader: readSed},
		"sqlite3":     sqlClient,
		"psql":        sqlClient,
		"mysql":       sqlClient,
		"mariadb":     sqlClient,
		"tmux":        {reader: readTmux},
		"screen":      {reader: readScreen},
		"zip":         {reader: readZip},
		"rsync":       {remote: []string{"rsync-path"}},
		// Commands that cloud and VM tools run on the machines they reach: vagrant ssh
		// -c, gcloud compute ssh --command, fly ssh console -C, az vm run-command
		// invoke --scripts.
		// And the remote logins of remotelogin.go: hcloud server ssh HOST COMMAND,
		// multipass exec VM -- COMMAND, aws ssm send-command --parameters commands=[…],
		// aws ecs execute-command --command.
		"vagrant": {remote: []string{"c", "command"}, reader: readRemoteLogin},
		"gcloud":  {remote: []string{"command"}, reader: readRemoteLogin},
		"fly":     {remote: []string{"C", "command"}, reader: readRemoteLogin},
		"flyctl":  {remote: []string{"C", "command"}, reader: readRemoteLogin},
		"az":      {remote: []string{"scripts", "exec-command"}},
		"doctl":   {remote: []string{"ssh-command"}},
		"aws":     {remote: []string{"command"}, reader: readSSMCommands},
		"hcloud":  remoteLogin, "multipass": remoteLogin, "lxc": remoteLogin, "incus": remoteLogin,
		"limactl": remoteLogin, "colima": remoteLogin, "minikube": remoteLogin,
		"heroku": remoteLogin, "docker-machine": remoteLogin,
		"expect":   {foreign: []string{"c"}, files: []string{"f"}, reader: readExpect},
		"at":       {files: []string{"f"}, reader: readAt},
		"batch":    {files: []string{"f"}, reader: readAt},
		"ssh":      {reader: readSSH},
		"parallel": {reader: readParallel},
		// Benchmarks and process runners whose operands are command lines, each run by a
		// shell: hyperfine 'CMD' 'CMD2' (and its --prepare/--setup/--cleanup/--conclude),
		// concurrently 'CMD' 'npm:script'.
		"hyperfine":    {shell: []string{"p", "prepare", "s", "setup", "c", "cleanup", "conclude"}, reader: readCommandOperands},
		"concurrently": {reader: readCommandOperands},
		// man's pager (-P) and browser (-H) are command lines it runs; less +CMD runs less's
		// command CMD at start, and less's !CMD is a shell command.
		"man":  {shell: []string{"P", "pager", "H", "html"}},
		"less": {reader: readLess},
		// Programs that run a command or load code named by an option (GTFOBins): scp -S
		// PROGRAM, ssh-keygen -D LIBRARY, nano -s SPELLER, split --filter CMD, sort
		// --compress-program PROG, rpm's %(CMD) and %{lua:…} macros, apt's Pre-Invoke and
		// Post-Invoke hooks (strace -o '|CMD' is in the wrappers' table).
		"scp": {files: []string{"S"}},
		// ripgrep runs its --pre program on every file it searches; nix develop and nix
		// shell run the command after -c.
		"rg":         {files: []string{"pre"}},
		"nix":        {reader: readNix},
		"ssh-keygen": {files: []string{"D"}},
		"nano":       {shell: []string{"s", "speller"}},
		"split":      {shell: []string{"filter"}},
		"sort":       {shell: []string{"compress-program"}},
		"rpm":        {reader: readRPMMacros},
		"apt-get":    {reader: readAptOptions},
		"apt":        {reader: readAptOptions},
		"aptitude":   {reader: readAptOptions},
		// ansible HOSTS -m MODULE -a ARGS: the shell and command modules' arguments are a
		// command line run on the hosts (on this machine for localhost or -c local).
		"ansible": {reader: readAnsible},
		// An editor's extension is code it runs: one installed from a file (a .vsix) is
		// judged as that file, outside the project unread; one from the marketplace, named
		// by its id, is a package like any other.
		"code": vsix, "code-insiders": vsix, "codium": vsix, "cursor": vsix, "windsurf": vsix,
		"runuser": {reader: readRunuser},
		"npx":     runner, "bunx": runner, "pnpx": runner, "npm": runner, "pnpm": runner, // npx -c CODE, npx with no package
		"yarn": runner, "bun": runner, "uvx": runner, "uv": runner, "pipx": runner, "deno": runner,
	}
})

// runExecutor reads the arguments of a program with a reader. It reports whether the
// command is fully handled; when not, the analysis goes on as for any program (bun -e
// CODE is node's, at without -f reads its standard input).
func (a *analyzer) runExecutor(r execReader, x *execCall) bool {
	switch r {
	case readVim:
		return a.vimArgs(x)
	case readEmacs:
		return a.emacsArgs(x)
	case readSed:
		return a.sedArgs(x)
	case readDBShell:
		return a.dbShellArgs(x)
	case readTmux:
		return a.tmuxArgs(x)
	case readScreen:
		return a.screenArgs(x)
	case readZip:
		return a.zipArgs(x)
	case readExpect:
		return a.expectArgs(x)
	case readAt:
		return fileGiven(x)
	case readSSH:
		return a.sshOutput(x)
	case readParallel:
		return a.parallelArgs(x)
	case readRunuser:
		return a.runuserArgs(x)
	case readRunner:
		return a.runnerArgs(x)
	case readRemoteLogin:
		return a.remoteLoginArgs(x)
	case readSSMCommands:
		a.awsRemote(x)
		return false // aws's own tables apply too
	case readNix:
		a.nixCommand(x)
		return false // nix's catalog entry applies too
	case readCommandOperands:
		a.commandOperands(x)
	case readLess:
		a.lessCommands(x)
		return false // less's file reads apply too
	case readRPMMacros:
		a.rpmMacros(x)
		return false
	case readAptOptions:
		a.aptHooks(x)
		return false
	case readAnsible:
		a.ansibleAdHoc(x)
	}
	return true
}

// executorOptions are the options that take a value of the programs of executors that
// options.go does not list, merged into valueOptions.
var executorOptions = sync.OnceValue(func() map[string]valueOpts {
	return map[string]valueOpts{
		"tmux":        {short: "cfLST"},
		"vagrant":     {short: "c", long: []string{"command"}, subcommand: true},
		"fly":         {short: "aCc", long: []string{"app", "command", "config", "region", "user"}, subcommand: true},
		"flyctl":      {short: "aCc", long: []string{"app", "command", "config", "region", "user"}, subcommand: true},
		"expect":      {short: "cfD"},
		"at":          {short: "fqtm"},
		"batch":       {short: "fqm"},
		"emacsclient": {short: "asfdTFwte", long: []string{"alternate-editor", "socket-name", "server-file", "display", "tramp", "frame-parameters", "timeout", "eval"}},
		"runuser":     {short: "ugGcsw", long: []string{"user", "group", "supp-group", "command", "session-command", "shell", "whitelist-environment"}},
		"parallel":    {short: "aCdEIjLnNPsS", long: parallelValues},
		"hyperfine": {short: "wmMrspcPDLSun", long: []string{"warmup", "min-runs", "max-runs", "runs", "setup", "prepare", "cleanup", "conclude",
			"parameter-scan", "parameter-step-size", "parameter-list", "shell", "style", "sort", "time-unit", "export-asciidoc", "export-csv",
			"export-json", "export-markdown", "export-orgmode", "output", "command-name", "input", "reference"}},
		"man": {short: "PHLMmpSsCeR", long: []string{"pager", "html", "locale", "manpath", "systems", "preprocessor", "sections", "config-file", "extension", "recode"}},
		"ansible": {short: "maiucefltMBPT", long: []string{"module-name", "args", "inventory", "user", "connection", "extra-vars", "forks",
			"limit", "tree", "module-path", "background", "poll", "timeout", "private-key", "become-user", "become-method", "vault-id",
			"vault-password-file", "playbook-dir", "ssh-common-args", "ssh-extra-args", "scp-extra-args", "sftp-extra-args"}},
		"code":          {long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale", "goto", "diff"}},
		"code-insiders": {long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale"}},
		"codium":        {long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale"}},
		"cursor":        {long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale"}},
		"windsurf":      {long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale"}},
		"split":         {short: "abCln", long: []string{"filter", "additional-suffix", "bytes", "line-bytes", "lines", "number", "separator", "suffix-length"}},
		"rpm":           {short: "EDr", long: []string{"eval", "define", "root", "dbpath", "macros", "rcfile", "queryformat", "qf"}},
		"apt-get":       {short: "oct", long: []string{"option", "config-file", "target-release", "default-release"}, subcommand: true},
		"apt":           {short: "oct", long: []string{"option", "config-file", "target-release", "default-release"}, subcommand: true},
		"aptitude":      {short: "oct", long: []string{"option", "config-file", "target-release", "default-release"}, subcommand: true},
		"concurrently": {short: "ncpslm", long: []string{"names", "prefix-colors", "prefix", "success", "restart-tries", "restart-after",
			"max-processes", "timestamp-format", "default-input-target", "name-separator", "prefix-length", "kill-signal", "pad-prefix"}},
		"npx":  {short: "pc", long: []string{"package", "call", "registry", "cache", "userconfig"}},
		"bunx": {short: "p", long: []string{"package"}},
		"pnpx": {short: "pc", long: []string{"package", "call"}},
		"uvx":  {short: "pi", long: uvValues},
		"uv":   {short: "pi", long: uvValues, subcommand: true},
		"pipx": {long: []string{"spec", "python", "index-url", "pip-args", "suffix"}, subcommand: true},
		"deno": {short: "cn", long: []string{"config", "import-map", "lock", "cert", "location", "seed", "ext", "env-file", "name", "root"}, subcommand: true},
		"bun":  {short: "ep", long: []string{"eval", "print", "cwd", "config", "preload", "require", "import", "package"}, subcommand: true},
	}
})

var (
	systemdRunValues = []string{"unit", "property", "description", "slice", "setenv", "uid", "gid", "nice", "working-directory",
		"machine", "host", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "on-calendar",
		"timer-property", "path-property", "socket-property", "service-type", "capsule"}
	systemdRunTimers = []string{"on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "on-calendar",
		"on-clock-change", "on-timezone-change"}
	parallelValues = []string{"jobs", "sshlogin", "arg-file", "delay", "timeout", "joblog", "results", "workdir", "tmpdir",
		"colsep", "delimiter", "max-args", "max-replace-args", "max-lines", "max-procs", "replace", "eof", "env", "basefile",
		"return", "transfer-file", "sshloginfile", "memfree", "load", "nice", "retries", "block", "halt", "tagstring", "arg-sep", "arg-file-sep"}
	uvValues = []string{"from", "with", "with-editable", "with-requirements", "python", "index", "default-index", "index-url",
		"extra-index-url", "find-links", "constraints", "overrides", "build-constraints", "directory", "project", "config-file",
		"cache-dir", "color", "refresh-package", "reinstall-package", "upgrade-package", "env-file", "exclude-newer",
		"python-preference", "resolution", "prerelease", "keyring-provider", "allow-insecure-host", "index-strategy",
		"link-mode", "config-setting", "no-build-isolation-package", "no-binary-package", "only-binary-package", "package", "extra", "group", "script"}
)

// executorCode reads the code the command at x.at takes in its arguments. It reports
// whether the command is fully handled.
func (a *analyzer) executorCode(e executor, x *execCall) bool {
	for _, o := range x.opts {
		if !o.hasValue {
			continue
		}
		carrier := x.prog + " " + optionSpelling(o.name)
		switch {
		case contains(e.shell, o.name):
			a.nestedWord(x.at, o.val, x.cwd)
		case contains(e.remote, o.name):
			a.remoteCode(x.at, o.val, carrier)
		case contains(e.files, o.name):
			a.codeFile(x.at, o.val, x.cwd, carrier)
		case contains(e.foreign, o.name):
			a.opaque(x.at, carrier+" runs code in a language moat does not analyse: "+shorten(o.val.lit))
		}
	}
	return a.runExecutor(e.reader, x)
}

// fileGiven: at -f FILE runs FILE (handled by the table) instead of its standard input.
func fileGiven(x *execCall) bool {
	for _, o := range x.opts {
		if o.name == "f" && o.hasValue {
			return true
		}
	}
	return false
}

// codeFile judges a file of code a program is told to run or load: its code is not in the
// line, so the command is opaque unless the file is the system's or the project's (as a
// script run by its shell is: bash build.sh).
func (a *analyzer) codeFile(at int, f arg, cwd dir, carrier string) {
	if f.dynamic {
		a.opaque(at, carrier+" runs a file named at run time: "+shorten(f.lit))
		return
	}
	p, ok, _ := a.resolve(a.tildePath(f.lit), cwd)
	if !ok {
		a.opaque(at, carrier+" runs "+shorten(f.lit)+", whose code moat cannot read")
		return
	}
	c := &a.cmds[at]
	c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: p})
	if a.trustedDir(p, cwd) {
		return // the system's, or the project's, which the agent could run anyway
	}
	if a.sh.elsewhere > 0 && strings.HasPrefix(f.lit, "/") {
		return // a file of the builder's image or the runner's (/app/bin/migrate)
	}
	a.opaque(at, carrier+" runs "+p+", whose code moat cannot read")
}

// fileAccess adds an access the code a command runs makes to a file it names (sed's w
// command, sqlite3's .output), with the findings the path is evidence of.
func (a *analyzer) fileAccess(at int, kind call.AccessKind, p string, cwd dir) {
	p = strings.TrimSpace(p)
	if p == "" {
		return
	}
	c := &a.cmds[at]
	first := len(c.Accesses)
	if a.addAccess(&c.Accesses, kind, arg{lit: a.tildePath(p)}, false, cwd) {
		c.Opaque = true
	}
	a.pathFindings(c)
	if a.sh.env.Sensitive == nil {
		return
	}
	for _, acc := range c.Accesses[first:] {
		if acc.Kind == call.Read && a.sh.env.Sensitive(acc) {
			// sed '1r ~/.aws/credentials': the secret is printed with the output.
			c.Findings = appendFinding(c.Findings, findCredentialsRead, acc.Path)
			a.meta[at].out.t |= tSecret
			a.meta[at].secretRead = true
		}
	}
}

// remoteCode analyses a shell command line run on another host (rsync --rsync-path), as
// ssh's remote command is: in the remote user's home, which this machine's stands for.
func (a *analyzer) remoteCode(at int, code arg, carrier string) {
	c := &a.cmds[at]
	c.Findings = appendFinding(c.Findings, findRemoteExec, shorten(carrier+": "+code.lit))
	if code.dynamic {
		a.codeFromWord(at, code, execShell, "")
		return
	}
	home, _ := a.st.get("HOME")
	cwd := dir{}
	if home.known {
		cwd = dir{home.s, true}
	}
	a.nested(at, code.lit, cwd, true)
}

// sshOutput: what ssh HOST COMMAND prints comes from another machine; run as code here
// (ssh host cat x | sh), it is code moat cannot read.
func (a *analyzer) sshOutput(x *execCall) bool {
	if len(x.ops) >= 2 {
		a.meta[x.at].out.t |= tRemote
	}
	return false
}

// stdinText returns the text of the command's standard input when the line gives it (a
// here-document or here-string), and whether it reads one the line does not show (a file
// or a pipe).
func (a *analyzer) stdinText(at int) (text string, known, hidden bool) {
	m := &a.meta[at]
	switch {
	case m.ownStdin && m.stdin.known:
		return m.stdin.text, true, false
	case m.ownStdin:
		return "", false, m.stdin.t != 0 || len(a.cmds[at].Accesses) > 0
	case m.piped:
		return "", false, true
	}
	return "", false, false
}

// optionEnd returns the index in words of the first operand, past the options: values
// of the options in short and long are skipped, and "--" ends the options.
func optionEnd(words []arg, short string, long []string) int {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.dynamic || w.glob || !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			return i
		}
		if w.lit == "--" {
			return i + 1
		}
		if name, ok := strings.CutPrefix(w.lit, "--"); ok {
			if !strings.Contains(name, "=") && contains(long, name) {
				i++
			}
			continue
		}
		for j := 1; j < len(w.lit); j++ {
			if strings.IndexByte(short, w.lit[j]) >= 0 {
				if j+1 == len(w.lit) {
					i++
				}
				break
			}
		}
	}
	return len(words)
}

// runuserArgs: runuser -u USER COMMAND… runs COMMAND; runuser [-l] USER -c CODE is su's
// form, and runs CODE with USER's shell.
func (a *analyzer) runuserArgs(x *execCall) bool {
	c := &a.cmds[x.at]
	c.Findings = appendFinding(c.Findings, findSudo, "runuser")
	user := false
	for _, o := range x.opts {
		switch o.name {
		case "c", "command", "session-command":
			if o.hasValue {
				a.nestedWord(x.at, o.val, x.cwd)
				return true
			}
		case "u", "user":
			user = true
		}
	}
	if user {
		vo := executorOptions()["runuser"]
		if i := optionEnd(x.rest, vo.short, vo.long); i < len(x.rest) {
			a.command(x.rest[i:], nil, nil)
		}
	}
	return true
}

// nixCommand: nix develop and nix shell run the command after -c or --command, its words
// to the end of the line, in the environment they build (nix develop -c make test).
func (a *analyzer) nixCommand(x *execCall) {
	if len(x.ops) == 0 || x.ops[0].dynamic || x.ops[0].lit != "develop" && x.ops[0].lit != "shell" {
		return
	}
	for i, w := range x.rest {
		if !w.dynamic && (w.lit == "-c" || w.lit == "--command") {
			if i+1 < len(x.rest) {
				a.command(x.rest[i+1:], nil, nil)
			}
			return
		}
	}
}

// expectArgs: expect [OPTIONS] SCRIPT runs a Tcl script; -c (the table) runs Tcl code.
func (a *analyzer) expectArgs(x *execCall) bool {
	for _, o := range x.opts {
		if (o.name == "c" || o.name == "f") && o.hasValue {
			return true
		}
	}
	if len(x.ops) > 0 && !(x.ops[0].lit == "-" && !x.ops[0].dynamic) {
		a.codeFile(x.at, x.ops[0], x.cwd, "expect")
	} else if text, known, hidden := a.stdinText(x.at); hidden || known && strings.TrimSpace(text) != "" {
		a.opaque(x.at, "expect runs the Tcl code it reads on standard input")
	}
	return true
}

// zipArgs: zip -TT CMD (--unzip-command CMD) tests the archive by running CMD through the
// shell, with {} or an appended word standing for the archive.
func (a *analyzer) zipArgs(x *execCall) bool {
	for i, w := range x.rest {
		if w.dynamic {
			continue
		}
		var code arg
		switch {
		case (w.lit == "-TT" || w.lit == "--unzip-command") && i+1 < len(x.rest):
			code = x.rest[i+1]
		case strings.HasPrefix(w.lit, "--unzip-command="):
			code = arg{lit: strings.TrimPrefix(w.lit, "--unzip-command="), word: w.word, dynamic: w.dynamic}
		case strings.HasPrefix(w.lit, "-TT") && len(w.lit) > 3:
			code = arg{lit: w.lit[3:]}
		default:
			continue
		}
		if !code.dynamic {
			code.lit = strings.ReplaceAll(code.lit, "{}", "archive.zip")
		}
		a.nestedWord(x.at, code, x.cwd)
	}
	return true
}

// shellText analyses text a program types or feeds to a shell, as a shell reads it.
func (a *analyzer) shellText(at int, text string, cwd dir) {
	if strings.TrimSpace(text) != "" {
		a.nested(at, text, cwd, false)
	}
}

// uniquePrefix resolves a long option written as the unique prefix of one of known, as
// getopt_long, emacs and npm accept (--expr for --expression); otherwise it stays as
// written.
func uniquePrefix(name string, known []string) string {
	match := ""
	for _, k := range known {
		if k == name {
			return k
		}
		if strings.HasPrefix(k, name) {
			if match != "" {
				return name
			}
			match = k
		}
	}
	if match == "" {
		return name
	}
	return match
}

// runsItsInput reports whether a command line is a shell or an interpreter reading its
// code on standard input (sh, bash -s, python3 -): what is written into it runs as code.
// Given its code otherwise (sh -c CODE, python3 script.py), it does not.
func runsItsInput(code arg) bool {
	f := strings.Fields(code.lit)
	if code.dynamic || len(f) == 0 {
		return false
	}
	name := canonicalProgram(baseName(f[0]))
	if _, interp := oneliner.Lookup(name); !shells()[name] && !(interp && name != "awk") {
		return false
	}
	for _, w := range f[1:] {
		switch {
		case w == "-" || w == "-s" || w == "-i" || w == "--":
		case w == "-c" || w == "-e" || w == "-m" || !strings.HasPrefix(w, "-"):
			return false // code in an option, a module or a script
		}
	}
	return true
}

// extraValues is, for the programs read by commandOperands, how many more words than one
// an option takes: hyperfine's --parameter-scan VAR MIN MAX and --parameter-list VAR
// VALUES.
func extraValues(name string) int {
	switch name {
	case "P", "parameter-scan":
		return 2
	case "L", "parameter-list":
		return 1
	}
	return 0
}

// commandOperands judges each operand of the command at x.at as a command line a shell
// runs (hyperfine's benchmarks, concurrently's processes; concurrently's npm:NAME is npm
// run NAME).
func (a *analyzer) commandOperands(x *execCall) {
	vo := executorOptions()[x.prog]
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		if !w.dynamic && strings.HasPrefix(w.lit, "-") && w.lit != "-" {
			if w.lit == "--" {
				for _, c := range x.rest[i+1:] {
					a.commandOperand(x, c)
				}
				return
			}
			name, _, inline := strings.Cut(strings.TrimLeft(w.lit, "-"), "=")
			takes := strings.HasPrefix(w.lit, "--") && contains(vo.long, name) ||
				!strings.HasPrefix(w.lit, "--") && len(w.lit) == 2 && strings.IndexByte(vo.short, w.lit[1]) >= 0
			if takes && !inline {
				i++
			}
			if takes {
				i += extraValues(name)
			}
			continue
		}
		a.commandOperand(x, w)
	}
}

func (a *analyzer) commandOperand(x *execCall, w arg) {
	if script, ok := strings.CutPrefix(w.lit, "npm:"); ok && x.prog == "concurrently" && !w.dynamic {
		a.nested(x.at, "npm run "+shellQuote(script), x.cwd, false)
		return
	}
	a.nestedWord(x.at, w, x.cwd)
}

// lessCommands judges less's commands given at start (+CMD, ++CMD for every file): a !
// command is a shell command line.
func (a *analyzer) lessCommands(x *execCall) {
	for _, w := range x.rest {
		if w.lit == "--" {
			return
		}
		cmd, ok := strings.CutPrefix(w.lit, "+")
		if !ok {
			continue
		}
		cmd = strings.TrimLeft(strings.TrimPrefix(cmd, "+"), ":")
		if line, bang := strings.CutPrefix(cmd, "!"); bang {
			if w.dynamic {
				a.opaque(x.at, "less runs a shell command computed at run time: "+shorten(w.lit))
				continue
			}
			a.nested(x.at, line, x.cwd, false)
		}
	}
}

// rpmMacros: rpm's macros run code when expanded, %(CMD) a shell command and %{lua:…}
// Lua, whether given to --eval or defined with --define.
func (a *analyzer) rpmMacros(x *execCall) {
	for _, o := range x.opts {
		switch o.name {
		case "E", "eval", "D", "define":
			if strings.Contains(o.val.lit, "%(") || strings.Contains(o.val.lit, "%{lua:") || strings.Contains(o.val.lit, "%[") {
				a.opaque(x.at, "rpm runs the code of a macro: "+shorten(o.val.lit))
				return
			}
		}
	}
}

// aptHooks: apt's -o options that set a hook (APT::Update::Pre-Invoke,
// DPkg::Post-Invoke, DPkg::Pre-Install-Pkgs…) give it a command line run as root.
func (a *analyzer) aptHooks(x *execCall) {
	for _, o := range x.opts {
		if (o.name != "o" && o.name != "option") || !o.hasValue {
			continue
		}
		key, val, ok := strings.Cut(o.val.lit, "=")
		low := strings.ToLower(key)
		if !ok || !strings.Contains(low, "invoke") && !strings.Contains(low, "pre-install-pkgs") {
			continue
		}
		if o.val.dynamic {
			a.opaque(x.at, "apt runs a hook computed at run time: "+shorten(o.val.lit))
			continue
		}
		a.nested(x.at, strings.Trim(val, `"'`), x.cwd, false)
	}
}

// cutAnyPrefix returns s without the first of prefixes it starts with.
func cutAnyPrefix(s string, prefixes ...string) (string, bool) {
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(s, p); ok {
			return rest, true
		}
	}
	return s, false
}

// ansibleCommandModules are the modules whose arguments are a command line.
var ansibleCommandModules = []string{"shell", "command", "raw", "ansible.builtin.shell", "ansible.builtin.command", "ansible.builtin.raw"}

// ansibleReadModules are the modules that only read the hosts.
var ansibleReadModules = []string{"ping", "setup", "gather_facts", "debug", "ansible.builtin.ping", "ansible.builtin.setup",
	"ansible.builtin.gather_facts", "ansible.builtin.debug", "stat", "ansible.builtin.stat", "service_facts", "package_facts"}

// ansibleAdHoc judges an ad-hoc ansible command: a command line given to the shell,
// command or raw module runs on the hosts (this machine for localhost or a local
// connection); the read-only modules change nothing; any other module changes the hosts
// in a way moat does not model.
func (a *analyzer) ansibleAdHoc(x *execCall) {
	module := "command" // ansible's default module
	var args *arg
	local := false
	for _, o := range x.opts {
		switch o.name {
		case "m", "module-name":
			module = o.val.lit
			if o.val.dynamic {
				a.opaque(x.at, "ansible runs a module named at run time: "+shorten(o.val.lit))
				return
			}
		case "a", "args":
			v := o.val
			args = &v
		case "c", "connection":
			local = o.val.lit == "local"
		}
	}
	hosts := ""
	if len(x.ops) > 0 {
		hosts = x.ops[0].lit
	}
	switch hosts {
	case "localhost", "127.0.0.1", "::1":
		local = true
	}
	switch {
	case slices.Contains(ansibleReadModules, module):
	case slices.Contains(ansibleCommandModules, module):
		if args == nil {
			return
		}
		if local {
			a.nestedWord(x.at, *args, x.cwd)
			return
		}
		a.remoteCode(x.at, *args, "ansible "+hosts)
	default:
		a.opaque(x.at, "ansible's "+module+" module changes the hosts in a way moat does not model")
	}
}
