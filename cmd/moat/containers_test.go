//go:build unix

package main

import (
	"path/filepath"
	"testing"
)

// fakeDocker stands for docker: `run` runs the container's command on the host with each
// mount's target replaced by its source, which is what a bind mount does to the paths
// the command names; `cp CONTAINER:PATH DEST` writes DEST. Nothing else is done.
const fakeDocker = `#!/bin/bash
case "$1" in
cp) printf '{"hooks": {}}\n' > "$3"; exit 0 ;;
run) shift ;;
*) exit 0 ;;
esac
mounts=()
while [ $# -gt 0 ]; do
	case "$1" in
	-v|--volume) mounts+=("$2"); shift 2 ;;
	-w|--workdir|--name|-e) shift 2 ;;
	-*) shift ;;
	*) break ;;
	esac
done
shift # the image
args=()
for a in "$@"; do
	for m in "${mounts[@]}"; do
		src=${m%%:*}; rest=${m#*:}; dst=${rest%%:*}
		a=${a//"$dst"/"$src"}
	done
	args+=("$a")
done
exec "${args[@]}"
`

// containerHome is a canary home with Claude Code's hook settings and the fake docker
// first on PATH.
func containerHome(t *testing.T) (h *hookRun, settings string) {
	t.Helper()
	h = newHookRun(t)
	bin := filepath.Join(h.home, "bin")
	settings = filepath.Join(h.home, ".claude", "settings.json")
	files := map[string]string{
		settings:                     `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "moat hook claude-code"}]}]}}` + "\n",
		filepath.Join(bin, "docker"): fakeDocker,
	}
	plant(t, h, bin, files)
	return h, settings
}

// TestContainersEndToEnd sends, through `moat hook claude-code` in a canary home, writes
// and deletes made by a container through what it mounts of the host, performing
// whatever moat lets through with a docker that does what the real one would to the
// mounted paths: the hook settings and the home must be unchanged. The control, the
// project mounted and written, runs, so the harness does act.
func TestContainersEndToEnd(t *testing.T) {
	attacks := map[string]string{
		"hook settings rewritten through a mount": `docker run --rm -v ~/.claude:/c alpine sh -c 'echo {} > /c/settings.json'`,
		"hook settings overwritten by docker cp":  `docker cp box:/tmp/s.json ~/.claude/settings.json`,
		"home deleted through a mount":            `docker run --rm -v "$HOME":/h alpine rm -rf /h/.claude`,
	}
	for name, command := range attacks {
		t.Run(name, func(t *testing.T) {
			h, settings := containerHome(t)
			before := fileText(t, settings)
			if !actAsAgent(t, h, "Bash", map[string]any{"command": command}) {
				t.Errorf("moat did not deny %s", command)
			}
			if got := fileText(t, settings); got != before {
				t.Errorf("the hook settings changed: %q", got)
			}
		})
	}

	t.Run("control runs", func(t *testing.T) {
		h, settings := containerHome(t)
		before := fileText(t, settings)
		command := `docker run --rm -v "$PWD":/src -w /src alpine sh -c 'echo built > /src/out.txt'`
		if actAsAgent(t, h, "Bash", map[string]any{"command": command}) {
			t.Fatal("a container writing the project was denied")
		}
		if got := fileText(t, filepath.Join(h.project, "out.txt")); got != "built\n" {
			t.Errorf("the allowed container did not run: out.txt %q", got)
		}
		if fileText(t, settings) != before {
			t.Error("the control changed the hook settings")
		}
	})
}
