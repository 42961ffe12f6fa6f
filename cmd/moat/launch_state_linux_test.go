package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

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

			// One probe process answers every probe, line by line.
			var script strings.Builder
			script.WriteString("sandbox-probe - <<'PROBES'\n")
			for _, pr := range probes {
				fmt.Fprintln(&script, strings.Join(pr.args, " "))
			}
			script.WriteString("PROBES\n")
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

// TestLaunchRealAgents runs the real Claude Code, Gemini CLI and Codex under moat launch
// with their profiles, in a throwaway home whose settings files hold hooks as after moat
// setup: each must start, and run headless against a loopback model endpoint that
// refuses every request (401), writing its session state on the way. The programs are
// the pinned npm packages that MOAT_TEST_AGENT_CLIS holds (see agentCLIs).
func TestLaunchRealAgents(t *testing.T) {
	requireLandlock(t)
	dir := agentCLIs(t)
	refuse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key","code":401,"status":"UNAUTHENTICATED"}}`)
	}))
	defer refuse.Close()
	port := refuse.Listener.Addr().(*net.TCPAddr).Port
	for _, a := range []struct {
		program, profile, settings string
		env                        []string
		files                      map[string]string // more files of home, as a user who ran the agent before has
		args                       []string
		state                      string // a directory of home the run must leave a file in
	}{
		{
			program: "claude", profile: "claude-code", settings: ".claude/settings.json",
			env:   []string{"ANTHROPIC_BASE_URL=" + refuse.URL, "ANTHROPIC_API_KEY=sk-ant-fake", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1"},
			args:  []string{"-p", "hello", "--output-format", "json"},
			state: ".claude/projects",
		},
		{
			program: "gemini", profile: "gemini-cli", settings: ".gemini/settings.json",
			env: []string{"GOOGLE_GEMINI_BASE_URL=" + refuse.URL, "GEMINI_API_KEY=fake"},
			// Gemini CLI cannot register a new workspace inside (see its profile's
			// caveats): this one was registered by an earlier run outside.
			files: map[string]string{".gemini/projects.json": `{"projects":{"WS":"ws"}}`, ".gemini/tmp/ws/.project_root": "WS", ".gemini/history/ws/.project_root": "WS", ".gemini/trustedFolders.json": `{"WS":"TRUST_FOLDER"}`},
			args:  []string{"-p", "hello"},
			state: ".gemini/tmp/ws/chats",
		},
		{
			program: "codex", profile: "codex", settings: ".codex/hooks.json",
			env:   []string{"OPENAI_API_KEY=sk-fake"},
			files: map[string]string{".codex/config.toml": "model = \"gpt-5\"\nmodel_provider = \"loop\"\n[model_providers.loop]\nname = \"loop\"\nbase_url = \"" + refuse.URL + "/v1\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"},
			args:  []string{"exec", "--skip-git-repo-check", "hello"},
			state: ".codex/sessions",
		},
	} {
		t.Run(a.program, func(t *testing.T) {
			bin := filepath.Join(dir, a.program)
			if _, err := os.Stat(bin); err != nil {
				t.Fatalf("MOAT_TEST_AGENT_CLIS: %v", err)
			}
			e := newLaunchEnv(t, "")
			// moat's default sandbox as a user has it, with the endpoint's port, and the
			// agents' packages readable and runnable where npm put them (a user's are
			// under $home or /usr, which the default grants).
			pkgs := filepath.Dir(filepath.Dir(dir))
			mustWrite(t, e.policy, fmt.Sprintf(`version: 1
sandbox:
  connect: [%d]
  read: [/usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32, /etc, /opt, /run, /proc, /sys, /nix, /snap, $home, %q]
  exec: [/usr, /bin, /sbin, /lib, /lib32, /lib64, /libx32, /opt, /nix, /snap, $home, $workspace, $temp, %q]
`, port, pkgs, pkgs))
			settings := filepath.Join(e.home, a.settings)
			content := hookedSettings
			if a.program == "gemini" {
				content = `{"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{}}` + "\n"
			}
			mustWrite(t, settings, content)
			for f, data := range a.files {
				mustWrite(t, filepath.Join(e.home, f), strings.ReplaceAll(data, "WS", e.ws))
			}
			// The throwaway home lies in /tmp, whose denied and protected files close /tmp
			// itself to new entries: the agents' temporary files go to a directory of
			// their own, as they would in a real /tmp.
			tmp := filepath.Join(t.TempDir(), "tmp")
			if err := os.Mkdir(tmp, 0o700); err != nil {
				t.Fatal(err)
			}
			e.env = append(append(e.env, "TMPDIR="+tmp), a.env...)

			out, stderr, code := e.launch(t, "--profile", a.profile, "--", bin, "--version")
			if code != 0 || !regexp.MustCompile(`\d+\.\d+\.\d+`).MatchString(out) {
				t.Fatalf("%s --version under moat launch: exit %d\nstdout: %s\nstderr: %s", a.program, code, out, stderr)
			}
			t.Logf("%s %s", a.program, strings.TrimSpace(out))

			// Claude Code keeps retrying a refused request: a run that has not ended after a
			// while is stopped, and what it wrote by then is what is checked.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, moatBinary(t), append([]string{"launch", "--policy", e.policy, "--profile", a.profile, "--", bin}, a.args...)...)
			cmd.Dir, cmd.Env, cmd.Stdin = e.ws, e.env, strings.NewReader("")
			combined, err := cmd.CombinedOutput()
			t.Logf("%s headless: %v (%v)", a.program, err, ctx.Err())
			if bytes.Contains(combined, []byte("EACCES")) || bytes.Contains(combined, []byte("Permission denied")) {
				t.Errorf("%s met a permission error:\n%s", a.program, combined)
			}
			var written []string
			filepath.WalkDir(filepath.Join(e.home, a.state), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					written = append(written, p)
				}
				return nil
			})
			if len(written) == 0 {
				t.Errorf("%s wrote no state under ~/%s:\n%s", a.program, a.state, combined)
			}
			if data, err := os.ReadFile(settings); err != nil || string(data) != content {
				t.Errorf("%s after the launch: %q, %v", settings, data, err)
			}
		})
	}
}
