package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
)

// This file holds what moat knows about git as a runner of other programs. Many settings
// name a command that git runs later (core.pager, diff.external, filter.*.smudge, an alias
// starting with !), and they reach git in many ways: `git -c` and `--config-env` on the
// command line, `git clone -c`, `git config` writing them for every later command, a file
// written straight into .git/config, and the GIT_* environment variables (envcode.go).
// Options of some subcommands run commands too (clone --upload-pack, rebase --exec,
// submodule foreach), and an ext:: URL names the command that serves as transport. Every
// such value is judged as the code it is (carriers.go): `git -c core.pager='rm -rf ~' log`
// is decided as rm -rf ~, and a value that names a script, a hook directory or another
// configuration file is opaque.

// gitValueKind is what git does with the value of a setting.
type gitValueKind uint8

const (
	gitShell       gitValueKind = iota + 1 // runs it as a shell command line
	gitShellOrBool                         // a shell command line, or a boolean that turns a built-in on or off (pager.<cmd>, core.fsmonitor)
	gitBang                                // shell code when it starts with "!"; otherwise git arguments (alias.*) or a helper's name (credential.helper)
	gitProgram                             // a program git runs with arguments of its own
	gitProgramPath                         // a program when it is an absolute path, a host name otherwise (sendemail.smtpServer)
	gitHooks                               // a directory of hooks git runs (core.hooksPath, init.templateDir)
	gitInclude                             // another configuration file git reads (include.path)
	gitTransport                           // allows transports whose URLs name commands (protocol.ext.allow)
	gitTLSVerify                           // checks the certificates of HTTPS remotes (http.sslVerify)
	gitCATrust                             // the certificate authorities HTTPS remotes are checked against (http.sslCAInfo)
	gitProxy                               // the proxy requests to remotes go through (http.proxy)
	gitSafeDir                             // repositories of other owners git may work in (safe.directory)
	gitWorkTree                            // a work tree git checks files out into (core.worktree)
	gitPair                                // for an option: a KEY=VALUE setting (clone -c)
)

// gitKey is a setting whose value git runs or reads code from. Patterns are lower case, as
// git compares section and variable names; * stands for a subsection or an alias name.
type gitKey struct {
	pattern string
	kind    gitValueKind
}

// gitCodeKeys is built on first use, like the tables of tables.go.
var gitCodeKeys = sync.OnceValue(func() []gitKey {
	return []gitKey{
		{"core.pager", gitShell},
		{"pager.*", gitShellOrBool},
		{"core.editor", gitShell},
		{"sequence.editor", gitShell},
		{"core.sshcommand", gitShell},
		{"core.fsmonitor", gitShellOrBool},
		{"core.askpass", gitProgram},
		{"core.gitproxy", gitShell},
		{"core.alternaterefscommand", gitShell},
		{"core.hookspath", gitHooks},
		{"init.templatedir", gitHooks},
		{"diff.external", gitShell},
		{"diff.*.command", gitShell},
		{"diff.*.textconv", gitShell},
		{"merge.*.driver", gitShell},
		{"filter.*.clean", gitShell},
		{"filter.*.smudge", gitShell},
		{"filter.*.process", gitShell},
		{"alias.*", gitBang},
		{"credential.helper", gitBang},
		{"credential.*.helper", gitBang},
		{"submodule.*.update", gitBang},
		{"gpg.program", gitProgram},
		{"gpg.*.program", gitProgram},
		{"gpg.ssh.defaultkeycommand", gitShell},
		{"sendemail.sendmailcmd", gitShell},
		{"sendemail.tocmd", gitShell},
		{"sendemail.cccmd", gitShell},
		{"sendemail.headercmd", gitShell},
		{"sendemail.smtpserver", gitProgramPath},
		{"browser.*.cmd", gitShell},
		{"browser.*.path", gitProgram},
		{"man.*.cmd", gitShell},
		{"man.*.path", gitProgram},
		{"difftool.*.cmd", gitShell},
		{"difftool.*.path", gitProgram},
		{"mergetool.*.cmd", gitShell},
		{"mergetool.*.path", gitProgram},
		{"uploadpack.packobjectshook", gitShell},
		{"interactive.difffilter", gitShell},
		{"tar.*.command", gitShell},
		{"trailer.*.command", gitShell},
		{"trailer.*.cmd", gitShell},
		{"remote.*.uploadpack", gitShell},
		{"remote.*.receivepack", gitShell},
		{"core.worktree", gitWorkTree},
		{"include.path", gitInclude},
		{"includeif.*.path", gitInclude},
		{"protocol.ext.allow", gitTransport},
		{"protocol.allow", gitTransport},
		{"http.sslverify", gitTLSVerify},
		{"http.*.sslverify", gitTLSVerify},
		{"safe.directory", gitSafeDir},
		{"http.proxy", gitProxy},
		{"http.*.proxy", gitProxy},
		{"https.proxy", gitProxy},
		{"http.sslcainfo", gitCATrust},
		{"http.*.sslcainfo", gitCATrust},
		{"http.sslcapath", gitCATrust},
		{"http.*.sslcapath", gitCATrust},
	}
})

// gitKeyKind returns what git does with the value of the setting key (lower case).
func gitKeyKind(key string) (gitValueKind, bool) {
	for _, k := range gitCodeKeys() {
		if wordMatch(k.pattern, key) {
			return k.kind, true
		}
	}
	return 0, false
}

// gitBool reports whether a value is one of git's spellings of a boolean.
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitSetting judges one setting given to git: the code its value runs, and findings about it.
// persist says the setting is stored for later commands (git config, a configuration file)
// rather than used by this one (-c).
func (a *analyzer) gitSetting(key string, val arg, persist bool, cwd dir) (refs []codeRef, fs []call.Finding) {
	kind, ok := gitKeyKind(strings.ToLower(key))
	if !ok {
		return nil, nil
	}
	carrier := "git's " + key
	if val.dynamic {
		switch kind {
		case gitSafeDir:
			// safe.directory computed at run time may be *, which trusts every owner: on
			// a machine discarded after the job, the job's own repositories.
			if a.sh.discarded == 0 {
				fs = appendFinding(fs, findOpaque, carrier+" is computed at run time: "+shorten(val.lit))
			}
		case gitHooks, gitInclude, gitWorkTree:
			fs = appendFinding(fs, findOpaque, carrier+" is computed at run time: "+shorten(val.lit))
		case gitCATrust:
			fs = appendFinding(fs, findRegistry, carrier+" "+shorten(val.lit)+": "+caBundleRisk(val))
		case gitProxy:
			fs = appendFinding(fs, findRegistry, carrier+" "+shorten(val.lit)+": "+proxyRisk(val))
		case gitTransport:
		default:
			refs = append(refs, codeRef{code: val, kind: codeShell, carrier: carrier})
		}
		return refs, fs
	}
	v := val.lit
	switch kind {
	case gitShell:
		if strings.TrimSpace(v) != "" {
			refs = append(refs, codeRef{code: val, kind: codeShell, carrier: carrier})
		}
	case gitShellOrBool:
		if !gitBool(v) {
			refs = append(refs, codeRef{code: val, kind: codeShell, carrier: carrier})
		}
	case gitBang:
		// A credential helper is handed the credentials on its standard input.
		helper := strings.HasPrefix(strings.ToLower(key), "credential.")
		switch rest, bang := strings.CutPrefix(v, "!"); {
		case bang:
			refs = append(refs, codeRef{code: arg{lit: rest}, kind: codeShell, carrier: carrier, secretInput: helper})
		case strings.HasPrefix(strings.ToLower(key), "alias.") && strings.TrimSpace(v) != "":
			refs = append(refs, codeRef{code: val, kind: codeGitArgs, carrier: carrier})
		case helper && strings.Contains(firstField(v), "/"):
			// A helper named by a path is run as written, through the shell.
			refs = append(refs, codeRef{code: val, kind: codeShell, carrier: carrier, secretInput: true})
		case helper && strings.TrimSpace(v) != "":
			// A helper's name, with its arguments, is git's own credential-NAME (store
			// --file ~/.git-credentials is git credential-store --file …).
			refs = append(refs, codeRef{code: arg{lit: "credential-" + strings.TrimSpace(v)}, kind: codeGitArgs, carrier: carrier, secretInput: true})
			if persist && firstField(v) == "store" {
				// Every password git is given from then on is written to a file in plain
				// text, where any program of the user reads it.
				fs = appendFinding(fs, findSecurityOff, "git config "+key+" store: git keeps passwords in plain text")
			}
		}
	case gitProgram:
		if v != "" {
			refs = append(refs, codeRef{code: val, kind: codeProgram, carrier: carrier})
		}
	case gitProgramPath:
		if strings.HasPrefix(v, "/") {
			refs = append(refs, codeRef{code: val, kind: codeProgram, carrier: carrier})
		}
	case gitHooks:
		switch {
		case v == "" || v == "/dev/null":
		case persist:
			fs = appendFinding(fs, findGitHooks, "git config "+key+" "+v)
		case !a.trustedDir(v, cwd):
			fs = appendFinding(fs, findOpaque, carrier+" makes git run the hooks in "+v+", whose code moat cannot read")
		}
	case gitInclude:
		if v != "" && v != "/dev/null" {
			fs = appendFinding(fs, findOpaque, carrier+" makes git read settings from "+v+", which can name commands git runs")
		}
	case gitWorkTree:
		if !a.inProject(a.tildePath(v), cwd) {
			fs = appendFinding(fs, findOpaque, carrier+" is "+v+", outside the project: git checks files out there")
		}
	case gitTLSVerify:
		if falseWord(strings.ToLower(strings.TrimSpace(v))) {
			fs = appendFinding(fs, findRegistry, carrier+" "+v+": fetches take any certificate, so anyone on the path can answer them")
		}
	case gitCATrust:
		if why := caBundleRisk(val); why != "" {
			fs = appendFinding(fs, findRegistry, carrier+" "+v+": "+why)
		}
	case gitProxy:
		if why := proxyRisk(val); why != "" {
			fs = appendFinding(fs, findRegistry, carrier+" "+v+": "+why)
		}
	case gitSafeDir:
		// "*" turns off git's check that a repository belongs to the user, which keeps
		// another user's repository (and its hooks and settings) from running as them.
		if strings.TrimSpace(v) == "*" {
			fs = appendFinding(fs, findSecurityOff, carrier+" *: git trusts repositories of any owner")
		}
	case gitTransport:
		if persist && strings.EqualFold(strings.TrimSpace(v), "always") {
			fs = appendFinding(fs, findToolConfig, "git config "+key+" always: lets URLs name the command git runs (ext::)")
		}
	}
	return refs, fs
}

// gitPairSetting judges a KEY=VALUE word given to git -c or clone -c. A word without = sets
// the key to true.
func (a *analyzer) gitPairSetting(x arg, persist bool, cwd dir) ([]codeRef, []call.Finding) {
	key, val, has := strings.Cut(x.lit, "=")
	if !has {
		return nil, nil
	}
	if x.dynamic {
		if strings.ContainsAny(key, "$`\"'\\") {
			return nil, []call.Finding{newFinding(findDynamicCommand, "a git setting computed at run time: "+shorten(x.lit))}
		}
		return a.gitSetting(key, arg{lit: val, dynamic: true, word: x.word}, persist, cwd)
	}
	return a.gitSetting(key, arg{lit: val}, persist, cwd)
}

// gitSub is what moat knows of one git subcommand that can run code: the options whose
// value is code or a setting, and its other long options, so that an abbreviation (git
// accepts any unique prefix of a subcommand's long option) is resolved as git resolves it.
type gitSub struct {
	code  []gitOpt
	other []string
	// runs says the subcommand's words after its first operand are a command it runs:
	// `submodule foreach CMD` (a shell line), `bisect run CMD ARGS` (a program).
	runs     string
	runsKind codeKind
}

// gitOpt is an option of a git subcommand whose value git runs or reads code from.
type gitOpt struct {
	long     string
	short    byte
	kind     gitValueKind // gitShell, gitProgram, gitProgramPath, gitHooks or gitPair
	attached bool         // the value only follows in the same word (grep -O<pager>)
	// direct says the value is a command the user gives to be run (rebase --exec), judged
	// as if run directly, rather than a program that stands in for one of git's (--upload-pack).
	direct bool
}

var fetchOptions = []string{"all", "append", "atomic", "depth", "deepen", "shallow-since", "shallow-exclude", "unshallow",
	"update-shallow", "negotiation-tip", "negotiate-only", "dry-run", "porcelain", "write-fetch-head", "force", "keep",
	"multiple", "auto-maintenance", "auto-gc", "write-commit-graph", "prefetch", "prune", "prune-tags", "no-tags", "refetch",
	"refmap", "tags", "recurse-submodules", "jobs", "set-upstream", "submodule-prefix", "recurse-submodules-default",
	"update-head-ok", "quiet", "verbose", "progress", "server-option", "show-forced-updates", "ipv4", "ipv6", "stdin", "filter"}

// gitSubcommands is built on first use, like the tables of tables.go.
var gitSubcommands = sync.OnceValue(func() map[string]gitSub {
	uploadPack := gitOpt{long: "upload-pack", kind: gitShell}
	return map[string]gitSub{
		"clone": {
			code: []gitOpt{{long: "upload-pack", short: 'u', kind: gitShell}, {long: "template", kind: gitHooks}, {long: "config", short: 'c', kind: gitPair}},
			other: []string{"local", "no-hardlinks", "shared", "dissociate", "quiet", "verbose", "progress", "server-option",
				"no-checkout", "bare", "mirror", "origin", "branch", "reference", "reference-if-able", "depth", "shallow-since",
				"shallow-exclude", "single-branch", "no-single-branch", "no-tags", "tags", "recurse-submodules", "shallow-submodules",
				"no-shallow-submodules", "remote-submodules", "jobs", "separate-git-dir", "sparse", "filter", "also-filter-submodules",
				"bundle-uri", "revision", "ref-format", "reject-shallow"},
		},
		"fetch": {code: []gitOpt{uploadPack}, other: fetchOptions},
		"pull": {code: []gitOpt{uploadPack}, other: append(append([]string(nil), fetchOptions...), "commit", "edit", "cleanup", "ff",
			"ff-only", "gpg-sign", "log", "signoff", "stat", "summary", "autostash", "squash", "strategy", "strategy-option",
			"verify-signatures", "rebase", "verify", "no-verify", "allow-unrelated-histories")},
		"ls-remote": {code: []gitOpt{{long: "upload-pack", short: 'u', kind: gitShell}},
			other: []string{"heads", "tags", "branches", "refs", "quiet", "exit-code", "get-url", "sort", "symref", "server-option"}},
		"push": {code: []gitOpt{{long: "receive-pack", kind: gitShell}, {long: "exec", kind: gitShell}},
			other: []string{"all", "branches", "prune", "mirror", "dry-run", "porcelain", "delete", "tags", "follow-tags", "signed",
				"no-signed", "atomic", "push-option", "repo", "force", "force-with-lease", "force-if-includes", "recurse-submodules",
				"verify", "no-verify", "set-upstream", "thin", "quiet", "verbose", "progress", "ipv4", "ipv6"}},
		"archive": {code: []gitOpt{{long: "exec", kind: gitShell}},
			other: []string{"format", "list", "verbose", "prefix", "add-file", "add-virtual-file", "output", "worktree-attributes", "mtime", "remote"}},
		"rebase": {code: []gitOpt{{long: "exec", short: 'x', kind: gitShell, direct: true}},
			other: []string{"onto", "keep-base", "continue", "abort", "quit", "apply", "merge", "rebase-merges", "strategy",
				"strategy-option", "interactive", "edit-todo", "show-current-patch", "skip", "empty", "keep-empty", "no-keep-empty",
				"reapply-cherry-picks", "allow-empty-message", "signoff", "committer-date-is-author-date", "ignore-date",
				"reset-author-date", "root", "autosquash", "autostash", "fork-point", "ignore-whitespace", "whitespace",
				"update-refs", "gpg-sign", "quiet", "verbose", "stat", "no-stat", "no-verify", "verify", "context", "reschedule-failed-exec"}},
		"difftool": {code: []gitOpt{{long: "extcmd", short: 'x', kind: gitShell, direct: true}},
			other: []string{"dir-diff", "no-prompt", "prompt", "tool", "tool-help", "symlinks", "gui", "trust-exit-code"}},
		"grep": {code: []gitOpt{{long: "open-files-in-pager", short: 'O', kind: gitShell, attached: true}},
			other: []string{"cached", "no-index", "untracked", "exclude-standard", "recurse-submodules", "text", "textconv",
				"ignore-case", "max-depth", "recursive", "word-regexp", "invert-match", "full-name", "extended-regexp",
				"basic-regexp", "perl-regexp", "fixed-strings", "line-number", "column", "files-with-matches", "name-only",
				"files-without-match", "null", "only-matching", "count", "color", "no-color", "break", "heading",
				"show-function", "context", "after-context", "before-context", "function-context", "max-count", "threads",
				"file", "and", "or", "not", "all-match", "quiet"}},
		"send-email": {code: []gitOpt{{long: "to-cmd", kind: gitShell}, {long: "cc-cmd", kind: gitShell}, {long: "header-cmd", kind: gitShell},
			{long: "sendmail-cmd", kind: gitShell}, {long: "smtp-server", kind: gitProgramPath}},
			other: []string{"to", "cc", "bcc", "from", "reply-to", "in-reply-to", "subject", "compose", "annotate", "identity",
				"smtp-server-port", "smtp-server-option", "smtp-encryption", "smtp-domain", "smtp-auth", "smtp-user", "smtp-pass",
				"smtp-ssl-cert-path", "smtp-debug", "batch-size", "relogin-delay", "no-to-cmd", "no-cc-cmd", "suppress-cc",
				"suppress-from", "chain-reply-to", "thread", "confirm", "dry-run", "format-patch", "quiet", "validate", "force",
				"dump-aliases", "translate-aliases", "envelope-sender", "8bit-encoding", "compose-encoding", "transfer-encoding",
				"xmailer", "no-xmailer"}},
		"daemon":   {code: []gitOpt{{long: "access-hook", kind: gitProgram}}},
		"instaweb": {code: []gitOpt{{long: "httpd", short: 'd', kind: gitShell}, {long: "browser", short: 'b', kind: gitProgramPath}}, other: []string{"local", "port", "module-path", "start", "stop", "restart"}},
		// filter-branch reads its options itself: no abbreviations.
		"filter-branch": {code: []gitOpt{{long: "tree-filter", kind: gitShell, direct: true}, {long: "index-filter", kind: gitShell, direct: true}, {long: "msg-filter", kind: gitShell, direct: true},
			{long: "env-filter", kind: gitShell, direct: true}, {long: "commit-filter", kind: gitShell, direct: true}, {long: "parent-filter", kind: gitShell, direct: true},
			{long: "tag-name-filter", kind: gitShell, direct: true}}, other: []string{"setup", "subdirectory-filter", "prune-empty", "original", "force", "state-branch"}},
		"submodule": {runs: "foreach", runsKind: codeShell},
		"bisect":    {runs: "run", runsKind: codeProgram},
	}
})

// resolveLong returns the option that --p names among a subcommand's long options: p itself,
// or the only option p is a prefix of.
func resolveLong(p string, sub gitSub) (string, bool) {
	match, n := "", 0
	consider := func(name string) bool {
		if name == p {
			match, n = name, 1
			return true
		}
		if strings.HasPrefix(name, p) {
			match = name
			n++
		}
		return false
	}
	for _, o := range sub.code {
		if consider(o.long) {
			return match, true
		}
	}
	for _, o := range sub.other {
		if consider(o) {
			return match, true
		}
	}
	return match, n == 1
}

// gitRunsCode finds the code a git command runs besides git itself: settings given with -c,
// --config-env or clone -c; settings git config stores; options that run commands; ext::
// URLs; and a repository, work tree or exec path outside the project.
func gitRunsCode(a *analyzer, v *view) string {
	cwd := a.cwd()
	args := v.args
	sub := subcommandAt("git", args)
	top := args[:sub]
	if sub == 0 && len(args) > 0 && !args[0].dynamic && strings.HasPrefix(args[0].lit, "-") {
		top, sub = args, len(args) // options only: git runs no subcommand
	}
	a.gitTopOptions(top, cwd)
	for _, x := range args {
		if url, ok := strings.CutPrefix(x.lit, "ext::"); ok {
			a.later = append(a.later, codeRef{code: arg{lit: extCommand(url), dynamic: x.dynamic, word: x.word}, kind: codeShell, carrier: "an ext:: URL"})
		}
	}
	if sub >= len(args) || args[sub].dynamic {
		return ""
	}
	name, rest := args[sub].lit, args[sub+1:]
	if name == "config" {
		a.gitConfigWrite(rest, cwd)
		return ""
	}
	if s, ok := gitSubcommands()[name]; ok {
		a.gitSubcommandCode(name, s, rest, cwd)
	}
	return ""
}

// addGit queues what a setting runs, and reports what it makes opaque, for the command being
// built.
func (a *analyzer) addGit(refs []codeRef, fs []call.Finding) {
	a.later = append(a.later, refs...)
	for _, f := range fs {
		a.pending = appendFinding(a.pending, f.ID, f.Evidence)
	}
}

// gitTopOptions judges git's own options, before the subcommand. git takes them whole: it
// accepts no abbreviation of these.
func (a *analyzer) gitTopOptions(top []arg, cwd dir) {
	for i := 0; i < len(top); i++ {
		x := top[i]
		if x.dynamic {
			continue
		}
		name, val, has := strings.Cut(x.lit, "=")
		next := func() (arg, bool) {
			if has {
				return arg{lit: val}, true
			}
			if i+1 < len(top) {
				i++
				return top[i], true
			}
			return arg{}, false
		}
		switch name {
		case "-c":
			if y, ok := next(); ok {
				a.addGit(a.gitPairSetting(y, false, cwd))
			}
		case "--config-env":
			// KEY=ENVVAR: the setting's value is the variable's.
			if y, ok := next(); ok && !y.dynamic {
				key, env, _ := strings.Cut(y.lit, "=")
				val := arg{lit: "$" + env, dynamic: true}
				if cur, ok := a.prefixValue(env); ok {
					val = cur
				} else if cur, _ := a.st.get(env); cur.known {
					val = arg{lit: cur.s}
				}
				a.addGit(a.gitSetting(key, val, false, cwd))
			}
		case "--exec-path":
			if has && !a.trustedDir(val, cwd) {
				a.report(findOpaque, "git --exec-path="+val+" runs git's own programs from a directory moat cannot read")
			}
		case "--git-dir", "--work-tree":
			if y, ok := next(); ok {
				a.gitRepo(name[2:], y, cwd)
			}
		case "-C", "--namespace", "--super-prefix", "--attr-source":
			next()
		}
	}
}

// gitSubcommandCode judges the options of a git subcommand that run code, and the command
// a subcommand such as submodule foreach runs.
func (a *analyzer) gitSubcommandCode(name string, s gitSub, rest []arg, cwd dir) {
	if s.runs != "" {
		a.gitRunsWords(name, s, rest)
		return
	}
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if x.dynamic {
			continue
		}
		if x.lit == "--" {
			break
		}
		o, val, ok := gitCodeOption(s, rest, &i)
		if !ok {
			continue
		}
		carrier := "git " + name + " --" + o.long
		switch o.kind {
		case gitPair:
			a.addGit(a.gitPairSetting(val, false, cwd))
		case gitHooks:
			switch {
			case val.dynamic:
				a.report(findOpaque, carrier+" is computed at run time")
			case !a.trustedDir(val.lit, cwd):
				a.report(findOpaque, carrier+" copies hooks from "+val.lit+", whose code moat cannot read")
			}
		case gitProgram:
			a.later = append(a.later, codeRef{code: val, kind: codeProgram, carrier: carrier})
		case gitProgramPath:
			if val.dynamic || strings.HasPrefix(val.lit, "/") {
				a.later = append(a.later, codeRef{code: val, kind: codeProgram, carrier: carrier})
			}
		default:
			// rebase --exec, filter-branch --tree-filter: a command to run, given as such.
			a.later = append(a.later, codeRef{code: val, kind: codeShell, carrier: carrier, direct: o.direct})
		}
	}
}

// gitCodeOption reads the option at rest[*i] when it is one of the subcommand's options that
// run code, in any spelling git accepts (--name=value, --name value, a unique prefix of the
// name, -xvalue, -x value), advancing *i past its value.
func gitCodeOption(s gitSub, rest []arg, i *int) (gitOpt, arg, bool) {
	x := rest[*i]
	var o gitOpt
	found := false
	take := func(attached string, hasAttached bool) (arg, bool) {
		switch {
		case hasAttached:
			return arg{lit: attached}, true
		case !o.attached && *i+1 < len(rest):
			*i++
			return rest[*i], true
		}
		return arg{}, false
	}
	switch {
	case strings.HasPrefix(x.lit, "--"):
		p, v, has := strings.Cut(x.lit[2:], "=")
		full, ok := resolveLong(p, s)
		if !ok {
			return o, arg{}, false
		}
		for _, c := range s.code {
			if c.long == full {
				o, found = c, true
			}
		}
		if !found {
			return o, arg{}, false
		}
		val, ok := take(v, has)
		return o, val, ok
	case len(x.lit) > 1 && x.lit[0] == '-':
		for _, c := range s.code {
			if c.short != 0 && x.lit[1] == c.short {
				o, found = c, true
			}
		}
		if !found {
			return o, arg{}, false
		}
		val, ok := take(x.lit[2:], len(x.lit) > 2)
		return o, val, ok
	}
	return o, arg{}, false
}

// gitRunsWords queues the command a subcommand runs from its words: submodule foreach CMD
// joins them into a shell line, bisect run CMD ARGS runs them as they are.
func (a *analyzer) gitRunsWords(name string, s gitSub, rest []arg) {
	for i, x := range rest {
		if x.dynamic || strings.HasPrefix(x.lit, "-") {
			continue
		}
		if x.lit != s.runs {
			return
		}
		cmd := rest[i+1:]
		for len(cmd) > 0 && !cmd[0].dynamic && strings.HasPrefix(cmd[0].lit, "-") {
			cmd = cmd[1:] // foreach --recursive, --quiet
		}
		if len(cmd) > 0 {
			line := joinArgs(cmd)
			if s.runsKind == codeProgram {
				line = quotedArgs(cmd)
			}
			a.later = append(a.later, codeRef{code: line, kind: codeShell, carrier: "git " + name + " " + s.runs, direct: true})
		}
		return
	}
}

// quotedArgs joins words into a command line that runs them as they are, each quoted.
func quotedArgs(args []arg) arg {
	var b strings.Builder
	dyn := false
	for k, x := range args {
		if k > 0 {
			b.WriteByte(' ')
		}
		if x.dynamic {
			b.WriteString(x.lit)
			dyn = true
			continue
		}
		b.WriteString(shellQuote(x.lit))
	}
	return arg{lit: b.String(), dynamic: dyn}
}

// gitRepo judges a repository or work tree git is pointed at (--git-dir, GIT_WORK_TREE):
// outside the project, its settings and hooks, which git runs, are not the project's and
// moat cannot read them.
func (a *analyzer) gitRepo(what string, x arg, cwd dir) {
	switch {
	case x.dynamic:
		a.report(findOpaque, "git's "+what+" is computed at run time: "+shorten(x.lit))
	case !a.inProject(a.tildePath(x.lit), cwd):
		a.report(findOpaque, "git's "+what+" is "+x.lit+", outside the project: its settings and hooks, which git runs, are unknown")
	}
}

// extCommand is the command line an ext:: URL runs: its words are separated by spaces, "% "
// is a space inside a word and "%%" a percent sign; %s, %S and %G stand for what git passes.
func extCommand(url string) string {
	var words []string
	var b strings.Builder
	for i := 0; i < len(url); i++ {
		c := url[i]
		switch {
		case c == ' ':
			if b.Len() > 0 {
				words = append(words, b.String())
				b.Reset()
			}
		case c == '%' && i+1 < len(url):
			i++
			switch url[i] {
			case ' ':
				b.WriteByte(' ')
			case '%':
				b.WriteByte('%')
			case 's':
				b.WriteString("git-upload-pack")
			case 'S':
				b.WriteString("upload-pack")
			default:
				b.WriteString("repository")
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		words = append(words, b.String())
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	return strings.Join(words, " ")
}

// gitConfigOptions are git config's long options, for resolving abbreviations; those that
// take a value, and those that only read or remove settings.
var (
	gitConfigValued  = []string{"file", "blob", "type", "default", "comment", "value", "url"}
	gitConfigReaders = []string{"get", "get-all", "get-regexp", "get-urlmatch", "get-color", "get-colorbool", "list",
		"unset", "unset-all", "rename-section", "remove-section", "edit"}
	gitConfigOther = []string{"global", "system", "local", "worktree", "add", "replace-all", "fixed-value", "bool", "int",
		"bool-or-int", "bool-or-str", "path", "expiry-date", "no-type", "null", "name-only", "includes", "no-includes",
		"show-origin", "show-scope", "all", "regexp", "no-value", "append"}
)

// gitConfigWrite judges `git config [OPTIONS] KEY VALUE`, `git config set KEY VALUE`, --add
// and --replace-all: the value stored is code that later git commands run.
func (a *analyzer) gitConfigWrite(rest []arg, cwd dir) {
	all := gitSub{other: append(append(append([]string(nil), gitConfigValued...), gitConfigReaders...), gitConfigOther...)}
	var ops []arg
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		s := x.lit
		switch {
		case x.dynamic || len(s) < 2 || s[0] != '-':
			ops = append(ops, x)
		case s == "--":
			ops = append(ops, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(s, "--"):
			p, _, has := strings.Cut(s[2:], "=")
			full, ok := resolveLong(p, all)
			if !ok {
				continue
			}
			if slices.Contains(gitConfigReaders, full) {
				return
			}
			if !has && slices.Contains(gitConfigValued, full) {
				i++
			}
		default:
			switch s[1] {
			case 'l', 'e':
				return
			case 'f', 't':
				if len(s) == 2 {
					i++
				}
			}
		}
	}
	if len(ops) > 0 && !ops[0].dynamic {
		switch ops[0].lit {
		case "set":
			ops = ops[1:]
		case "get", "list", "unset", "rename-section", "remove-section", "edit", "get-color", "get-colorbool":
			return
		}
	}
	if len(ops) < 2 {
		return
	}
	if ops[0].dynamic {
		a.report(findDynamicCommand, "git config of a setting computed at run time: "+shorten(ops[0].lit))
		return
	}
	a.addGit(a.gitSetting(ops[0].lit, ops[1], true, cwd))
}

// gitConfigFile reports whether p is one of git's configuration files: a repository's, a
// worktree's or a submodule's config, or the user's or the system's.
func gitConfigFile(p, home string) bool {
	switch {
	case strings.HasSuffix(p, "/.git/config"), strings.HasSuffix(p, "/.git/config.worktree"), p == "/etc/gitconfig":
		return true
	case strings.Contains(p, "/.git/worktrees/") && strings.HasSuffix(p, "/config.worktree"),
		strings.Contains(p, "/.git/modules/") && strings.HasSuffix(p, "/config"):
		return true
	case home != "" && (p == home+"/.gitconfig" || p == home+"/.config/git/config"):
		return true
	}
	return false
}

// gitConfigEntry is one setting read from a configuration file's text.
type gitConfigEntry struct{ key, value string }

// parseGitConfig reads the settings of a git configuration file as git does: [section] and
// [section "subsection"] headers (a setting may follow on the header's line), name = value
// lines, a name alone meaning true, double quotes and backslash escapes in values, # and ;
// comments, and lines continued by a final backslash.
func parseGitConfig(text string) []gitConfigEntry {
	var out []gitConfigEntry
	section := ""
	text = strings.ReplaceAll(text, "\\\n", "")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			header := strings.TrimSpace(line[1:end])
			name, sub, quoted := strings.Cut(header, " ")
			if quoted {
				sub = strings.Trim(strings.TrimSpace(sub), `"`)
				sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
				section = strings.ToLower(name) + "." + sub
			} else {
				section = strings.ToLower(header)
			}
			line = strings.TrimSpace(line[end+1:])
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section == "" {
			continue
		}
		name, val, has := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		v := ""
		if has {
			v = configValue(val)
		}
		out = append(out, gitConfigEntry{section + "." + strings.ToLower(name), v})
	}
	return out
}

// configValue decodes a setting's value: quotes removed, escapes decoded, a comment outside
// quotes dropped, and the blanks around an unquoted value trimmed.
func configValue(s string) string {
	var b strings.Builder
	quoted := false
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// firstField is the first white-space-separated word of s, or "".
func firstField(s string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	f, _, _ = strings.Cut(f, "\t")
	return f
}
