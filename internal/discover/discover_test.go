package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/trust"
)

type fixture struct {
	home, repo, sub string
	d               dirs.Dirs
	store           *trust.Store
	warnings        []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	f.sub = filepath.Join(f.repo, "pkg", "deep")
	for _, d := range []string{f.home, filepath.Join(f.repo, ".git"), f.sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d, err := dirs.FromEnv(func(k string) string {
		if k == "HOME" {
			return f.home
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	f.d = d
	f.store = trust.Open(d.TrustStore())
	return f
}

func (f *fixture) find(t *testing.T, o Options) Source {
	t.Helper()
	src, err := f.tryFind(o)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return src
}

func (f *fixture) tryFind(o Options) (Source, error) {
	f.warnings = nil
	if o.Cwd == "" {
		o.Cwd = f.sub
	}
	o.Dirs, o.Trust = f.d, f.store
	o.Warn = func(s string) { f.warnings = append(f.warnings, s) }
	return Find(o)
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNoPolicyAnywhereIsEmbeddedRecommended(t *testing.T) {
	f := newFixture(t)
	src := f.find(t, Options{})
	if src.Kind != FromEmbedded || src.Name != "embedded:recommended" || len(src.Data) == 0 {
		t.Fatalf("got %+v", src)
	}
	if !strings.Contains(string(src.Data), "packs: [recommended]") {
		t.Errorf("embedded policy does not enable the recommended pack")
	}
}

func TestProjectPolicyTrust(t *testing.T) {
	f := newFixture(t)
	project := filepath.Join(f.repo, ProjectFile)
	write(t, project, "version: 1\ndefault: allow\n")

	// Untrusted: ignored, with a warning that says how to trust it.
	src := f.find(t, Options{})
	if src.Kind != FromEmbedded {
		t.Fatalf("untrusted project policy used: %+v", src)
	}
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], "not trusted") || !strings.Contains(f.warnings[0], "moat trust") {
		t.Errorf("warnings = %q", f.warnings)
	}

	// Trusted: used, found from a subdirectory of the repository.
	data, _ := os.ReadFile(project)
	if err := f.store.Trust(project, data, time.Now()); err != nil {
		t.Fatal(err)
	}
	src = f.find(t, Options{})
	if src.Kind != FromProject || src.Path != project || len(f.warnings) != 0 {
		t.Fatalf("trusted project policy not used: %+v %q", src, f.warnings)
	}

	// Changed: ignored again, falling through to the user policy when there is one.
	write(t, project, "version: 1\ndefault: allow\nrules: []\n")
	write(t, f.d.UserPolicy(), "version: 1\ndefault: ask\n")
	src = f.find(t, Options{})
	if src.Kind != FromUser {
		t.Fatalf("changed project policy: got %+v", src)
	}
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], "changed since you trusted it") {
		t.Errorf("warnings = %q", f.warnings)
	}

	// A symlink to a trusted file does not borrow its trust for another path... but a
	// link at the trusted path's real location resolves to the same key.
	link := filepath.Join(f.repo, "pkg", ProjectFile)
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(project)
	if err := f.store.Trust(project, data, time.Now()); err != nil {
		t.Fatal(err)
	}
	src = f.find(t, Options{})
	if src.Kind != FromProject || src.Path != link {
		t.Fatalf("link to a trusted policy: %+v", src)
	}
}

func TestExplicitSourcesComeFirstAndNeverFallThrough(t *testing.T) {
	f := newFixture(t)
	flagFile := filepath.Join(f.repo, "custom.yaml")
	envFile := filepath.Join(f.repo, "env.yaml")
	write(t, flagFile, "version: 1\n")
	write(t, envFile, "version: 1\n")
	write(t, f.d.UserPolicy(), "version: 1\n")

	if src := f.find(t, Options{Flag: "../../custom.yaml", Env: envFile}); src.Kind != FromFlag || src.Path != flagFile {
		t.Errorf("flag: %+v", src)
	}
	if src := f.find(t, Options{Env: envFile}); src.Kind != FromEnv || src.Path != envFile {
		t.Errorf("env: %+v", src)
	}
	if _, err := f.tryFind(Options{Flag: "/nonexistent/moat.yaml"}); err == nil {
		t.Error("a missing --policy file must be an error, not a fall-through")
	}
	if _, err := f.tryFind(Options{Env: "/nonexistent/moat.yaml"}); err == nil {
		t.Error("a missing MOAT_POLICY file must be an error, not a fall-through")
	}
	if _, err := f.tryFind(Options{Env: "relative.yaml"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative MOAT_POLICY: %v", err)
	}
	if src := f.find(t, Options{}); src.Kind != FromUser {
		t.Errorf("user: %+v", src)
	}
	// An unreadable user policy is an error too.
	if err := os.Chmod(f.d.UserPolicy(), 0); err == nil && os.Getuid() != 0 {
		if _, err := f.tryFind(Options{}); err == nil {
			t.Error("an unreadable user policy must be an error")
		}
	}
}

func TestProjectPolicySearchStopsAtRepositoryRoot(t *testing.T) {
	root := t.TempDir()
	// A moat.yaml above the repository must not be picked up.
	write(t, filepath.Join(root, ProjectFile), "version: 1\n")
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: x\n")
	sub := filepath.Join(repo, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if p, ok := ProjectPolicy(sub); ok {
		t.Errorf("found %s above the repository root", p)
	}
	write(t, filepath.Join(repo, "a", ProjectFile), "version: 1\n")
	if p, ok := ProjectPolicy(sub); !ok || p != filepath.Join(repo, "a", ProjectFile) {
		t.Errorf("nearest policy: %s %v", p, ok)
	}
	// Outside any repository only the directory itself is searched.
	outside := filepath.Join(root, "plain", "dir")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := RepoRoot(outside); r != "" {
		t.Fatalf("precondition: the temporary directory %s is inside a repository at %s", outside, r)
	}
	if p, ok := ProjectPolicy(outside); ok {
		t.Errorf("found %s outside a repository", p)
	}
	if RepoRoot(sub) != repo {
		t.Errorf("RepoRoot = %s", RepoRoot(sub))
	}
}
