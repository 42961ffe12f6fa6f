package agent

import (
	"path/filepath"
	"slices"
	"strings"
)

// runtimes are the programs that run an agent's CLI written in their language (Claude
// Code, Codex's and Gemini CLI's launchers are node scripts): in a process list, the
// agent is the script they run, not the runtime.
func runtimes() []string { return []string{"node", "nodejs", "bun", "deno", "python", "python3"} }

// scriptExts are the extensions an agent's script or binary may carry in a process list.
func scriptExts() []string { return []string{".js", ".mjs", ".cjs", ".exe", ".py"} }

// ByProcess returns the guarded agent whose program a process's arguments run: its own
// name (argv[0]), or the script a runtime (node …) runs. Agents are known by their CLI's
// Programs.
func ByProcess(args []string) (Agent, bool) {
	if len(args) == 0 {
		return Agent{}, false
	}
	name := programName(args[0])
	if slices.Contains(runtimes(), strings.TrimRight(name, "0123456789.")) {
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			name = programName(a)
			break
		}
	}
	for _, a := range Guarded() {
		if slices.Contains(a.CLI.Programs, name) {
			return a, true
		}
	}
	return Agent{}, false
}

// programName is a program path's file name, without its extension.
func programName(p string) string {
	base := filepath.Base(strings.ReplaceAll(p, `\`, "/"))
	for _, ext := range scriptExts() {
		if s, ok := strings.CutSuffix(base, ext); ok {
			return s
		}
	}
	return base
}
