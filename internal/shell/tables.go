package shell

import (
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file holds what the analyser knows about programs, as data. Each table is iterated
// by tests (tables_test.go), so an entry added here is tested without further work.
//
// The large tables, here and in options.go, knowledge.go and streams.go, are built on
// first use (sync.OnceValue) rather than at init. Go builds a map literal at run time,
// entry by entry and slice by slice, and moat starts one process per tool call: at init,
// every call would pay for tables that only the analysis of a shell command reads.
// TestNoWorkAtInit keeps it so.

// wrapper describes a program that runs another program named among its arguments, and how
// to find that program: skip the wrapper's options (and the values of those that take one),
// then any NAME=value words and leading operands it takes.
type wrapper struct {
	valueShort string   // short options that take a value ("-u root", "-uroot")
	valueLong  []string // long options that take a value when not written --name=value
	// stopShort and stopLong are options that mean the program named after them is not run
	// (`command -v rm` only prints where rm is).
	stopShort string
	stopLong  []string
	// dynamicShort and dynamicLong are options whose value is itself a command line the
	// wrapper splits (`env -S 'rm -rf /'`); until it is parsed, the program is unknown.
	dynamicShort string
	dynamicLong  []string
	chdirShort   string // the option that changes the program's working directory
	chdirLong    string
	assigns      bool // NAME=value words before the program set its environment
	operands     int  // operands before the program (timeout's DURATION)
	privileged   bool // runs the program as another user
	xargs        bool // appends words read from standard input to the program's arguments
	// joinShell means the program and its arguments are joined into one line that a shell
	// runs (watch), unless an option in noJoinShort or noJoinLong is given (watch -x).
	joinShell   bool
	noJoinShort string
	noJoinLong  string
	// joinShort are the options that join the words so for a wrapper that otherwise runs
	// the program itself (entr -s).
	joinShort string
	// joinQuoted says the words are joined quoted, each one word of the line (watchexec's
	// -- CMD ARGS), rather than with spaces alone (watch, whose sh -c re-splits them).
	joinQuoted bool
	// pipeShort and pipeLong are options whose value, when it starts with | or !, is a
	// command line the wrapper pipes its output to (strace -o '|CMD').
	pipeShort string
	pipeLong  []string
	// finding is what running a program through the wrapper is evidence of, besides the
	// program's own findings (chroot, unshare and nsenter enter other namespaces).
	finding string
	// runner means the program is a package the wrapper fetches (npx): the package is
	// judged as code moat may not be able to read (executors_runners.go).
	runner bool
	// laterLong are options that make the wrapper run the program later, again and again
	// (systemd-run --on-calendar): running it so is persistence.
	laterLong []string
}

// wrappers maps a wrapper's name to how it is unwrapped. Options not listed as taking a
// value are assumed to take none.
var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"sudo": {
			privileged: true,
			valueShort: "CDghprtTuU",
			valueLong:  []string{"chdir", "close-from", "command-timeout", "group", "host", "other-user", "prompt", "role", "type", "user"},
			stopShort:  "eKlVv",
			stopLong:   []string{"edit", "list", "remove-timestamp", "validate", "version"},
			chdirShort: "D",
			chdirLong:  "chdir",
			assigns:    true,
		},
		"doas":         {valueShort: "Cu", privileged: true},
		"pkexec":       {valueLong: []string{"user"}, privileged: true},
		"run0":         {valueShort: "uDg", valueLong: []string{"user", "group", "chdir", "setenv", "property", "unit", "description", "slice", "nice"}, privileged: true, chdirShort: "D", chdirLong: "chdir"},
		"ionice":       {valueShort: "cnp", valueLong: []string{"class", "classdata", "pid", "pgid", "uid"}},
		"stdbuf":       {valueShort: "ioe", valueLong: []string{"input", "output", "error"}},
		"setsid":       {},
		"chrt":         {operands: 1, stopShort: "pm", stopLong: []string{"pid", "max"}},
		"taskset":      {operands: 1, stopShort: "p", stopLong: []string{"pid"}},
		"unbuffer":     {},
		"caffeinate":   {valueShort: "tw"},
		"fakeroot":     {valueShort: "ils", valueLong: []string{"lib", "faked"}},
		"proxychains":  {valueShort: "f"},
		"proxychains4": {valueShort: "f"},
		"torsocks":     {valueShort: "uapP", valueLong: []string{"user", "pass", "address", "port"}},
		"strace":       {valueShort: "abeEIoOpPsSuUX", valueLong: []string{"output", "signal", "trace", "attach"}, pipeShort: "o", pipeLong: []string{"output"}},
		"ltrace":       {valueShort: "aAeEnopsSu", pipeShort: "o", pipeLong: []string{"output"}},
		"chroot":       {valueLong: []string{"userspec", "groups"}, operands: 1, finding: findNamespace},
		"unshare":      {valueShort: "SGRw", valueLong: []string{"setuid", "setgid", "root", "wd", "map-user", "map-group", "map-users", "map-groups", "propagation", "setgroups"}, chdirShort: "w", chdirLong: "wd", finding: findNamespace},
		"nsenter":      {valueShort: "tSG", valueLong: []string{"target", "setuid", "setgid"}, finding: findNamespace},
		"systemd-run":  {valueShort: "upEMHC", valueLong: systemdRunValues, stopShort: "S", stopLong: []string{"shell"}, chdirLong: "working-directory", laterLong: systemdRunTimers},
		"toybox":       {stopLong: []string{"help", "version"}},
		"xargs":        {valueShort: "adEeIiLlnPs", valueLong: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}, xargs: true},
		"watch":        {valueShort: "nqd", valueLong: []string{"interval", "differences", "equexit"}, joinShell: true, noJoinShort: "x", noJoinLong: "exec"},
		"busybox":      {stopLong: []string{"list", "list-full", "install", "help"}},
		"npx":          {valueShort: "pc", valueLong: []string{"package", "call"}, runner: true},
		"bunx":         {valueShort: "p", valueLong: []string{"package"}, runner: true},
		"pnpx":         {valueShort: "pc", valueLong: []string{"package", "call"}, runner: true},
		"env":          {valueShort: "aCu", valueLong: []string{"argv0", "chdir", "unset"}, dynamicShort: "S", dynamicLong: []string{"split-string"}, chdirShort: "C", chdirLong: "chdir", assigns: true},
		"command":      {stopShort: "vV"},
		"builtin":      {},
		"exec":         {valueShort: "a"},
		"nohup":        {},
		// sshpass runs its command with the password it holds (-p PASS, -f FILE, -d FD,
		// -e for $SSHPASS) typed at ssh's prompt.
		"sshpass": {valueShort: "pfdP"},
		"nice":    {valueShort: "n", valueLong: []string{"adjustment"}},
		"time":    {valueShort: "fo", valueLong: []string{"format", "output"}},
		"timeout": {valueShort: "ks", valueLong: []string{"kill-after", "signal"}, operands: 1},
		// File watchers that run their command at every change: watchexec hands it to a
		// shell (unless -n, an older --shell=none), entr runs it as it is, or with -s hands
		// its first word to a shell.
		"watchexec": {valueShort: "ewifdsEW", valueLong: []string{"exts", "watch", "ignore", "filter", "filter-file", "ignore-file",
			"debounce", "delay-run", "signal", "stop-signal", "stop-timeout", "shell", "env", "workdir", "project-origin",
			"on-busy-update", "poll", "emit-events-to", "fs-events", "timeout", "wrap-process", "watch-file", "log-file", "color"},
			joinShell: true, joinQuoted: true, noJoinShort: "n", chdirLong: "workdir"},
		"entr": {joinShort: "s"},
		// Program runners of developers' tools: valgrind runs the program under its tool
		// (its options are --name=value), xcrun runs an Xcode tool by name, cross-env sets
		// variables and runs the command, cross-env-shell hands it to a shell.
		"valgrind":        {},
		"xcrun":           {valueLong: []string{"sdk", "toolchain"}, stopShort: "f", stopLong: []string{"find", "show-sdk-path", "show-sdk-version", "show-sdk-build-version", "show-sdk-platform-path", "show-sdk-platform-version"}},
		"cross-env":       {assigns: true},
		"cross-env-shell": {assigns: true, joinShell: true},
		// lima runs its command in the Lima virtual machine, which mounts the user's home
		// directory: lima nerdctl run …, lima rm -rf ~/x.
		"lima": {valueLong: []string{"workdir"}},
		// Runners of a session a program needs: a virtual X display (xvfb-run npm test),
		// a D-Bus session.
		"xvfb-run":         {valueShort: "efnspw", valueLong: []string{"error-file", "auth-file", "server-num", "server-args", "wait", "xauth-protocol"}},
		"dbus-run-session": {valueLong: []string{"config-file", "dbus-daemon"}},
	}
})

// flagAliases adds, per program, the canonical short name of options that have several
// spellings, so that a rule can test one flag: `rm --recursive` and `rm -R` both set "r".
var flagAliases = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"rm":    {"R": "r", "recursive": "r", "force": "f"},
		"cp":    {"R": "r", "recursive": "r", "a": "r", "archive": "r"},
		"rsync": {"recursive": "r", "a": "r", "archive": "r"},
		"chmod": {"recursive": "R"},
		"chown": {"recursive": "R"},
		"chgrp": {"recursive": "R"},
		"grep":  {"R": "r", "recursive": "r", "dereference-recursive": "r"},
		"diff":  {"recursive": "r"},
		"ls":    {"recursive": "R"},
	}
})

// operandSet selects some of a command's operands.
type operandSet uint8

const (
	allOperands   operandSet = iota + 1
	firstOperand             // the first
	secondOperand            // the second
	afterFirst               // all but the first (grep's files after its pattern)
	lastOperand              // the last, when there are at least two
	beforeLast               // all but the last (cp's sources)
	linkName                 // ln's link: the last of two or more, else the base name of the only one in the cwd
)

// accessRule says that the selected operands are accessed as kind.
type accessRule struct {
	operands operandSet
	kind     call.AccessKind
}

// cwdDefault says when a program with no operand for its rules works on the cwd instead.
type cwdDefault uint8

const (
	cwdNever cwdDefault = iota
	cwdAlways
	cwdIfRecursive // grep -r with no file searches "."
)

// fileEffects is what a program does to the paths named by its operands.
type fileEffects struct {
	rules []accessRule
	// recursive is the canonical flag that makes every access cover the whole tree.
	recursive string
	// alwaysRecursive means every access covers the whole tree (rimraf).
	alwaysRecursive bool
	// noOperand is the access made to the cwd when the rules select no operand.
	noOperand     cwdDefault
	noOperandKind call.AccessKind
	// outputs are options whose value is a file the program writes (sort -o FILE).
	outputs []string
	// targetDir are options whose value is the directory every operand goes into (cp -t
	// DIR SRC…): then every operand is a source, and the destinations are DIR/SRC's name.
	targetDir []string
	// patterns are a searcher's options whose value is its pattern (grep -e PAT, -f
	// FILE): given one, the first operand is a file like the others. patternFiles are
	// those whose value is a file of patterns, which is read.
	patterns, patternFiles []string
	// ownGlobs means the program expands a pattern it is given (one the shell passed on,
	// matching nothing), rather than taking it as a file's name.
	ownGlobs bool
}

// searcher is the file effects of a program that searches the files its operands name
// after its pattern: grep, and the recursive searchers.
func searcher(recursive string, always bool) fileEffects {
	eff := fileEffects{rules: []accessRule{{afterFirst, call.Read}}, recursive: recursive, alwaysRecursive: always,
		noOperand: cwdIfRecursive, noOperandKind: call.Read,
		patterns: []string{"e", "regexp", "f", "file"}, patternFiles: []string{"f", "file"}}
	if always {
		eff.noOperand = cwdAlways
	}
	return eff
}

var (
	deleteEach = []accessRule{{allOperands, call.Delete}}
	readEach   = []accessRule{{allOperands, call.Read}}
	writeEach  = []accessRule{{allOperands, call.Write}}
	noFiles    = fileEffects{}
)

// programEffects maps a program to its file effects. A program listed with no rules has no
// file effects at all; a program absent from the table is opaque: it may touch paths the
// analysis cannot see.
var programEffects = sync.OnceValue(func() map[string]fileEffects {
	effects := map[string]fileEffects{
		"rm":     {rules: deleteEach, recursive: "r"},
		"rmdir":  {rules: deleteEach},
		"unlink": {rules: deleteEach},
		"shred":  {rules: deleteEach},

		"cat":       {rules: readEach},
		"head":      {rules: readEach},
		"tail":      {rules: readEach},
		"less":      {rules: readEach},
		"more":      {rules: readEach},
		"wc":        {rules: readEach},
		"sort":      {rules: readEach, outputs: []string{"o", "output"}},
		"diff":      {rules: readEach, recursive: "r"},
		"cmp":       {rules: readEach},
		"md5sum":    {rules: readEach},
		"sha256sum": {rules: readEach},
		"file":      {rules: readEach},
		// stat and ls read names and metadata, not contents.
		"stat": noFiles,
		// uniq [INPUT [OUTPUT]] writes its second operand.
		"uniq": {rules: []accessRule{{firstOperand, call.Read}, {secondOperand, call.Write}}},
		"grep": searcher("r", false), "ugrep": searcher("r", false),
		// ripgrep, the silver searcher, ack, pt and sift search the working directory, and
		// each directory named, as whole trees.
		"rg": searcher("", true), "ag": searcher("", true), "ack": searcher("", true),
		"pt": searcher("", true), "sift": searcher("", true),
		"ls": noFiles,
		"du": noFiles,

		"touch":    {rules: writeEach},
		"truncate": {rules: writeEach},
		"rimraf":   {rules: deleteEach, alwaysRecursive: true},
		// zip matches a pattern the shell passed on unexpanded itself (zip -r x.zip '*.c').
		"zip":     {rules: []accessRule{{firstOperand, call.Write}, {afterFirst, call.Read}}, recursive: "r", ownGlobs: true},
		"install": {rules: []accessRule{{beforeLast, call.Read}, {lastOperand, call.Write}}, targetDir: []string{"t", "target-directory"}},
		"mkdir":   {rules: writeEach},
		"tee":     {rules: writeEach},
		"sponge":  {rules: writeEach},

		"cp":    {rules: []accessRule{{beforeLast, call.Read}, {lastOperand, call.Write}}, recursive: "r", targetDir: []string{"t", "target-directory"}},
		"mv":    {rules: []accessRule{{beforeLast, call.Delete}, {beforeLast, call.Read}, {lastOperand, call.Write}}, targetDir: []string{"t", "target-directory"}},
		"chmod": {rules: []accessRule{{afterFirst, call.Write}}, recursive: "R"},
		"chown": {rules: []accessRule{{afterFirst, call.Write}}, recursive: "R"},
		"chgrp": {rules: []accessRule{{afterFirst, call.Write}}, recursive: "R"},
		"ln":    {rules: []accessRule{{linkName, call.Write}}, targetDir: []string{"t", "target-directory"}},

		// No file effects. ":" is the null command, which also stands for a statement that is
		// only redirections (`> f`); the declaration builtins appear because `export x=1` is a
		// command too; the wrappers appear for when they are run with no program.
		"echo": noFiles, "printf": noFiles, "true": noFiles, "false": noFiles, "pwd": noFiles,
		"whoami": noFiles, "date": noFiles, "id": noFiles, "uname": noFiles, "hostname": noFiles,
		"cd": noFiles, "pushd": noFiles, "popd": noFiles, "export": noFiles, "set": noFiles,
		"sleep": noFiles, "test": noFiles, "[": noFiles, ":": noFiles,
		"declare": noFiles, "local": noFiles, "readonly": noFiles, "typeset": noFiles, "nameref": noFiles,
		"unset": noFiles, "read": noFiles, "shift": noFiles, "exit": noFiles, "return": noFiles,
		"wait": noFiles, "type": noFiles,
		"command": noFiles, "builtin": noFiles, "exec": noFiles, "time": noFiles,
		"env": noFiles, "printenv": noFiles, "history": noFiles, "eval": noFiles,

		// Programs whose file effects depend on their options: streams.go adds them.
		"curl": noFiles, "wget": noFiles, "tar": noFiles, "dd": noFiles, "ssh": noFiles,
		"scp":   {rules: []accessRule{{beforeLast, call.Read}, {lastOperand, call.Write}}, recursive: "r"},
		"rsync": {rules: []accessRule{{beforeLast, call.Read}, {lastOperand, call.Write}}, recursive: "r"},
		"nc":    noFiles, "ncat": noFiles, "telnet": noFiles, "socat": noFiles, "dig": noFiles,
		"nslookup": noFiles, "host": noFiles, "ping": noFiles, "base64": {rules: readEach},
		"xxd": {rules: []accessRule{{firstOperand, call.Read}, {secondOperand, call.Write}}}, "rev": {rules: readEach},
		"tr": noFiles, "sed": {rules: []accessRule{{afterFirst, call.Read}}, patterns: []string{"e", "expression", "f", "file"}, patternFiles: []string{"f", "file"}}, "jq": {rules: []accessRule{{afterFirst, call.Read}}},
		"find": noFiles, "nmap": noFiles, "which": noFiles,
		"tac": {rules: readEach}, "cut": {rules: readEach}, "strings": {rules: readEach},
		"od": {rules: readEach}, "hexdump": {rules: readEach}, "nl": {rules: readEach},

		// Compressors, encoders and text filters print (or write beside) the files they read.
		"gzip": {rules: readEach}, "bzip2": {rules: readEach}, "xz": {rules: readEach}, "zstd": {rules: readEach},
		"lz4": {rules: readEach}, "base32": {rules: readEach}, "basenc": {rules: readEach}, "hd": {rules: readEach},
		"uuencode": {rules: []accessRule{{firstOperand, call.Read}}}, "paste": {rules: readEach}, "fold": {rules: readEach},
		"expand": {rules: readEach}, "unexpand": {rules: readEach}, "fmt": {rules: readEach}, "pr": {rules: readEach},
		"shuf": {rules: readEach}, "comm": {rules: readEach}, "join": {rules: readEach}, "bat": {rules: readEach},
		"batcat": {rules: readEach}, "column": {rules: readEach},
		// Encryptors: what they print (or write with -o) is the file they read, under a key
		// or passphrase the line may well hold (gpg -c --passphrase p, age -p).
		"gpg": {rules: readEach, outputs: []string{"o", "output"}}, "gpg2": {rules: readEach, outputs: []string{"o", "output"}},
		"age": {rules: readEach, outputs: []string{"o", "output"}},

		// Database files opened by their client, and macOS's copier: reading a browser's
		// cookie or password database is reading a credential store.
		"sqlite3": {rules: []accessRule{{firstOperand, call.Read}}},
		"duckdb":  {rules: []accessRule{{firstOperand, call.Read}}},
		"ditto":   {rules: []accessRule{{beforeLast, call.Read}, {lastOperand, call.Write}}, alwaysRecursive: true},
		// mount DEVICE DIR covers DIR with another tree: a write of everything below it
		// (over ~/.claude it replaces the hook settings). -o remount is knowledge.go's.
		"mount": {rules: []accessRule{{lastOperand, call.Write}}, alwaysRecursive: true},
	}
	// Editing and extracting tools live in editors.go.
	for name, eff := range editorPrograms() {
		effects[name] = eff
	}
	return effects
})

// notPaths are device files that name a stream rather than data on disk: reading or writing
// them is not a file access. Deleting them still is.
var notPaths = map[string]bool{
	"/dev/null":   true,
	"/dev/stdin":  true,
	"/dev/stdout": true,
	"/dev/stderr": true,
	"/dev/tty":    true,
}

// Programs that change the shell's own state, which later words of the line are expanded in.
var (
	// dirChangers change the working directory.
	dirChangers = map[string]bool{"cd": true, "pushd": true, "popd": true}
	// evaluators run code the analysis does not see yet (a string, a file, a trap), which
	// may set any variable or change directory.
	evaluators = map[string]bool{"eval": true, "source": true, ".": true, "trap": true}
	// varSetters assign the variables named by their arguments. The value is the option
	// that names the variable ("printf -v x"), or "" when any argument may name one
	// ("read x", "unset x").
	varSetters = sync.OnceValue(func() map[string]string {
		return map[string]string{
			"read": "", "mapfile": "", "readarray": "", "getopts": "", "unset": "", "let": "",
			"declare": "", "typeset": "", "local": "", "export": "", "readonly": "",
			"printf": "v", "wait": "p",
		}
	})
)
