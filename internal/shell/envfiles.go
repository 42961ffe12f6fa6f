package shell

import (
	"sync"

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
