//go:build linux || darwin

package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/daemon"
	"github.com/moatdev/moat/internal/daemonenv"
	"github.com/moatdev/moat/internal/decide"
	"github.com/moatdev/moat/internal/policy/source"
	"github.com/moatdev/moat/internal/sandbox"
	"github.com/moatdev/moat/internal/trust"
)

// launchABI is the Landlock ABI the tests carve for; carving needs no Landlock.
const launchABI = 7

// shortDir is a directory whose path fits in a unix socket's address.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mtl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// launchUser is a fake user who launches from a repository: a home with a key in it,
// and a runtime directory short enough for the daemon's socket.
type launchUser struct {
	home, repo string
	a          *app
	stderr     *syncBuffer
}

// launchTestBase is where a launch test's root goes: the package's directory, unless that
// is itself beneath a shared temporary directory (a checkout in /tmp, as CI's may be),
// then the user's cache directory.
func launchTestBase(t testing.TB) string {
	t.Helper()
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, shared := range []string{os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} {
		if rel, err := filepath.Rel(shared, here); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			cache, err := os.UserCacheDir()
			if err != nil {
				// No home to put it in: the package's directory still serves, as it did
				// before, with /tmp's churn a possible cause of a re-carving.
				t.Logf("the package is beneath %s and there is no cache directory (%v): the root stays in the package", shared, err)
				return "."
			}
			if err := os.MkdirAll(cache, 0o700); err != nil {
				t.Fatal(err)
			}
			return cache
		}
	}
	return "."
}

func newLaunchUser(t testing.TB) *launchUser {
	t.Helper()
	// Outside the shared temporary directories, which the default sandbox grants: a
	// home or a runtime directory beneath /tmp would make each carving list /tmp, which
	// other processes change at any moment. The package's directory is the test's, or
	// the user's cache when the checkout itself is in /tmp (launchTestBase).
	root, err := os.MkdirTemp(launchTestBase(t), ".launchtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if root, err = filepath.Abs(root); err != nil {
		t.Fatal(err)
	}
	u := &launchUser{home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	runtime, tmp := filepath.Join(root, "rt"), filepath.Join(root, "tmp")
	for _, dir := range []string{filepath.Join(u.home, ".ssh"), filepath.Join(u.home, "docs"), filepath.Join(u.repo, ".git"), runtime, tmp} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(u.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n")
	if len(filepath.Join(runtime, "moat", "daemon.sock")) > 100 {
		t.Skipf("the socket's path under %s is too long for a unix socket", root)
	}
	a, _, stderr := testApp(u.home)
	getenv := a.env.Getenv
	a.env.Getenv = func(k string) string {
		switch k {
		case "XDG_RUNTIME_DIR":
			return runtime
		case "TMPDIR":
			return tmp
		}
		return getenv(k)
	}
	a.env.Getwd = func() (string, error) { return u.repo, nil }
	u.a, u.stderr = a, stderr
	return u
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// said returns what f wrote on u's stderr.
func (u *launchUser) said(f func()) string {
	before := len(u.stderr.String())
	f()
	return u.stderr.String()[before:]
}

// socket returns the path of u's daemon socket, its directory created.
func (u *launchUser) socket(t *testing.T) daemon.Paths {
	t.Helper()
	paths, err := u.a.daemonPaths(true)
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// serve runs a daemon server for u with the launch's methods, as daemonRun registers
// them, and returns its dial.
func (u *launchUser) serve(t *testing.T) decide.Dial {
	t.Helper()
	paths := u.socket(t)
	ln, err := net.Listen("unix", paths.Socket)
	if err != nil {
		t.Fatal(err)
	}
	// The daemon runs the launching moat's file by another path (a link to it), and the
	// sandbox protects the path the launch runs by.
	exe, err := u.a.env.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, exe, "moat\n")
	daemonExe := filepath.Join(u.home, "daemon-moat")
	if err := os.Symlink(exe, daemonExe); err != nil {
		t.Fatal(err)
	}
	base := *u.a
	base.env.Executable = func() (string, error) { return daemonExe, nil }
	services := newDaemonServices(&base, decide.Options{Warn: func(msg string) { t.Log("daemon: " + msg) }})
	srv, err := daemon.New(daemon.Options{Service: decide.NewLocal(decide.Options{}), Methods: launchMethods(services)})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		services.close()
	})
	return decide.DialUnix(paths.Socket)
}

// request is the request u's launch of program with o sends.
func (u *launchUser) request(o launchOptions, program string) launchRequest {
	exe, _ := u.a.env.Executable()
	return launchRequest{Env: daemonenv.Capture(u.a.env.Getenv), Cwd: u.repo, Policy: o.policy, Profiles: o.profiles, Program: program, Workspace: o.workspace, Executable: exe, ABI: launchABI}
}

// enforced is what of a carving a launch enforces: its rules' paths and rights.
func enforced(cv *sandbox.Carving) *sandbox.Carving {
	out := &sandbox.Carving{ABI: cv.ABI, Handled: cv.Handled, Rules: make([]sandbox.Rule, len(cv.Rules))}
	for i, r := range cv.Rules {
		out.Rules[i] = sandbox.Rule{Path: r.Path, Access: r.Access}
	}
	return out
}

// enforcedPlan is what of a plan a launch enforces: all of it but the rules' reasons and
// the notes, which only --dry-run's report shows.
func enforcedPlan(p *sandbox.Plan) *sandbox.Plan {
	q := *p
	q.Notes = nil
	q.Rules = enforced(&sandbox.Carving{Rules: p.Rules}).Rules
	return &q
}

// carvingDiff describes how two carvings differ.
func carvingDiff(got, want *sandbox.Carving) string {
	if got.ABI != want.ABI || got.Handled != want.Handled {
		return fmt.Sprintf("ABI %d handling %v, want ABI %d handling %v", got.ABI, got.Handled, want.ABI, want.Handled)
	}
	for i := range max(len(got.Rules), len(want.Rules)) {
		var g, w sandbox.Rule
		if i < len(got.Rules) {
			g = got.Rules[i]
		}
		if i < len(want.Rules) {
			w = want.Rules[i]
		}
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("rule %d is %+v, want %+v", i, g, w)
		}
	}
	return "the same rules"
}

// own is cv without the rules for paths in the machine's shared temporary directories
// outside u's own: other tests and processes create and remove entries there at any
// time, and a carving splits those directories around protected paths in them (moat.yaml
// files anywhere), so two carvings made a moment apart rightly differ there.
func (u *launchUser) own(cv *sandbox.Carving) *sandbox.Carving {
	root := filepath.Dir(u.home)
	out := &sandbox.Carving{ABI: cv.ABI, Handled: cv.Handled}
	for _, r := range cv.Rules {
		shared := false
		for _, tmp := range []string{"/tmp", "/var/tmp", "/dev/shm", os.TempDir()} {
			if strings.HasPrefix(r.Path, tmp+"/") && !strings.HasPrefix(r.Path, root+"/") {
				shared = true
			}
		}
		if !shared {
			out.Rules = append(out.Rules, r)
		}
	}
	return out
}

// withoutRules is p without its rules, which own compares.
func withoutRules(p *sandbox.Plan) *sandbox.Plan {
	q := *p
	q.Rules = nil
	return &q
}

// checkSameSetup fails unless the launch of program with o, set up through the daemon,
// is the one set up here (the same policy, options, carving, plan and messages), and
// returns it.
func (u *launchUser) checkSameSetup(t *testing.T, o launchOptions, program string) *launchSetup {
	t.Helper()
	var byDaemon, here *launchSetup
	var daemonSaid, hereSaid string
	// The carvings list the shared temporary directories, which other processes change
	// at any time: rules there are left out of the comparison (own), and the pair is
	// carved again, a few times, before a difference elsewhere counts.
	for attempt := 0; ; attempt++ {
		daemonSaid = u.said(func() { byDaemon = u.a.launchSetupByDaemon(o, program, u.repo, launchABI) })
		if byDaemon == nil {
			ans, err := launchThroughDaemon(context.Background(), decide.DialUnix(u.socket(t).Socket), u.request(o, program))
			t.Fatalf("the daemon did not set the launch up: %s (%+v, %v)", daemonSaid, ans, err)
		}
		var err error
		hereSaid = u.said(func() { here, err = u.a.launchSetupHere(o, program, u.repo, launchABI, nil) })
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(u.own(byDaemon.carving), u.own(enforced(here.carving))) || attempt == 4 {
			break
		}
	}
	if daemonSaid != hereSaid {
		t.Errorf("the daemon's launch said %q, here %q", daemonSaid, hereSaid)
	}
	if !reflect.DeepEqual(byDaemon.source, here.source) {
		t.Errorf("policy %+v through the daemon, %+v here", byDaemon.source, here.source)
	}
	// Each side compiled its patterns through its own decision service's memo, which
	// holds what that service happened to compile: no option of the launch.
	byDaemon.opts.Host.Globs, here.opts.Host.Globs = nil, nil
	if !reflect.DeepEqual(byDaemon.opts, here.opts) {
		t.Errorf("options through the daemon:\n%+v\nhere:\n%+v", byDaemon.opts, here.opts)
	}
	if got, want := u.own(byDaemon.carving), u.own(enforced(here.carving)); !reflect.DeepEqual(got, want) {
		t.Errorf("the daemon's carving differs from a fresh one: %s", carvingDiff(got, want))
	}
	finish := func(s *launchSetup) *sandbox.Plan {
		opts := s.opts
		opts.Environ = []string{"HOME=" + u.home, "GITHUB_TOKEN=ghp_x", "LANG=C"}
		opts.UserTasks = func() (uint64, error) { return 100, nil }
		p, err := sandbox.Finish(opts, s.carving)
		if err != nil {
			t.Fatal(err)
		}
		return enforcedPlan(p)
	}
	if a, b := finish(byDaemon), finish(here); !reflect.DeepEqual(u.own(&sandbox.Carving{Rules: a.Rules}), u.own(&sandbox.Carving{Rules: b.Rules})) || !reflect.DeepEqual(withoutRules(a), withoutRules(b)) {
		a.Rules, b.Rules = nil, nil // compared above
		t.Errorf("the plan through the daemon differs from the one here:\n%+v\n%+v", a, b)
	}
	return byDaemon
}

// TestLaunchSetupByDaemon sets launches up through a real server and here, and checks
// that they are the same in every way a launch uses: the policy found (a project policy
// only once trusted), the profile, the workspace, the sandbox and the messages.
func TestLaunchSetupByDaemon(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, u *launchUser) launchOptions
		program string
		// kind is the policy's kind, said something the launch tells the user.
		kind source.Kind
		said string
	}{
		{"the embedded policy", func(*testing.T, *launchUser) launchOptions {
			return launchOptions{profiles: []string{"none"}}
		}, "/bin/true", source.FromEmbedded, ""},
		{"the profile made for the program", func(*testing.T, *launchUser) launchOptions {
			return launchOptions{}
		}, "claude", source.FromEmbedded, "using profile claude"},
		{"named profiles", func(*testing.T, *launchUser) launchOptions {
			return launchOptions{profiles: []string{"codex", "gemini-cli"}}
		}, "sh", source.FromEmbedded, ""},
		{"a policy file with a sandbox section and a workspace", func(t *testing.T, u *launchUser) launchOptions {
			writeFile(t, filepath.Join(u.home, "proj", "README"), "x\n")
			writeFile(t, filepath.Join(u.home, "p.yaml"), "version: 1\nworkspace: [~/proj]\nsandbox:\n  write: [$workspace]\n  deny: [~/docs/**]\n  connect: [443]\n")
			return launchOptions{policy: filepath.Join(u.home, "p.yaml"), profiles: []string{"none"}}
		}, "/bin/true", source.FromFlag, ""},
		{"a relative policy flag and workspace flag", func(t *testing.T, u *launchUser) launchOptions {
			writeFile(t, filepath.Join(u.repo, "sub", "p.yaml"), "version: 1\nsandbox:\n  write: [$workspace]\n")
			return launchOptions{policy: "sub/p.yaml", workspace: []string{"sub"}, profiles: []string{"none"}}
		}, "/bin/true", source.FromFlag, ""},
		{"an untrusted project policy", func(t *testing.T, u *launchUser) launchOptions {
			writeFile(t, filepath.Join(u.repo, source.ProjectFile), "version: 1\nsandbox:\n  write: [/]\n")
			return launchOptions{profiles: []string{"none"}}
		}, "/bin/true", source.FromEmbedded, "ignoring project policy"},
		{"a trusted project policy", func(t *testing.T, u *launchUser) launchOptions {
			p := filepath.Join(u.repo, source.ProjectFile)
			data := "version: 1\nsandbox:\n  deny: [$workspace/private/**]\n"
			writeFile(t, p, data)
			writeFile(t, filepath.Join(u.repo, "private", "x"), "x\n")
			d, err := u.a.dirs()
			if err != nil {
				t.Fatal(err)
			}
			if err := trust.Open(d.TrustStore()).Trust(p, []byte(data), time.Now()); err != nil {
				t.Fatal(err)
			}
			return launchOptions{profiles: []string{"none"}}
		}, "/bin/true", source.FromProject, ""},
		{"the user's policy", func(t *testing.T, u *launchUser) launchOptions {
			d, err := u.a.dirs()
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, d.UserPolicy(), "version: 1\nsandbox:\n  protect: [~/docs/**]\n")
			return launchOptions{profiles: []string{"none"}}
		}, "/bin/true", source.FromUser, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newLaunchUser(t)
			o := tt.prepare(t, u)
			// A first launch creates the profiles' state and moat's log, and so carves
			// another file system than the launches after it.
			if _, err := u.a.launchSetupHere(o, tt.program, u.repo, launchABI, nil); err != nil {
				t.Fatal(err)
			}
			u.serve(t)
			for range 2 { // made, then kept
				s := u.checkSameSetup(t, o, tt.program)
				if s.source.Kind != tt.kind {
					t.Errorf("policy of kind %s, want %s", s.source.Kind, tt.kind)
				}
			}
			said := u.said(func() { u.a.launchSetupByDaemon(o, tt.program, u.repo, launchABI) })
			if tt.said == "" && said != "" || !strings.Contains(said, tt.said) {
				t.Errorf("the launch said %q, want %q", said, tt.said)
			}
		})
	}
}

// TestLaunchThroughDaemonKeeps: the daemon gives its kept carving again, carves again
// once a directory appears in the walked home, and follows a policy edited a moment ago
// (it finds the policy for each launch, without waiting for its watcher).
func TestLaunchThroughDaemonKeeps(t *testing.T) {
	u := newLaunchUser(t)
	policyFile := filepath.Join(u.home, "p.yaml")
	writeFile(t, policyFile, "version: 1\nsandbox:\n  write: [$workspace]\n")
	o := launchOptions{policy: policyFile, profiles: []string{"none"}}
	dial := u.serve(t)
	ctx := context.Background()
	// The carving lists the directories above the test's root (the home's ancestors, to
	// grant all but what is denied); other processes adding entries there (a CI machine's
	// ~/.cache) make the daemon carve again, which is not what a step tests. A step that
	// expects the kept carving is asked once more when one of them changed since just
	// before the previous call: a change during that call (an entry the carving listed,
	// gone by the time it returned) counts too.
	root := filepath.Dir(u.home)
	since := ancestorTimes(root)
	for i, step := range []struct {
		change func()
		kept   bool
	}{
		{func() {}, false},
		{func() {}, true},
		{func() {
			if err := os.Mkdir(filepath.Join(u.home, "new"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, false},
		{func() {}, true},
		{func() { writeFile(t, policyFile, "version: 1\nsandbox:\n  write: [$workspace]\n  deny: [~/docs/**]\n") }, false},
	} {
		step.change()
		before := ancestorTimes(root)
		ans, err := launchThroughDaemon(ctx, dial, u.request(o, "/bin/true"))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if now := ancestorTimes(root); step.kept && !ans.Kept && !maps.Equal(now, since) {
			t.Logf("step %d: a directory above the test's root changed; asking again", i)
			before = now
			if ans, err = launchThroughDaemon(ctx, dial, u.request(o, "/bin/true")); err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
		}
		since = before
		if ans.Local != "" {
			t.Fatalf("step %d: declined: %s", i, ans.Local)
		}
		if ans.Kept != step.kept {
			t.Errorf("step %d: kept = %v, want %v", i, ans.Kept, step.kept)
		}
		u.checkSameSetup(t, o, "/bin/true")
	}
}

// ancestorTimes returns the modification times of the directories above dir, by path.
func ancestorTimes(dir string) map[string]int64 {
	times := map[string]int64{}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			times[d] = fi.ModTime().UnixNano()
		}
		if d == filepath.Dir(d) {
			return times
		}
	}
}

// TestLaunchSetupDeclined: what the launch's process would refuse, the daemon leaves to
// it, silently, so that it fails there with its own message and exit status.
func TestLaunchSetupDeclined(t *testing.T) {
	u := newLaunchUser(t)
	broken := filepath.Join(u.home, "broken.yaml")
	writeFile(t, broken, "version: 1\nsandbox:\n  bogus: [\n")
	dial := u.serve(t)
	tests := []struct {
		name    string
		o       launchOptions
		program string
	}{
		{"an invalid policy", launchOptions{policy: broken}, "/bin/true"},
		{"a missing policy", launchOptions{policy: filepath.Join(u.home, "none.yaml")}, "/bin/true"},
		{"an unknown profile", launchOptions{profiles: []string{"bogus"}}, "/bin/true"},
		{"none with others", launchOptions{profiles: []string{"none", "claude"}}, "/bin/true"},
		{"a missing workspace", launchOptions{workspace: []string{"missing"}}, "/bin/true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, err := launchThroughDaemon(context.Background(), dial, u.request(tt.o, tt.program))
			if err != nil {
				t.Fatal(err)
			}
			_, here := u.a.launchSetupHere(tt.o, tt.program, u.repo, launchABI, nil)
			if here == nil {
				t.Fatal("set up here without an error")
			}
			if ans.Local != here.Error() {
				t.Errorf("the daemon declined with %q, here the error is %q", ans.Local, here)
			}
			var s *launchSetup
			if said := u.said(func() { s = u.a.launchSetupByDaemon(tt.o, tt.program, u.repo, launchABI) }); s != nil || said != "" {
				t.Errorf("setup %v, said %q: want none, silently", s, said)
			}
		})
	}
	// A launch of another moat binary is set up by its own code.
	req := u.request(launchOptions{profiles: []string{"none"}}, "/bin/true")
	req.Executable = "/bin/true"
	ans, err := launchThroughDaemon(context.Background(), dial, req)
	if err != nil || !strings.Contains(ans.Local, "another moat") {
		t.Errorf("another moat binary: %+v, %v: want declined", ans, err)
	}
}

func TestSandboxLaunchMethodRefuses(t *testing.T) {
	u := newLaunchUser(t)
	services := newDaemonServices(u.a, decide.Options{Warn: func(string) {}})
	t.Cleanup(services.close)
	m := sandboxLaunchMethod(services, sandbox.NewCache(0, nil))
	good, err := json.Marshal(u.request(launchOptions{profiles: []string{"none"}}, "/bin/true"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		params string
		peer   daemon.Peer
		want   string
	}{
		{"a TCP peer", string(good), daemon.Peer{}, "unix socket"},
		{"not JSON", `{"cwd":`, daemon.Peer{Local: true}, "params"},
		{"an unknown field", `{"bogus":1}`, daemon.Peer{Local: true}, "unknown field"},
		{"a relative cwd", strings.Replace(string(good), `"cwd":"`+u.repo, `"cwd":"rel`, 1), daemon.Peer{Local: true}, "absolute"},
		{"no ABI", strings.Replace(string(good), `"abi":7`, `"abi":0`, 1), daemon.Peer{Local: true}, "Landlock ABI"},
	}
	for _, tt := range tests {
		_, err := m(context.Background(), json.RawMessage(tt.params), tt.peer)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	// An environment the daemon does not serve is left to the launch.
	res, err := m(context.Background(), json.RawMessage(strings.Replace(string(good), `"env":{`, `"env":{"SECRET":"x",`, 1)), daemon.Peer{Local: true})
	if err != nil || res.(launchAnswer).Local == "" {
		t.Errorf("a foreign environment: %+v, %v: want declined", res, err)
	}
	if res, err := m(context.Background(), good, daemon.Peer{Local: true}); err != nil || res.(launchAnswer).Local != "" {
		t.Fatalf("a good request: %+v, %v", res, err)
	}
}

// fakeDaemon answers every request line with answer (or closes the connection when
// answer is empty).
func fakeDaemon(t *testing.T, dir, answer string) {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dir, "daemon.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			if answer != "" {
				c.Write([]byte(answer + "\n"))
			}
			c.Close()
		}
	}()
}

// TestLaunchSetupFallsBack: with no daemon, or one that fails, declines, or answers
// garbage or a setup that does not hold, the launch is set up here, exactly as without a
// daemon; only a daemon that misbehaves is warned about.
func TestLaunchSetupFallsBack(t *testing.T) {
	o := launchOptions{profiles: []string{"none"}}
	// A good answer, from the method itself, for the bad ones to be made from.
	goodAnswer := func(t *testing.T, u *launchUser) launchAnswer {
		services := newDaemonServices(u.a, decide.Options{Warn: func(string) {}})
		defer services.close()
		params, err := json.Marshal(u.request(o, "/bin/true"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := sandboxLaunchMethod(services, sandbox.NewCache(0, nil))(context.Background(), params, daemon.Peer{Local: true})
		if err != nil {
			t.Fatal(err)
		}
		return res.(launchAnswer)
	}
	tests := []struct {
		name  string
		bad   func(*launchAnswer) // nil: the answer is the raw one
		raw   string
		warns bool
	}{
		{"no daemon", nil, "", false},
		{"hangs up", nil, "-", true},
		{"garbage", nil, "not json", true},
		{"an error", nil, `{"error":"boom"}`, true},
		{"an unknown result", nil, `{"result":{"rules":[]}}`, true},
		{"declined", func(a *launchAnswer) { *a = launchAnswer{Local: "no"} }, "", false},
		{"a carving handling fewer rights", func(a *launchAnswer) { a.Carving.Handled = 1 }, "", true},
		{"a carving for another ABI", func(a *launchAnswer) { a.Carving.ABI = 6 }, "", true},
		{"a relative rule", func(a *launchAnswer) { a.Carving.Paths[0] = "etc" }, "", true},
		{"rules without rights", func(a *launchAnswer) { a.Carving.Access = a.Carving.Access[1:] }, "", true},
		{"no section", func(a *launchAnswer) { a.Section = nil }, "", true},
		{"another home", func(a *launchAnswer) { a.Host.Home = "/elsewhere" }, "", true},
		{"another decision log", func(a *launchAnswer) { a.LogFiles = a.LogFiles[:1] }, "", true},
		{"a relative workspace", func(a *launchAnswer) { a.Workspace = []string{"ws"} }, "", true},
		{"no workspace", func(a *launchAnswer) { a.Workspace = nil }, "", true},
		{"a policy of unknown kind", func(a *launchAnswer) { a.Source.Kind = "bogus" }, "", true},
		{"a relative policy file", func(a *launchAnswer) { a.Source = launchSource{Kind: source.FromFlag, Path: "p.yaml", Name: "p.yaml"} }, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := newLaunchUser(t)
			paths := u.socket(t)
			switch {
			case tt.bad != nil:
				ans := goodAnswer(t, u)
				tt.bad(&ans)
				res, err := json.Marshal(ans)
				if err != nil {
					t.Fatal(err)
				}
				fakeDaemon(t, paths.Dir, `{"result":`+string(res)+`}`)
			case tt.raw == "-":
				fakeDaemon(t, paths.Dir, "")
			case tt.raw != "":
				fakeDaemon(t, paths.Dir, tt.raw)
			}
			var s *launchSetup
			said := u.said(func() { s = u.a.launchSetupByDaemon(o, "/bin/true", u.repo, launchABI) })
			if s != nil {
				t.Fatal("the answer was used")
			}
			if warned := strings.Contains(said, "setting it up here"); warned != tt.warns {
				t.Errorf("warned = %v, want %v: %s", warned, tt.warns, said)
			}
		})
	}
	// The good answer itself is used.
	u := newLaunchUser(t)
	res, err := json.Marshal(goodAnswer(t, u))
	if err != nil {
		t.Fatal(err)
	}
	fakeDaemon(t, u.socket(t).Dir, `{"result":`+string(res)+`}`)
	if s := u.a.launchSetupByDaemon(o, "/bin/true", u.repo, launchABI); s == nil {
		t.Fatal("a good answer was not used")
	}
}

// TestLaunchThroughDaemonNoDaemon: a socket nobody listens on is errNoDaemon.
func TestLaunchThroughDaemonNoDaemon(t *testing.T) {
	u := newLaunchUser(t)
	_, err := launchThroughDaemon(context.Background(), decide.DialUnix(filepath.Join(shortDir(t), "none.sock")), u.request(launchOptions{}, "/bin/true"))
	if !errors.Is(err, errNoDaemon) {
		t.Errorf("err = %v, want errNoDaemon", err)
	}
}

// BenchmarkSandboxLaunchMethod is the daemon's work for one launch with everything kept:
// finding the policy, the profiles and the workspace, and proving the kept carving, in a
// tree at rest (made more than two seconds before, so that its directories' times are
// proof: see sandbox's racyWindow).
func BenchmarkSandboxLaunchMethod(b *testing.B) {
	u := newLaunchUser(b)
	services := newDaemonServices(u.a, decide.Options{Warn: func(string) {}})
	b.Cleanup(services.close)
	m := sandboxLaunchMethod(services, sandbox.NewCache(0, nil))
	params, err := json.Marshal(u.request(launchOptions{profiles: []string{"none"}}, "/bin/true"))
	if err != nil {
		b.Fatal(err)
	}
	for range 2 { // made, then kept
		if _, err := m(context.Background(), params, daemon.Peer{Local: true}); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(2100 * time.Millisecond)
	for b.Loop() {
		res, err := m(context.Background(), params, daemon.Peer{Local: true})
		if err != nil || !res.(launchAnswer).Kept {
			b.Fatalf("%+v, %v", res, err)
		}
	}
}
