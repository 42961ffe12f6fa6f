package shell

import (
	"encoding/base64"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/planted"
	"github.com/moatdev/moat/internal/shell/oneliner"
	"mvdan.cc/sh/v3/syntax"
)

// This file holds what moat knows about environment variables that make a program run code:
// a command line it runs (GIT_SSH_COMMAND, PAGER), a file it sources (BASH_ENV), a library
// it loads (LD_PRELOAD), directories it loads modules from (PYTHONPATH), options that
// preload code (NODE_OPTIONS=--require), code in its own language (PERL5DB). They are set
// for one program (VAR=… cmd, env VAR=… cmd) or for the rest of the line and beyond
// (export, declare -x, a plain assignment to a variable the environment may already export).
// A literal command line is analysed as the code it is, wherever it is set; what cannot be
// read (a library, a script, a directory outside the project, a computed value) is opaque
// when a program that reads the variable may run.

// envKind is what a variable's value is to the programs that read it.
type envKind uint8

const (
	envShell         envKind = iota + 1 // a shell command line the reader runs (GIT_SSH_COMMAND, PAGER)
	envPipe                             // a command line after | or ||, as less's LESSOPEN has it
	envProgram                          // a program the reader runs with arguments of its own (GIT_ASKPASS)
	envPrompt                           // a prompt string, whose substitutions run when it is shown (PS1, PS4)
	envFunction                         // a bash function exported as `() { body }` (BASH_FUNC_name%%)
	envScript                           // a file of shell code the reader sources (BASH_ENV, ENV)
	envLibrary                          // shared libraries loaded into the reader (LD_PRELOAD)
	envSearchPath                       // directories the reader loads modules or libraries from (PYTHONPATH)
	envDir                              // a directory the reader runs code or reads settings from (GIT_EXEC_PATH, ZDOTDIR)
	envOptions                          // the reader's own options, some of which load code (NODE_OPTIONS)
	envCode                             // code in the reader's language (PERL5DB, LUA_INIT)
	envGitConfig                        // git settings (GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_n)
	envGitConfigFile                    // a git configuration file (GIT_CONFIG_GLOBAL)
	envRepo                             // a repository or work tree git works on (GIT_DIR)
)

// envVar describes one variable that carries code.
type envVar struct {
	kind envKind
	// readers are the programs that read the variable, by canonical name; nil means every
	// program (the dynamic linker reads LD_PRELOAD for all of them).
	readers []string
	// inherited means the variable reaches the programs that the programs run, so that any
	// program that may start others (make, npm, a script) may reach a reader.
	inherited bool
	// interactive means only an interactive invocation reads it (-i): ENV, PROMPT_COMMAND.
	interactive bool
	lang        string // for envOptions and envCode: "node", "perl", "ruby", "jvm", "go", "lua"
	// off are the values that tell the readers to run nothing (BROWSER=none).
	off []string
}

var (
	gitReaders    = []string{"git"}
	shellReaders  = []string{"sh", "bash", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "zsh"}
	editorReaders = []string{"git", "crontab", "visudo", "sudoedit", "kubectl", "systemctl", "fc", "less", "vipe", "gh", "hg",
		"svn", "mutt", "neomutt", "tig", "lazygit", "ranger", "nnn", "lf", "mc", "virsh", "edquota", "vipw", "vigr"}
	pagerReaders = []string{"git", "man", "psql", "mysql", "mariadb", "systemctl", "journalctl", "loginctl", "gh", "tig", "hg",
		"aws", "bat", "delta", "pydoc", "pydoc3", "ri", "perldoc"}
	buildReaders = []string{"make", "gmake", "cmake", "ninja", "meson", "cargo", "go", "pip", "python", "npm", "yarn", "pnpm",
		"node-gyp", "bazel", "scons", "configure", "gcc", "cc", "clang"}
)

// envVars maps a variable to what it carries. Names that follow a pattern
// (BASH_FUNC_name%%, GIT_CONFIG_KEY_n) are found by lookupEnvVar.
var envVars = sync.OnceValue(func() map[string]envVar {
	any := envVar{inherited: true}
	library := any
	library.kind = envLibrary
	libPath := any
	libPath.kind = envSearchPath
	git := func(k envKind) envVar { return envVar{kind: k, readers: gitReaders, inherited: true} }
	lang := func(k envKind, readers []string, l string) envVar {
		return envVar{kind: k, readers: readers, inherited: true, lang: l}
	}
	python := []string{"python"}
	return map[string]envVar{
		// Shells.
		"BASH_ENV":       {kind: envScript, readers: []string{"bash"}, inherited: true},
		"ENV":            {kind: envScript, readers: shellReaders, interactive: true},
		"ZDOTDIR":        {kind: envDir, readers: []string{"zsh"}, inherited: true},
		"PROMPT_COMMAND": {kind: envShell, readers: []string{"bash"}, interactive: true},
		"PS0":            {kind: envPrompt, readers: []string{"bash"}, interactive: true},
		"PS1":            {kind: envPrompt, readers: shellReaders, interactive: true},
		"PS2":            {kind: envPrompt, readers: shellReaders, interactive: true},
		"PS4":            {kind: envPrompt, readers: shellReaders, inherited: true}, // shown before each command traced by set -x

		// The dynamic linker, in every dynamically linked program.
		"LD_PRELOAD":            library,
		"LD_AUDIT":              library,
		"DYLD_INSERT_LIBRARIES": library,
		// The directories the shell and every program look programs up in: one first on
		// it that moat does not watch can shadow any program (PATH=/tmp/x:$PATH make).
		"PATH":                       {kind: envSearchPath, inherited: true},
		"LD_LIBRARY_PATH":            libPath,
		"DYLD_LIBRARY_PATH":          libPath,
		"DYLD_FALLBACK_LIBRARY_PATH": libPath,
		"DYLD_FRAMEWORK_PATH":        libPath,
		"GCONV_PATH":                 libPath,

		// Interpreters.
		"PYTHONSTARTUP":             {kind: envScript, readers: python, interactive: true},
		"PYTHONPATH":                lang(envSearchPath, python, ""),
		"PYTHONHOME":                lang(envSearchPath, python, ""),
		"PYTHONUSERBASE":            lang(envSearchPath, python, ""),
		"NODE_OPTIONS":              lang(envOptions, []string{"node"}, "node"),
		"NODE_PATH":                 lang(envSearchPath, []string{"node"}, ""),
		"NODE_REPL_EXTERNAL_MODULE": lang(envDir, []string{"node"}, ""),
		"npm_config_node_options":   lang(envOptions, []string{"npm", "pnpm", "yarn"}, "node"),
		"NPM_CONFIG_NODE_OPTIONS":   lang(envOptions, []string{"npm", "pnpm", "yarn"}, "node"),
		"PERL5OPT":                  lang(envOptions, []string{"perl"}, "perl"),
		"PERL5LIB":                  lang(envSearchPath, []string{"perl"}, ""),
		"PERLLIB":                   lang(envSearchPath, []string{"perl"}, ""),
		"PERL5DB":                   lang(envCode, []string{"perl"}, "perl"),
		"RUBYOPT":                   lang(envOptions, []string{"ruby"}, "ruby"),
		"RUBYLIB":                   lang(envSearchPath, []string{"ruby"}, ""),
		"IRBRC":                     {kind: envScript, readers: []string{"irb"}},
		"LUA_INIT":                  lang(envCode, []string{"lua"}, "lua"),
		"LUA_PATH":                  lang(envSearchPath, []string{"lua"}, ""),
		"LUA_CPATH":                 lang(envSearchPath, []string{"lua"}, ""),
		"PHPRC":                     lang(envDir, []string{"php"}, ""),
		"PHP_INI_SCAN_DIR":          lang(envSearchPath, []string{"php"}, ""),
		"R_PROFILE_USER":            {kind: envScript, readers: []string{"R", "Rscript"}, inherited: true},
		"JAVA_TOOL_OPTIONS":         lang(envOptions, []string{"java"}, "jvm"),
		"_JAVA_OPTIONS":             lang(envOptions, []string{"java"}, "jvm"),
		"JDK_JAVA_OPTIONS":          lang(envOptions, []string{"java"}, "jvm"),
		"MAVEN_OPTS":                lang(envOptions, []string{"mvn"}, "jvm"),
		"GRADLE_OPTS":               lang(envOptions, []string{"gradle"}, "jvm"),
		"GOFLAGS":                   lang(envOptions, []string{"go"}, "go"),
		"TAR_OPTIONS":               lang(envOptions, []string{"tar"}, "tar"),
		"BUNDLE_GEMFILE":            lang(envDir, []string{"bundle"}, ""),
		// .NET loads startup hooks and profilers into every process it starts.
		"DOTNET_STARTUP_HOOKS":     {kind: envLibrary, readers: []string{"dotnet"}, inherited: true},
		"CORECLR_PROFILER_PATH":    {kind: envLibrary, readers: []string{"dotnet"}, inherited: true},
		"CORECLR_PROFILER_PATH_64": {kind: envLibrary, readers: []string{"dotnet"}, inherited: true},
		"CORECLR_PROFILER_PATH_32": {kind: envLibrary, readers: []string{"dotnet"}, inherited: true},

		// Programs that run an editor, a pager, a browser or a compiler named by a variable.
		"EDITOR":                    {kind: envShell, readers: editorReaders, inherited: true},
		"VISUAL":                    {kind: envShell, readers: editorReaders, inherited: true},
		"SUDO_EDITOR":               {kind: envShell, readers: []string{"sudo", "sudoedit"}},
		"KUBE_EDITOR":               {kind: envShell, readers: []string{"kubectl"}, inherited: true},
		"KUBECTL_EXTERNAL_DIFF":     {kind: envShell, readers: []string{"kubectl"}, inherited: true},
		"SVN_EDITOR":                {kind: envShell, readers: []string{"svn"}, inherited: true},
		"HGEDITOR":                  {kind: envShell, readers: []string{"hg"}, inherited: true},
		"FCEDIT":                    {kind: envShell, readers: shellReaders},
		"RSYNC_RSH":                 {kind: envShell, readers: []string{"rsync"}, inherited: true},
		"RSYNC_CONNECT_PROG":        {kind: envShell, readers: []string{"rsync"}, inherited: true},
		"PAGER":                     {kind: envShell, readers: pagerReaders, inherited: true},
		"MANPAGER":                  {kind: envShell, readers: []string{"man"}, inherited: true},
		"SYSTEMD_PAGER":             {kind: envShell, readers: []string{"systemctl", "journalctl", "loginctl", "timedatectl", "hostnamectl"}, inherited: true},
		"PSQL_PAGER":                {kind: envShell, readers: []string{"psql"}, inherited: true},
		"GH_PAGER":                  {kind: envShell, readers: []string{"gh"}, inherited: true},
		"AWS_PAGER":                 {kind: envShell, readers: []string{"aws"}, inherited: true},
		"LESSOPEN":                  {kind: envPipe, readers: []string{"less", "man"}, inherited: true},
		"LESSCLOSE":                 {kind: envPipe, readers: []string{"less", "man"}, inherited: true},
		"BROWSER":                   {kind: envShell, readers: []string{"gh", "python", "xdg-open", "sensible-browser", "jupyter", "npm"}, inherited: true, off: []string{"none"}},
		"SUDO_ASKPASS":              {kind: envProgram, readers: []string{"sudo"}},
		"SSH_ASKPASS":               {kind: envProgram, readers: []string{"ssh", "scp", "sftp", "ssh-add", "git"}, inherited: true},
		"CC":                        {kind: envShell, readers: buildReaders, inherited: true},
		"CXX":                       {kind: envShell, readers: buildReaders, inherited: true},
		"CPP":                       {kind: envShell, readers: buildReaders, inherited: true},
		"LD":                        {kind: envShell, readers: buildReaders, inherited: true},
		"AR":                        {kind: envShell, readers: buildReaders, inherited: true},
		"RUSTC_WRAPPER":             {kind: envProgram, readers: []string{"cargo"}, inherited: true},
		"RUSTC":                     {kind: envProgram, readers: []string{"cargo"}, inherited: true},
		"XDG_CONFIG_HOME":           {kind: envDir, readers: gitReaders, inherited: true}, // git reads $XDG_CONFIG_HOME/git/config
		"RUSTC_WORKSPACE_WRAPPER":   {kind: envProgram, readers: []string{"cargo"}, inherited: true},
		"CARGO_BUILD_RUSTC_WRAPPER": {kind: envProgram, readers: []string{"cargo"}, inherited: true},
		"npm_config_script_shell":   {kind: envProgram, readers: []string{"npm", "pnpm", "yarn"}, inherited: true},
		"NPM_CONFIG_SCRIPT_SHELL":   {kind: envProgram, readers: []string{"npm", "pnpm", "yarn"}, inherited: true},

		// git.
		"GIT_SSH_COMMAND":       git(envShell),
		"GIT_SSH":               git(envProgram),
		"GIT_EXTERNAL_DIFF":     git(envShell),
		"GIT_EDITOR":            git(envShell),
		"GIT_SEQUENCE_EDITOR":   git(envShell),
		"GIT_PAGER":             git(envShell),
		"GIT_ASKPASS":           git(envProgram),
		"GIT_PROXY_COMMAND":     git(envProgram),
		"GIT_CONFIG_PARAMETERS": git(envGitConfig),
		"GIT_CONFIG_GLOBAL":     git(envGitConfigFile),
		"GIT_CONFIG_SYSTEM":     git(envGitConfigFile),
		"GIT_CONFIG":            git(envGitConfigFile),
		"GIT_DIR":               git(envRepo),
		"GIT_WORK_TREE":         git(envRepo),
		"GIT_COMMON_DIR":        git(envRepo),
		"GIT_EXEC_PATH":         git(envDir),
		"GIT_TEMPLATE_DIR":      git(envDir),
	}
})

// interactiveVars are the variables of envVars only an interactive program reads.
var interactiveVars = sync.OnceValue(func() []string {
	var names []string
	for name, v := range envVars() {
		if v.interactive {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
})

// lookupEnvVar returns what the variable name carries, if anything.
func lookupEnvVar(name string) (envVar, bool) {
	if v, ok := envVars()[name]; ok {
		return v, true
	}
	switch {
	case strings.HasPrefix(name, "BASH_FUNC_") && strings.HasSuffix(name, "%%"):
		// bash imports BASH_FUNC_f%%='() { body }' as the function f.
		return envVar{kind: envFunction, readers: []string{"bash"}, inherited: true}, true
	case strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		return envVar{kind: envGitConfig, readers: gitReaders, inherited: true}, true
	case strings.HasPrefix(name, "CARGO_TARGET_") && (strings.HasSuffix(name, "_RUNNER") || strings.HasSuffix(name, "_LINKER")):
		// cargo runs the binaries it builds through the runner, and links with the linker.
		return envVar{kind: envProgram, readers: []string{"cargo"}, inherited: true}, true
	case strings.HasPrefix(name, "LUA_INIT_5_"):
		return envVar{kind: envCode, readers: []string{"lua"}, inherited: true, lang: "lua"}, true
	}
	return envVar{}, false
}

// envAssign is a variable a command puts in the environment of the programs it runs.
type envAssign struct {
	name string
	val  arg // dynamic, with its source text and word, when computed at run time
}

// prefixAssigns returns the environment assignments of a simple command that carry code
// (envVars): NAME=value words before it, and those a wrapper takes before the program (env
// NAME=value, sudo NAME=value), which are args[:prog].
func (a *analyzer) prefixAssigns(assigns []*syntax.Assign, args []arg, prog int) []envAssign {
	return a.commandEnv(assigns, args, prog, func(name string) bool {
		_, ok := lookupEnvVar(name)
		return ok
	})
}

// commandEnv returns the environment assignments of a simple command, as prefixAssigns
// does, of the variables keep selects.
func (a *analyzer) commandEnv(assigns []*syntax.Assign, args []arg, prog int, keep func(string) bool) []envAssign {
	var out []envAssign
	for _, x := range assigns {
		// A naked name (export NAME) passes on a value set before, judged where it was set.
		if x.Name == nil || x.Array != nil || x.Index != nil || x.Naked {
			continue
		}
		if !keep(x.Name.Value) {
			continue
		}
		out = append(out, envAssign{x.Name.Value, a.assignArg(x.Value)})
	}
	for _, x := range args[:prog] {
		lit := x.lit
		name := varName(lit)
		if strings.HasPrefix(lit, "BASH_FUNC_") {
			// env 'BASH_FUNC_ls%%=() { …; }': a name the shell could not assign, env can.
			if i := strings.Index(lit, "%%="); i > 0 {
				name = lit[:i+2]
			}
		}
		if name == "" || len(lit) == len(name) || lit[len(name)] != '=' {
			continue
		}
		if !keep(name) {
			continue
		}
		out = append(out, envAssign{name, arg{lit: lit[len(name)+1:], dynamic: x.dynamic, word: x.word}})
	}
	return out
}

// prefixValue returns the value the command being built gives name in its own environment
// (NAME=value cmd).
func (a *analyzer) prefixValue(name string) (arg, bool) {
	for i := len(a.curAssigns) - 1; i >= 0; i-- {
		x := a.curAssigns[i]
		if x.Name != nil && x.Name.Value == name && x.Index == nil && x.Array == nil {
			return a.assignArg(x.Value), true
		}
	}
	return arg{}, false
}

// assignArg is the value of an assignment as an argument: its text, or when it is only known
// at run time its source text and word.
func (a *analyzer) assignArg(w *syntax.Word) arg {
	v, ok := a.assignValue(w)
	if ok {
		return arg{lit: v, word: w}
	}
	return arg{lit: a.source(w), dynamic: true, word: w}
}

// envReader says whether the program a command runs may read a variable: prog is its
// canonical name, "" when dynamic, and opts its options.
type envReader struct {
	prog    string
	opts    []option
	persist bool // the assignment outlives one program: export, declare -x, NAME=value alone
}

func (r envReader) reads(v envVar) bool {
	if r.persist {
		// Later commands of the line, or of the shell session an agent keeps, may run a
		// reader; the variables only an interactive program reads are judged when one runs.
		return !v.interactive
	}
	if r.prog == "" {
		return true
	}
	if v.interactive {
		interactive := false
		for _, o := range r.opts {
			interactive = interactive || o.name == "i"
		}
		if !interactive {
			return false
		}
	}
	if v.readers == nil || slices.Contains(v.readers, r.prog) {
		return true
	}
	return v.inherited && !leafProgram(r.prog)
}

// leafProgram reports whether a program is known to start no other program: its effects are
// catalogued, and it is neither a shell, an interpreter, a wrapper nor an evaluator.
func leafProgram(name string) bool {
	if _, ok := programEffects()[name]; !ok {
		return false
	}
	if _, ok := wrappers()[name]; ok || shells()[name] || evaluators[name] || name == "find" {
		return false
	}
	_, interp := oneliner.Lookup(name)
	return !interp
}

// envEffects judges the code-carrying variables among assigns, which a command gives the
// program r describes: code it can read is queued in m.laterCode, to be analysed once the
// command is emitted; what it cannot read makes cmd opaque.
func (a *analyzer) envEffects(cmd *call.Command, m *cmdMeta, assigns []envAssign, r envReader, cwd dir) {
	var gitKeys, gitValues map[string]arg
	for _, as := range assigns {
		v, ok := lookupEnvVar(as.name)
		if !ok {
			continue
		}
		x := as.val
		name := as.name
		reads := r.reads(v)
		switch v.kind {
		case envShell, envPipe, envProgram, envPrompt, envFunction, envCode:
			// Code that can be read is analysed wherever it is set: harmless when no program
			// reads it, and judged as it would run when one does (or will, later).
			if x.dynamic && !reads {
				continue
			}
			ref := codeRef{code: x, kind: codeShell, carrier: name}
			switch v.kind {
			case envPipe:
				ref.code.lit = strings.TrimLeft(x.lit, "|-")
			case envProgram:
				ref.kind = codeProgram
			case envPrompt:
				ref.kind = codeText
			case envFunction:
				if !x.dynamic {
					body, ok := strings.CutPrefix(strings.TrimSpace(x.lit), "()")
					if !ok {
						continue // bash imports only values that start with ()
					}
					ref.code.lit = "moat_exported_function()" + body
				}
			case envCode:
				if file, ok := strings.CutPrefix(x.lit, "@"); ok && v.lang == "lua" && !x.dynamic {
					if reads && !a.trustedDir(file, cwd) {
						opaqueCmd(cmd, name+" makes lua run "+file+", whose code moat cannot read")
					}
					continue
				}
				if !x.dynamic {
					ref.kind, ref.lang = codeInterp, langOf(v.lang)
				}
			}
			if strings.TrimSpace(ref.code.lit) == "" || !x.dynamic && slices.Contains(v.off, x.lit) {
				continue
			}
			m.laterCode = append(m.laterCode, ref)
		case envScript:
			if !reads {
				continue
			}
			switch {
			case x.dynamic && procSubst(x.word) != nil:
				// BASH_ENV=<(curl …): the file is what the substitution prints.
				m.codeSubsts = append(m.codeSubsts, procSubst(x.word))
				m.execStdin, m.codeFromSubst = execShell, true
			case x.dynamic:
				opaqueCmd(cmd, name+" names a file computed at run time: "+shorten(x.lit))
			case x.lit == "" || x.lit == "/dev/null":
			default:
				if p, ok, _ := a.resolve(a.tildePath(x.lit), cwd); ok {
					_, interp := oneliner.Lookup(readerName(v))
					m.runs = append(m.runs, runFile{path: p, carrier: name, shell: !interp, opaque: true})
				}
			}
		case envLibrary:
			if reads {
				a.libraries(cmd, name, x)
			}
		case envSearchPath:
			if reads {
				a.searchPath(cmd, name, x, cwd)
			}
		case envDir:
			if !reads {
				continue
			}
			if x.dynamic {
				opaqueCmd(cmd, name+" is computed at run time: "+shorten(x.lit))
			} else if !a.trustedDir(a.tildePath(x.lit), cwd) {
				opaqueCmd(cmd, name+"="+x.lit+" makes "+readerName(v)+" run code or read settings from a directory moat cannot read")
			}
		case envOptions:
			if reads {
				a.optionsVar(cmd, m, name, v.lang, x, cwd)
			}
		case envGitConfig:
			if !reads {
				continue
			}
			switch {
			case name == "GIT_CONFIG_PARAMETERS":
				if x.dynamic {
					opaqueCmd(cmd, name+" holds git settings computed at run time")
					continue
				}
				for _, kv := range splitGitParameters(x.lit) {
					refs, fs := a.gitPairSetting(arg{lit: kv}, false, cwd)
					m.laterCode = append(m.laterCode, refs...)
					cmd.Findings = appendFindings(cmd.Findings, fs)
				}
			case strings.HasPrefix(name, "GIT_CONFIG_KEY_"):
				if gitKeys == nil {
					gitKeys = make(map[string]arg)
				}
				gitKeys[name[len("GIT_CONFIG_KEY_"):]] = x
			default:
				if gitValues == nil {
					gitValues = make(map[string]arg)
				}
				gitValues[name[len("GIT_CONFIG_VALUE_"):]] = x
			}
		case envGitConfigFile:
			if !reads || x.lit == "" || x.lit == "/dev/null" {
				continue
			}
			opaqueCmd(cmd, name+"="+x.lit+" makes git read settings moat cannot read, which can name commands git runs")
		case envRepo:
			if !reads {
				continue
			}
			if x.dynamic {
				opaqueCmd(cmd, name+" is computed at run time: "+shorten(x.lit))
			} else if !a.inProject(a.tildePath(x.lit), cwd) {
				opaqueCmd(cmd, name+"="+x.lit+" points git outside the project, at settings and hooks moat cannot read")
			}
		}
	}
	// GIT_CONFIG_COUNT=n with GIT_CONFIG_KEY_i and GIT_CONFIG_VALUE_i: the pairs are settings,
	// with the half not set here taken from what the line set before.
	for n := range gitValues {
		if _, ok := gitKeys[n]; ok {
			continue
		}
		if cur, _ := a.st.get("GIT_CONFIG_KEY_" + n); cur.known {
			if gitKeys == nil {
				gitKeys = make(map[string]arg)
			}
			gitKeys[n] = arg{lit: cur.s}
		}
	}
	for n, key := range gitKeys {
		val, ok := gitValues[n]
		if !ok {
			cur, _ := a.st.get("GIT_CONFIG_VALUE_" + n)
			if !cur.known {
				continue
			}
			val = arg{lit: cur.s}
		}
		if key.dynamic {
			cmd.Findings = appendFinding(cmd.Findings, findDynamicCommand, "a git setting computed at run time: GIT_CONFIG_KEY_"+n)
			cmd.Opaque = true
			continue
		}
		refs, fs := a.gitSetting(key.lit, val, false, cwd)
		m.laterCode = append(m.laterCode, refs...)
		cmd.Findings = appendFindings(cmd.Findings, fs)
	}
}

func appendFindings(dst, fs []call.Finding) []call.Finding {
	for _, f := range fs {
		dst = appendFinding(dst, f.ID, f.Evidence)
	}
	return dst
}

func readerName(v envVar) string {
	if len(v.readers) == 0 {
		return "every program"
	}
	return v.readers[0]
}

func langOf(l string) oneliner.Lang {
	switch l {
	case "perl":
		return oneliner.Perl
	case "ruby":
		return oneliner.Ruby
	case "node":
		return oneliner.Node
	case "lua":
		return oneliner.Lua
	}
	return oneliner.Python
}

// tildePath expands a leading ~ of a value with the home directory, when it is known: the
// shell expands it in assignments, and the analysis keeps the tilde when it does not know
// the home directory.
func (a *analyzer) tildePath(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	if home, _ := a.st.get("HOME"); home.known {
		return home.s + p[1:]
	}
	return p
}

// libraries judges LD_PRELOAD and its kind: libraries named by a bare name are looked up in
// the system's library directories; one named by a path outside them is code moat cannot
// read, loaded into the program.
func (a *analyzer) libraries(cmd *call.Command, name string, x arg) {
	if x.dynamic {
		opaqueCmd(cmd, name+" loads libraries computed at run time: "+shorten(x.lit))
		return
	}
	for _, lib := range strings.FieldsFunc(x.lit, func(r rune) bool { return r == ':' || r == ' ' }) {
		if strings.Contains(lib, "/") && !systemPath(lib) {
			opaqueCmd(cmd, name+" loads "+lib+" into the program, code moat cannot read")
			return
		}
	}
}

// searchPath judges a list of directories a program loads modules or libraries from: the
// project's and the system's are code the agent may run anyway; any other one (a temporary
// directory, the home directory, a computed one) can hold a module that shadows the one the
// program means to load.
func (a *analyzer) searchPath(cmd *call.Command, name string, x arg, cwd dir) {
	entries := strings.Split(x.lit, ":")
	if x.dynamic {
		entries = a.sourceEntries(x, name, cwd)
		if entries == nil {
			opaqueCmd(cmd, name+" is computed at run time: "+shorten(x.lit))
			return
		}
	}
	for _, e := range entries {
		if e == "" || e == "." {
			continue
		}
		if !a.trustedDir(a.tildePath(e), cwd) && !(name == "PATH" && a.watchedBinDir(e)) {
			opaqueCmd(cmd, name+" loads code from "+e+", outside the project and the system")
			return
		}
	}
}

// watchedBinDir reports whether a PATH entry is one of the directories where every
// program written is judged as a possible shadow (planted code): ~/.local/bin, ~/go/bin…
func (a *analyzer) watchedBinDir(e string) bool {
	home, _ := a.st.get("HOME")
	e = strings.TrimRight(e, "/")
	for _, d := range planted.PathDirs() {
		if rest, ok := strings.CutPrefix(d, "~/"); ok {
			if home.known && e == home.s+"/"+rest || e == d {
				return true
			}
			continue
		}
		if e == d {
			return true
		}
	}
	return false
}

// sourceEntries reads the entries of a computed search path from its source text, for the
// common shapes: the variable's own value kept ($PYTHONPATH), the working directory ($PWD,
// $(pwd)) and the home directory ($HOME). It returns nil when another part is computed.
func (a *analyzer) sourceEntries(x arg, self string, cwd dir) []string {
	src := x.lit
	if strings.ContainsAny(src, "'\\") {
		return nil
	}
	src = strings.ReplaceAll(src, `"`, "")
	here := "."
	if cwd.known {
		here = cwd.path
	}
	home := "~"
	if h, _ := a.st.get("HOME"); h.known {
		home = h.s
	}
	var out []string
	for _, e := range strings.Split(src, ":") {
		switch {
		case e == "$"+self || e == "${"+self+"}" || strings.HasPrefix(e, "${"+self+":"):
			continue // the value it had
		case strings.HasSuffix(e, "}") && strings.Contains(e, "${"+self+":+"):
			continue // ${PYTHONPATH:+:$PYTHONPATH}, split at its colon
		}
		for _, p := range []string{"$PWD", "${PWD}", "$(pwd)", "`pwd`"} {
			if rest, ok := strings.CutPrefix(e, p); ok {
				e = here + rest
			}
		}
		for _, p := range []string{"$HOME", "${HOME}"} {
			if rest, ok := strings.CutPrefix(e, p); ok {
				e = home + rest
			}
		}
		if strings.ContainsAny(e, "$`") {
			return nil
		}
		out = append(out, e)
	}
	return out
}

// optionsVar judges a variable holding a program's options (NODE_OPTIONS, PERL5OPT,
// RUBYOPT, JAVA_TOOL_OPTIONS, GOFLAGS): those that load code name a module, a file or a
// command, or hold the code itself.
func (a *analyzer) optionsVar(cmd *call.Command, m *cmdMeta, name, lang string, x arg, cwd dir) {
	if x.dynamic {
		// NODE_OPTIONS="--max-old-space-size=$MEM" computes a value no option that loads
		// code takes; a computed word that may be any option, or an option that loads code
		// with a computed value, is opaque.
		for _, w := range strings.Fields(strings.NewReplacer(`"`, "", "'", "").Replace(x.lit)) {
			self := w == "$"+name || w == "${"+name+"}" || strings.HasPrefix(w, "${"+name+":")
			if !self && (strings.HasPrefix(w, "$") || strings.HasPrefix(w, "`") || loadsCode(lang, w) && strings.ContainsAny(w, "$`")) {
				opaqueCmd(cmd, name+" is computed at run time: "+shorten(x.lit))
				return
			}
		}
		x = arg{lit: x.lit}
	}
	words := splitOptions(x.lit, lang == "jvm" || lang == "tar") // node reads only double quotes
	if lang == "perl" || lang == "go" {
		words = strings.Fields(x.lit) // perl and go split at blanks, quotes included
	}
	a.optionWords(cmd, m, name, lang, words, cwd)
}

// optionWords judges a program's options, as words, for those that load code.
func (a *analyzer) optionWords(cmd *call.Command, m *cmdMeta, name, lang string, words []string, cwd dir) {
	value := func(i int, opt string) (string, int, bool) {
		w := words[i]
		if rest, ok := strings.CutPrefix(w, opt+"="); ok && strings.HasPrefix(opt, "--") {
			return rest, i, true
		}
		if w == opt {
			if i+1 < len(words) {
				return words[i+1], i + 1, true
			}
			return "", i, false
		}
		if len(opt) == 2 && strings.HasPrefix(w, opt) && !strings.HasPrefix(opt, "--") {
			return w[2:], i, true
		}
		return "", i, false
	}
	module := func(what, ref string) {
		a.moduleRef(cmd, m, name, lang, what, ref, cwd)
	}
	for i := 0; i < len(words); i++ {
		switch lang {
		case "node":
			for _, opt := range []string{"-r", "--require", "--import", "--loader", "--experimental-loader"} {
				if v, j, ok := value(i, opt); ok {
					module("module", v)
					i = j
					break
				}
			}
		case "ruby":
			if v, j, ok := value(i, "-r"); ok {
				module("library", v)
				i = j
			} else if v, j, ok := value(i, "-I"); ok {
				a.searchPath(cmd, name, arg{lit: v}, cwd)
				i = j
			}
		case "perl":
			w := words[i]
			switch {
			case strings.HasPrefix(w, "-M") || strings.HasPrefix(w, "-m"):
				spec := w[2:]
				if spec == "" && i+1 < len(words) {
					i++
					spec = words[i]
				}
				if !perlModule().MatchString(spec) {
					// -M'Mod;CODE' makes perl run `use Mod;CODE;`.
					m.laterCode = append(m.laterCode, codeRef{code: arg{lit: "use " + strings.TrimPrefix(spec, "-") + ";"}, kind: codeInterp, lang: oneliner.Perl, carrier: name})
				}
			case strings.HasPrefix(w, "-I"):
				v := w[2:]
				if v == "" && i+1 < len(words) {
					i++
					v = words[i]
				}
				a.searchPath(cmd, name, arg{lit: v}, cwd)
			}
		case "jvm":
			w := words[i]
			switch {
			case strings.HasPrefix(w, "-javaagent:"), strings.HasPrefix(w, "-agentpath:"):
				_, v, _ := strings.Cut(w, ":")
				v, _, _ = strings.Cut(v, "=")
				if !a.trustedDir(a.tildePath(v), cwd) {
					opaqueCmd(cmd, name+" loads "+v+" into the JVM, code moat cannot read")
				}
			case strings.HasPrefix(w, "-XX:OnError="), strings.HasPrefix(w, "-XX:OnOutOfMemoryError="):
				_, v, _ := strings.Cut(w, "=")
				for _, c := range strings.Split(v, ";") {
					m.laterCode = append(m.laterCode, codeRef{code: arg{lit: c}, kind: codeShell, carrier: name})
				}
			}
		case "tar":
			// GNU tar reads TAR_OPTIONS before its arguments; some options run commands.
			opt, val, ok := strings.Cut(words[i], "=")
			if !ok {
				break
			}
			switch opt {
			case "--to-command", "--use-compress-program", "--info-script", "--new-volume-script":
				m.laterCode = append(m.laterCode, codeRef{code: arg{lit: val}, kind: codeShell, carrier: name + " " + opt})
			case "--checkpoint-action":
				if cmd, ok := strings.CutPrefix(val, "exec="); ok {
					m.laterCode = append(m.laterCode, codeRef{code: arg{lit: cmd}, kind: codeShell, carrier: name + " " + opt})
				}
			}
		case "go":
			for _, opt := range goCommandFlags {
				if v, j, ok := goFlag(words, i, opt); ok {
					m.laterCode = append(m.laterCode, codeRef{code: arg{lit: v}, kind: codeShell, carrier: name + " " + opt})
					i = j
					break
				}
			}
		}
	}
}

// loadsCode reports whether an option word of a program's options variable loads code.
func loadsCode(lang, w string) bool {
	var prefixes []string
	switch lang {
	case "node":
		prefixes = []string{"-r", "--require", "--import", "--loader", "--experimental-loader"}
	case "perl":
		prefixes = []string{"-M", "-m", "-I", "-d"}
	case "ruby":
		prefixes = []string{"-r", "-I"}
	case "jvm":
		prefixes = []string{"-javaagent", "-agentpath", "-agentlib", "-XX:On", "-Xbootclasspath"}
	case "go":
		prefixes = []string{"-toolexec", "--toolexec", "-exec", "--exec"}
	case "tar":
		prefixes = []string{"--to-command", "--use-compress-program", "--checkpoint-action", "--info-script", "--new-volume-script", "-I", "-F"}
	}
	for _, p := range prefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// goFlag reads a Go flag's value: -name=value or -name value.
func goFlag(words []string, i int, opt string) (string, int, bool) {
	w := words[i]
	if rest, ok := strings.CutPrefix(w, opt+"="); ok {
		return rest, i, true
	}
	if w == opt && i+1 < len(words) {
		return words[i+1], i + 1, true
	}
	return "", i, false
}

// perlModule matches what -M and -m take when they name a module, with its import list.
var perlModule = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-?[A-Za-z_][\w:]*(=[\w,:.\-]*)?$`)
})

// moduleRef judges a module an option preloads: a package name is looked up where the
// program keeps its packages; a data: URL is the code itself; a URL is code fetched from the
// network; a path outside the project and the system is code moat cannot read.
func (a *analyzer) moduleRef(cmd *call.Command, m *cmdMeta, name, lang, what, ref string, cwd dir) {
	switch {
	case strings.HasPrefix(ref, "data:"):
		if code, ok := dataURL(ref); ok {
			m.laterCode = append(m.laterCode, codeRef{code: arg{lit: code}, kind: codeInterp, lang: langOf(lang), carrier: name})
		} else {
			opaqueCmd(cmd, name+" loads code from a data: URL moat cannot decode")
		}
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		cmd.Findings = appendFinding(cmd.Findings, findDownloadExec, name+" loads "+what+" "+ref+" from the network")
	case strings.HasPrefix(ref, "file:"):
		p := strings.TrimPrefix(strings.TrimPrefix(ref, "file:"), "//")
		if !a.trustedDir(p, cwd) {
			opaqueCmd(cmd, name+" loads "+ref+", code moat cannot read")
		}
	case strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, ".") || strings.HasPrefix(ref, "~"):
		if !a.trustedDir(a.tildePath(ref), cwd) {
			opaqueCmd(cmd, name+" loads "+ref+", code moat cannot read")
		}
	}
}

// dataURL decodes the code of a data: URL (data:text/javascript,CODE or ;base64,…).
func dataURL(ref string) (string, bool) {
	meta, body, ok := strings.Cut(strings.TrimPrefix(ref, "data:"), ",")
	if !ok {
		return "", false
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	s, err := url.PathUnescape(body)
	if err != nil {
		return "", false
	}
	return s, true
}

// splitOptions splits an options variable into words at blanks, keeping quoted text whole:
// node reads double quotes in NODE_OPTIONS; the JVM and tar also read single quotes and
// backslashes (shellLike).
func splitOptions(s string, shellLike bool) []string {
	var words []string
	var b strings.Builder
	quote := byte(0)
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteByte(c)
		case c == '"' || c == '\'' && shellLike:
			quote, in = c, true
		case c == '\\' && shellLike && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// splitGitParameters splits GIT_CONFIG_PARAMETERS, a list of shell-quoted 'key=value' or
// 'key'='value' items separated by blanks, into key=value strings.
func splitGitParameters(s string) []string {
	var out []string
	var b strings.Builder
	quoted, in := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			quoted, in = !quoted, true
		case c == '\\' && !quoted && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case (c == ' ' || c == '\t' || c == '\n') && !quoted:
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// interactiveEnv judges, for an interactive program (sh -i, python -i), the variables only
// such a program reads whose value the line set earlier: they were not judged where set.
func (a *analyzer) interactiveEnv(cmd *call.Command, m *cmdMeta, cwd dir) {
	r := envReader{prog: m.prog, opts: []option{{name: "i"}}}
	for _, name := range interactiveVars() {
		if !slices.Contains(envVars()[name].readers, m.prog) {
			continue
		}
		if cur, _ := a.st.get(name); cur.known {
			a.envEffects(cmd, m, []envAssign{{name, arg{lit: cur.s}}}, r, cwd)
		}
	}
}

// persistentEnv emits cmd, a command that sets the variables env for the rest of the line
// (a plain assignment alone, export, declare -x), when they carry code: the code is judged
// where it is set, since the program that will read it may run in a later call.
func (a *analyzer) persistentEnv(cmd call.Command, m cmdMeta, env []envAssign) {
	cwd := a.cwd()
	a.envEffects(&cmd, &m, env, envReader{persist: true}, cwd)
	if len(cmd.Findings) == 0 && len(m.laterCode) == 0 {
		return
	}
	a.emit(cmd, m)
	at := len(a.cmds) - 1
	for _, code := range a.meta[at].laterCode {
		a.runCode(at, code, cwd)
	}
}

// goCommandFlags are the go command's flags whose value is a command it runs: -toolexec
// before each tool of a build, -exec to run test and run binaries.
var goCommandFlags = []string{"-toolexec", "--toolexec", "-exec", "--exec"}

// goEffects judges what the go command runs besides the project's code: the program of
// -toolexec and -exec (go build -toolexec=/tmp/x), and, for go env -w NAME=VALUE, the
// settings it writes for every later go command (CC, GOFLAGS=-toolexec=…), judged as
// if they were given to one: CC=/tmp/cc go build asks, and so does go env -w CC=/tmp/cc.
func (a *analyzer) goEffects(cmd *call.Command, m *cmdMeta, v *view, cwd dir) {
	// A word computed at run time is matched by its text as written (-toolexec="$T").
	words := make([]string, 0, len(v.args))
	for _, x := range v.args {
		words = append(words, x.lit)
	}
	sub := ""
	for i := 0; i < len(words) && words[i] != "--"; i++ {
		if !strings.HasPrefix(words[i], "-") {
			if sub == "" {
				sub = words[i]
			} else if sub == "run" {
				break // go run PKG ARGS…: the words after the package are the program's
			}
			continue
		}
		for _, opt := range goCommandFlags {
			if val, j, ok := goFlag(words, i, opt); ok {
				m.laterCode = append(m.laterCode, codeRef{code: arg{lit: val, dynamic: v.args[j].dynamic}, kind: codeShell, carrier: "go " + opt})
				i = j
				break
			}
		}
	}
	if len(v.ops) == 0 || v.ops[0] != "env" || !v.flag("w") {
		return
	}
	var env []envAssign
	for _, x := range append(slices.Clone(v.raw[1:]), v.values("w")...) {
		if name, val, ok := strings.Cut(x.lit, "="); ok && name != "" && !strings.ContainsAny(name, "$`") {
			env = append(env, envAssign{name: name, val: arg{lit: val, dynamic: x.dynamic, word: x.word}})
		}
	}
	a.envEffects(cmd, m, env, envReader{prog: "go"}, cwd)
}
