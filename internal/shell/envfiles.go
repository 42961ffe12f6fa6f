package shell

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/moatdev/moat/internal/call"
)

// envFileLoaders are the programs that load a dotenv file into the environment of what
// they run, and the options that name it: node --env-file=.env app.js, docker compose
// --env-file, uv run --env-file, dotenv -f FILE run -- CMD. docker and podman run's
// --env-file is read with the container's other options (container.go).
var envFileLoaders = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"node":           {"env-file", "env-file-if-exists"},
		"deno":           {"env-file", "env"},
		"bun":            {"env-file"},
		"uv":             {"env-file"},
		"docker-compose": {"env-file"},
		"dotenv":         {"f", "e"},
		"dotenvx":        {"f", "env-file"},
		"env-cmd":        {"f", "file"},
		"foreman":        {"e", "env"},
		"honcho":         {"e", "env"},
	}
})

// envFiles records the dotenv files a loader reads (envFile). docker compose is docker
// with the compose subcommand.
func (a *analyzer) envFiles(cmd *call.Command, v *view, cwd dir) {
	names := envFileLoaders()[v.name]
	if v.name == "docker" || v.name == "podman" {
		if len(v.ops) == 0 || v.ops[0] != "compose" {
			return
		}
		names = envFileLoaders()["docker-compose"]
	}
	for _, f := range optionValues(v, names...) {
		a.envFile(cmd, f, cwd)
	}
}

// envFile records the dotenv file f that a program loads into the environment of what
// it runs, whose values then reach that program and not the agent, as source .env puts
// them in the shell's: a file of the project is the project's own settings (what the
// program does with them is judged with the program, a container's env printing them
// included); any other file is read, and judged by its path (--env-file
// ~/.aws/credentials hands the AWS keys to an image's code).
func (a *analyzer) envFile(cmd *call.Command, f arg, cwd dir) {
	if f.dynamic {
		cmd.Opaque = true
		return
	}
	file := expandTildeLike(f.lit, a)
	if a.inProject(file, cwd) {
		return
	}
	if p, ok, opaque := a.resolve(file, cwd); ok {
		cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Read, Path: p})
		cmd.Opaque = cmd.Opaque || opaque
	}
}

// envFileSubst reports whether w is a command substitution that prints a dotenv file of
// the project as words, NAME=value each (env $(cat .env | xargs) node app.js, env
// $(grep -v '^#' .env | xargs) …): env takes them as assignments before its program, as
// export takes them, and the program is the word after. The read is judged as export's
// is (credentials.env-load, allowed for the project's dotenv files).
func envFileSubst(w *syntax.Word) bool {
	if w == nil || len(w.Parts) != 1 {
		return false
	}
	cs, ok := w.Parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	if len(st.Redirs) > 0 || st.Background || st.Negated || st.Coprocess {
		return false
	}
	var calls []*syntax.CallExpr
	var flatten func(c syntax.Command) bool
	flatten = func(c syntax.Command) bool {
		switch c := c.(type) {
		case *syntax.CallExpr:
			if len(c.Assigns) > 0 || len(c.Args) == 0 {
				return false
			}
			calls = append(calls, c)
			return true
		case *syntax.BinaryCmd:
			return c.Op == syntax.Pipe && len(c.X.Redirs) == 0 && len(c.Y.Redirs) == 0 && flatten(c.X.Cmd) && flatten(c.Y.Cmd)
		}
		return false
	}
	if !flatten(st.Cmd) || len(calls) < 2 {
		return false
	}
	dotenv := false
	for k, c := range calls {
		for _, arg := range c.Args {
			if expands(arg) {
				return false
			}
		}
		prog := c.Args[0].Lit()
		switch {
		case k == len(calls)-1:
			// xargs alone prints the words it reads on one line: NAME=value NAME=value.
			if prog != "xargs" || len(c.Args) > 1 {
				return false
			}
		case prog == "cat" || prog == "grep" || prog == "egrep" || prog == "sed":
			for _, arg := range c.Args[1:] {
				if f := arg.Lit(); dotenvName(f) {
					dotenv = true
				}
			}
		case prog == "tr" || prog == "cut" || prog == "sort":
		default:
			return false
		}
	}
	return dotenv
}

// expands reports whether a word holds anything the shell expands (a variable, a
// substitution, arithmetic, an extended glob, a brace): the idiom's words are plain.
func expands(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob, *syntax.BraceExp:
			found = true
		}
		return !found
	})
	return found
}

// dotenvName reports whether a path written relative to the working directory names a
// dotenv file below it: .env, .env.local, config/.env.production.
func dotenvName(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains("/"+p+"/", "/../") {
		return false
	}
	base := path.Base(p)
	return base == ".env" || strings.HasPrefix(base, ".env.")
}
