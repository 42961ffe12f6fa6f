package source

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

	// Changed: the version the user trusted stays in force, never a fallback to the user
	// policy (which may be looser), and the change is reported.
	write(t, project, "version: 1\ndefault: allow\nrules: []\n")
	write(t, f.d.UserPolicy(), "version: 1\ndefault: ask\n")
	src = f.find(t, Options{})
	if src.Kind != FromProject || src.Path != project || string(src.Data) != string(data) {
		t.Fatalf("changed project policy: want the trusted version of %s, got %+v", project, src)
	}
	if !strings.Contains(src.Name, project+" (as you trusted it, sha256 ") {
		t.Errorf("name %q does not say the trusted version is in force", src.Name)
	}
	if len(src.Skipped) != 1 || src.Skipped[0].Status != trust.Changed || src.Skipped[0].Path != project {
		t.Errorf("skipped = %+v", src.Skipped)
	}
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], "changed since you trusted it; moat keeps enforcing the version you trusted") {
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
	if p, ok, err := ProjectPolicy(sub); ok || err != nil {
		t.Errorf("found %s above the repository root (%v)", p, err)
	}
	write(t, filepath.Join(repo, "a", ProjectFile), "version: 1\n")
	if p, ok, err := ProjectPolicy(sub); !ok || err != nil || p != filepath.Join(repo, "a", ProjectFile) {
		t.Errorf("nearest policy: %s %v %v", p, ok, err)
	}
	// Outside any repository only the directory itself is searched.
	outside := filepath.Join(root, "plain", "dir")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := RepoRoot(outside); r != "" {
		t.Fatalf("precondition: the temporary directory %s is inside a repository at %s", outside, r)
	}
	if p, ok, err := ProjectPolicy(outside); ok || err != nil {
		t.Errorf("found %s outside a repository (%v)", p, err)
	}
	if RepoRoot(sub) != repo {
		t.Errorf("RepoRoot = %s", RepoRoot(sub))
	}
}

// trustFile trusts the current content of path.
func (f *fixture) trustFile(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.Trust(path, data, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// A trusted policy that changed and whose trusted copy is gone fails: neither the
// changed file nor a fallback applies.
func TestChangedWithoutTrustedCopyFails(t *testing.T) {
	f := newFixture(t)
	project := filepath.Join(f.repo, ProjectFile)
	write(t, project, "version: 1\ndefault: deny\n")
	f.trustFile(t, project)
	write(t, project, "version: 1\ndefault: allow\n")
	copies, err := filepath.Glob(filepath.Join(filepath.Dir(f.d.TrustStore()), "trusted", "*"))
	if err != nil || len(copies) != 1 {
		t.Fatalf("trusted copies: %v %v", copies, err)
	}
	if err := os.Remove(copies[0]); err != nil {
		t.Fatal(err)
	}
	_, err = f.tryFind(Options{})
	if err == nil || !strings.Contains(err.Error(), "no copy of the version you trusted") || !strings.Contains(err.Error(), "will not fall back") {
		t.Fatalf("Find = %v; want an error saying the trusted version is missing", err)
	}
}

// A project policy that is a link out of its repository does not borrow the trust of the
// file it points to; a link inside the repository is the file it points to.
func TestProjectPolicyLinkOutOfRepository(t *testing.T) {
	f := newFixture(t)
	// Another project, trusted, whose policy allows what the embedded one would ask.
	other := filepath.Join(filepath.Dir(f.repo), "trusted-project")
	write(t, filepath.Join(other, ".git", "HEAD"), "ref: x\n")
	trusted := filepath.Join(other, ProjectFile)
	write(t, trusted, "version: 1\ndefault: allow\n")
	f.trustFile(t, trusted)

	link := filepath.Join(f.repo, ProjectFile)
	if err := os.Symlink(trusted, link); err != nil {
		t.Fatal(err)
	}
	src := f.find(t, Options{})
	if src.Kind != FromEmbedded {
		t.Fatalf("a link into a trusted project borrowed its trust: %+v", src)
	}
	if len(src.Skipped) != 1 || src.Skipped[0].Path != link || src.Skipped[0].Status != trust.Untrusted ||
		!strings.Contains(src.Skipped[0].Why, "outside the repository "+f.repo) {
		t.Errorf("skipped = %+v", src.Skipped)
	}

	// The same through a linked directory: the session's project is the repository,
	// whose pkg directory is a link into the trusted project.
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	linkedDir := filepath.Join(f.repo, "vendored")
	if err := os.Symlink(other, linkedDir); err != nil {
		t.Fatal(err)
	}
	src = f.find(t, Options{Cwd: linkedDir, Project: f.repo})
	if src.Kind != FromEmbedded {
		t.Fatalf("a directory link into a trusted project borrowed its trust: %+v", src)
	}

	// Inside the repository, a link is the file it points to, trusted as that file.
	real := filepath.Join(f.repo, "policies", "moat.yaml")
	write(t, real, "version: 1\ndefault: deny\n")
	f.trustFile(t, real)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if src := f.find(t, Options{}); src.Kind != FromProject || src.Path != link {
		t.Errorf("link inside the repository: %+v", src)
	}
}

// The project whose policy applies is the session's: a call whose directory left the
// repository keeps the project's policy.
func TestSessionProjectGovernsCallsOutsideIt(t *testing.T) {
	f := newFixture(t)
	project := filepath.Join(f.repo, ProjectFile)
	write(t, project, "version: 1\ndefault: deny\n")
	f.trustFile(t, project)
	nested := filepath.Join(f.repo, "pkg", ProjectFile)
	write(t, nested, "version: 1\ndefault: ask\n")
	f.trustFile(t, nested)
	outside := t.TempDir()
	noRepo := filepath.Join(filepath.Dir(f.repo), "scratch")
	write(t, filepath.Join(noRepo, ProjectFile), "version: 1\ndefault: deny\n")
	f.trustFile(t, filepath.Join(noRepo, ProjectFile))

	tests := []struct {
		name, cwd, project string
		want               string // the policy file in force, "" for the embedded one
	}{
		{"no project, cwd outside: not the project's", outside, "", ""},
		{"cwd outside the project", outside, f.repo, project},
		{"cwd outside, project is a subdirectory of the repository", outside, filepath.Join(f.repo, "pkg"), nested},
		{"cwd inside: the nearest policy to the call", f.sub, f.repo, nested},
		{"cwd elsewhere in the repository", f.repo, filepath.Join(f.repo, "pkg"), project},
		{"project out of any repository", outside, noRepo, filepath.Join(noRepo, ProjectFile)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := f.find(t, Options{Cwd: tt.cwd, Project: tt.project})
			if src.Path != tt.want {
				t.Errorf("policy in force: %q (%s), want %q", src.Path, src.Kind, tt.want)
			}
		})
	}
}

// A project policy nobody trusted does not hide the trusted one above it: planting an
// untrusted moat.yaml in a subdirectory must not switch the project's policy off.
func TestUntrustedPolicyDoesNotHideTrustedOne(t *testing.T) {
	f := newFixture(t)
	project := filepath.Join(f.repo, ProjectFile)
	write(t, project, "version: 1\ndefault: deny\n")
	f.trustFile(t, project)
	planted := filepath.Join(f.sub, ProjectFile)
	write(t, planted, "version: 1\ndefault: allow\n")
	src := f.find(t, Options{})
	if src.Path != project {
		t.Fatalf("policy in force: %+v, want %s", src, project)
	}
	if len(src.Skipped) != 1 || src.Skipped[0].Path != planted || len(f.warnings) != 1 {
		t.Errorf("skipped = %+v, warnings %q", src.Skipped, f.warnings)
	}
}
