package agent

import (
	"path"
	"strings"
)

// CLI is what moat knows about an agent's command-line program: the names it is run by,
// and the options and environment variables that start it with its hooks or its
// configuration switched off, moved or replaced. Started that way, a second agent's tool
// calls would not pass through moat; started normally, its own hooks (moat's) apply.
type CLI struct {
	// Programs are the names the program is run by.
	Programs []string
	// Packages are the npm packages that hold it, which npx, bunx, pnpm dlx and the like
	// run by package name.
	Packages []string
	// Options start it without its hooks or with other configuration.
	Options []Option
	// Env are the environment variables that do; HomeEnv applies to every program too.
	Env []Env
	// Writers are its subcommands that rewrite its own hook or MCP files (`claude mcp
	// add`): the files they write are protected like any other write to them.
	Writers []Writer
}

// Option is a command-line option that drops or replaces the program's hooks or
// configuration.
type Option struct {
	// Names are its spellings without dashes ("settings", "c"). They are compared with
	// dashes and underscores removed and letters folded: yargs (Gemini CLI) reads
	// --settingSources as --setting-sources, and a spelling the program rejects does no
	// harm when it is matched.
	Names []string
	// Values, when not empty, limits the option to values that match one of these
	// patterns (* is any text); a KEY=VALUE value is matched on its key. Without Values
	// and Keep, the option is a finding whatever its value, and it is not read.
	Values []string
	// Keep, when not empty, means the value is a comma-separated list of the sources to
	// load, which must name each of Keep: a list without one drops the hooks it holds.
	Keep []string
	Why  string
}

// TakesValue reports whether the option's value decides whether it is a finding.
func (o Option) TakesValue() bool { return len(o.Values) > 0 || len(o.Keep) > 0 }

// Unguards reports whether the option, given value, starts the program without its hooks
// or with other configuration. A value that is not known (computed at run time) may be
// anything, so it does.
func (o Option) Unguards(value string, known bool) bool {
	if !o.TakesValue() || !known {
		return true
	}
	v := strings.ToLower(strings.TrimSpace(value))
	if len(o.Keep) > 0 {
		have := make(map[string]bool)
		for _, s := range strings.Split(v, ",") {
			have[strings.TrimSpace(s)] = true
		}
		for _, k := range o.Keep {
			if !have[k] {
				return true
			}
		}
	}
	if len(o.Values) > 0 {
		key, _, _ := strings.Cut(v, "=")
		key = strings.TrimSpace(key)
		for _, p := range o.Values {
			if wildcard(p, key) {
				return true
			}
		}
	}
	return false
}

// Env is an environment variable that moves the program's configuration or switches off
// its hooks.
type Env struct {
	Name string
	// Off lists the values (compared trimmed and folded) that leave the program as it is;
	// any other value is a finding. Empty Off: see Default.
	Off []string
	// Default, for a variable that names a directory, is its usual value as a path-set
	// pattern ("~/.codex"): setting the variable to it changes nothing. With neither Off
	// nor Default, any value is a finding.
	Default string
	Why     string
}

// Moves reports whether setting the variable to value, in a home directory home, starts
// the program with its configuration moved or its hooks off. A value that is not known
// may be anything, so it does.
func (e Env) Moves(value string, known bool, home string) bool {
	if !known {
		return true
	}
	if len(e.Off) > 0 {
		v := strings.ToLower(strings.TrimSpace(value))
		for _, off := range e.Off {
			if v == off {
				return false
			}
		}
		return true
	}
	if e.Default == "" || home == "" || !strings.HasPrefix(value, "/") {
		return true
	}
	def := e.Default
	if def == "~" {
		def = home
	} else if rest, ok := strings.CutPrefix(def, "~/"); ok {
		def = path.Join(home, rest)
	}
	return path.Clean(value) != path.Clean(def)
}

// Writer is a subcommand of an agent's program that rewrites the agent's own files of
// one role: the user's, and with a project scope the project's in the working directory.
type Writer struct {
	// Words are the subcommand's words, each a set of alternatives separated by |.
	Words []string
	Role  Role
	Why   string
}

// Matches reports whether the words of a command line (its arguments, without the
// program) hold the writer's subcommand, as consecutive words anywhere: options of the
// program may come first (`claude --debug mcp add`).
func (w Writer) Matches(args []string) bool {
	for i := 0; i+len(w.Words) <= len(args); i++ {
		ok := true
		for j, alts := range w.Words {
			if !alternative(alts, args[i+j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func alternative(alts, word string) bool {
	for _, a := range strings.Split(alts, "|") {
		if a == word {
			return true
		}
	}
	return false
}

// Option returns the option of the program spelt name (without dashes).
func (c CLI) Option(name string) (Option, bool) {
	for _, o := range c.Options {
		for _, s := range o.Names {
			if sameOption(s, name) {
				return o, true
			}
		}
	}
	return Option{}, false
}

// Variable returns what setting the environment variable name means to the program: one
// of its own variables, or one of HomeEnv.
func (c CLI) Variable(name string) (Env, bool) {
	for _, list := range [][]Env{c.Env, HomeEnv} {
		for _, e := range list {
			if e.Name == name {
				return e, true
			}
		}
	}
	return Env{}, false
}

// ForProgram returns the agent whose program is named name (a base name, as a shell
// command names it; a Windows .exe suffix is ignored).
func ForProgram(name string) (Agent, bool) {
	name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	for _, a := range registry {
		for _, p := range a.CLI.Programs {
			if p == name {
				return a, true
			}
		}
	}
	return Agent{}, false
}

// ForPackage returns the agent whose npm package is spec, with or without a version
// (@openai/codex@latest).
func ForPackage(spec string) (Agent, bool) {
	name := spec
	if i := strings.LastIndexByte(spec, '@'); i > 0 {
		name = spec[:i]
	}
	for _, a := range registry {
		for _, p := range a.CLI.Packages {
			if p == name {
				return a, true
			}
		}
	}
	return Agent{}, false
}

// sameOption reports whether two spellings of an option name one option. A short option
// is one letter, whose case matters (Codex's -c is --config, its -C is --cd); long ones
// are compared without dashes and underscores, with letters folded.
func sameOption(a, b string) bool {
	if len(a) == 1 || len(b) == 1 {
		return a == b
	}
	return fold(a) == fold(b)
}

// fold is a long option's spelling as compared: without dashes and underscores, folded.
func fold(s string) string {
	s = strings.ToLower(s)
	if !strings.ContainsAny(s, "-_") {
		return s
	}
	return strings.NewReplacer("-", "", "_", "").Replace(s)
}

// wildcard matches s against pattern, in which * stands for any text, dots included.
func wildcard(pattern, s string) bool {
	for {
		star := strings.IndexByte(pattern, '*')
		if star < 0 {
			return pattern == s
		}
		if !strings.HasPrefix(s, pattern[:star]) {
			return false
		}
		s, pattern = s[star:], pattern[star+1:]
		if pattern == "" {
			return true
		}
		for i := 0; i <= len(s); i++ {
			if wildcard(pattern, s[i:]) {
				return true
			}
		}
		return false
	}
}
