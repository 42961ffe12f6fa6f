package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/sandbox"
)

// hookedSettings stands for an agent settings file into which moat setup wrote its hooks:
// what matters to the kernel is that the file exists and is protected ($agent-config).
const hookedSettings = `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"moat hook"}]}]}}` + "\n"

// stateProbe is one operation tried inside the sandbox, and what the kernel must answer:
// "ok", or "denied" for any refusal (EACCES, EXDEV, EEXIST, EPERM).
type stateProbe struct {
	args []string
	want string
}

// TestLaunchAgentState launches each embedded profile with the agent's settings files in
// place (as after moat setup) and checks, on the real kernel, that the agent keeps its
// state while the files moat protects cannot be written, truncated, deleted, replaced by
// rename or link, or renamed away; and that $secrets stay unreadable.
func TestLaunchAgentState(t *testing.T) {
	requireLandlock(t)
	profiles, err := sandbox.Profiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range profiles {
		t.Run(p.Name, func(t *testing.T) {
			e := newLaunchEnv(t, "")
			protected := agentConfigIn(t, p, e.home)
			var probes []stateProbe
			add := func(want string, args ...string) { probes = append(probes, stateProbe{args, want}) }

			var stateDirs []string
			for _, st := range p.Sandbox.State {
				path := pathset.Expand(strings.TrimSuffix(st.Pattern, "/"), e.home)
				if !strings.HasSuffix(st.Pattern, "/") {
					add("ok", "append", path)
					continue
				}
				stateDirs = append(stateDirs, path)
				add("ok", "create", filepath.Join(path, "new.json"))
				add("ok", "rename", filepath.Join(path, "new.json"), filepath.Join(path, "renamed.json"))
				add("ok", "create", filepath.Join(path, "new.json.tmp"))
				add("ok", "rename", filepath.Join(path, "new.json.tmp"), filepath.Join(path, "renamed.json"))
				add("ok", "mkdir", filepath.Join(path, "sub"))
				add("ok", "create", filepath.Join(path, "sub", "f"))
				add("ok", "unlink", filepath.Join(path, "renamed.json"))
			}
			if len(protected) == 0 && len(stateDirs) == 0 {
				t.Skipf("profile %s protects no file in the directories it makes writable, and lists no state", p.Name)
			}
			for i, f := range protected {
				mustWrite(t, f, hookedSettings)
				dir := filepath.Dir(f)
				sibling := filepath.Join(dir, fmt.Sprintf("agent-state-%d.json", i))
				mustWrite(t, sibling, "{}\n")
				add("ok", "read", f)
				add("denied", "write", f)
				add("denied", "append", f)
				add("denied", "truncate", f)
				add("denied", "unlink", f)
				add("denied", "rename", f, f+".moved")
				add("denied", "rename", sibling, f)
				add("denied", "link", sibling, f)
				add("denied", "link", sibling, filepath.Join(dir, "planted.json"))
				add("denied", "create", filepath.Join(dir, "new-beside.json"))
				add("ok", "append", sibling)
				for _, s := range stateDirs {
					if filepath.Dir(s) != dir {
						continue
					}
					tmp := filepath.Join(s, fmt.Sprintf("evil-%d.json", i))
					add("ok", "create", tmp)
					add("denied", "rename", tmp, f)
					add("denied", "link", tmp, f)
					add("denied", "rename", f, filepath.Join(s, fmt.Sprintf("stolen-%d.json", i)))
					add("denied", "link", f, filepath.Join(s, fmt.Sprintf("alias-%d.json", i)))
				}
			}
			if len(stateDirs) > 0 && len(protected) > 0 {
				// Lock directories (mkdir NAME.lock, rmdir) beside the protected file, as
				// Gemini CLI and Claude Code take them.
				lock := protected[0] + ".lock"
				add("ok", "mkdir", lock)
				add("ok", "rmdir", lock)
			}
			add("denied", "read", filepath.Join(e.home, ".ssh", "id_rsa"))

			var script strings.Builder
			for _, pr := range probes {
				fmt.Fprintf(&script, "sandbox-probe %s\n", shellQuote(pr.args))
			}
			out, stderr, code := e.launch(t, "--profile", p.Name, "--", "sh", "-c", script.String())
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, stderr)
			}
			got := strings.Split(strings.TrimSpace(out), "\n")
			if len(got) != len(probes) {
				t.Fatalf("%d answers for %d probes:\n%s\nstderr: %s", len(got), len(probes), out, stderr)
			}
			for i, pr := range probes {
				if answer := classify(got[i]); answer != pr.want {
					t.Errorf("sandbox-probe %s = %s, want %s", strings.Join(pr.args, " "), got[i], pr.want)
				}
			}
			for _, f := range protected {
				if data, err := os.ReadFile(f); err != nil || string(data) != hookedSettings {
					t.Errorf("the protected %s after the launch: %q, %v", f, data, err)
				}
			}
		})
	}
}

// classify reduces an answer of sandbox-probe to ok or denied; anything else is kept.
func classify(answer string) string {
	switch answer {
	case "ok":
		return "ok"
	case "EACCES", "EXDEV", "EEXIST", "EPERM":
		return "denied"
	}
	return answer
}

// agentConfigIn returns the files of $agent-config (fixed paths, no patterns) beneath the
// directories of home the profile makes writable: those moat protects inside the agent's
// own directory.
func agentConfigIn(t *testing.T, p *sandbox.Profile, home string) []string {
	t.Helper()
	set, err := pathset.Resolve("$agent-config", pathset.Host{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range p.Sandbox.Write {
		dir, ok := strings.CutSuffix(w.Pattern, "/**")
		if !ok || !strings.HasPrefix(dir, "~/") {
			continue
		}
		dir = pathset.Expand(dir, home)
		for _, inc := range set.Include {
			if !glob.HasMeta(inc) && strings.HasPrefix(inc, dir+"/") {
				out = append(out, inc)
			}
		}
	}
	return out
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
