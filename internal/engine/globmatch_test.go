package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
)

// TestGlobsJudgedByEntries decides globs in a canary project on disk: a glob of the
// agent's own line is judged by the entries it names there (shell.Env.Entries), so that
// `tar cf ../out.tar *` is allowed where no key is, and still denied where one is, while a
// line that may make entries before the glob expands is judged by the pattern.
func TestGlobsJudgedByEntries(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	project := filepath.Join(home, "proj")
	for rel, text := range map[string]string{
		"home/.ssh/id_rsa":                 "canary, not a key",
		"home/proj/Makefile":               "all:\n\ttrue\n",
		"home/proj/build.sh":               "true\n",
		"home/proj/build.log":              "ok\n",
		"home/proj/dist/app.js":            "x\n",
		"home/proj/pkg/a.go":               "package pkg\n",
		"home/proj/pkg/b.go":               "package pkg\n",
		"home/proj/keys/signing.moat-key":  "canary, not a key",
		"home/proj/creds/id_rsa":           "canary, not a key",
		"home/proj/creds/README":           "x\n",
		"home/proj/src/main.c":             "int main(){}\n",
		"home/proj/src/.hidden/notes.txt":  "x\n",
		"home/other/proj2/readme.txt":      "x\n",
		"home/proj/.git/HEAD":              "ref: refs/heads/main\n",
		"home/proj/build/out/artifact.bin": "x\n",
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Links a repository can carry, or an earlier call made: to the canary key, to the
	// directory holding it, to an ordinary file.
	for name, target := range map[string]string{
		"home/proj/docs/notes.txt": "home/.ssh/id_rsa",
		"home/proj/docs/sshdir":    "home/.ssh",
		"home/proj/pkg/c.go":       "home/proj/pkg/a.go",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, target), filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	host := pathset.Host{Home: home, Temp: []string{"/tmp"}, Moat: []string{home + "/.config/moat/**", "/**/moat.yaml"}}
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(policy.EmbeddedPrefix+policy.DefaultTemplate, data, host)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p, Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want call.Verdict
		why  string
	}{
		{"rm -f build.*", call.Allow, "build.sh and build.log, no key"},
		{"grep -rn TODO *", call.Allow, "the project's entries, none a key"},
		{"cd pkg && tar cf ../out.tar *", call.Allow, "two Go files"},
		{"cd keys && tar cf ../out.tar *", call.Deny, "the glob names signing.moat-key"},
		{"rm -f keys/*.moat-key", call.Deny, "the glob names signing.moat-key"},
		{"rm -f pkg/*.moat-key", call.Allow, "nothing matches: rm gets a name no file has"},
		{"cp dist/* /tmp/out/", call.Allow, "app.js"},
		{"cp creds/* /tmp/out/", call.Ask, "the glob names creds/id_rsa"},
		{"cat creds/R*", call.Allow, "only the README"},
		{"rm -rf *", call.Ask, "empties the project, which is deleting it"},
		{"rm -rf build/*", call.Allow, "empties a directory inside the project"},
		{"cd .. && rm -rf *", call.Deny, "empties the home directory"},
		{"chmod +x src/*", call.Allow, "main.c"},
		// A read through a link is a read of what it leads to.
		{"cat docs/notes.txt", call.Ask, "a link to the key"},
		{"cat docs/*", call.Ask, "the glob names the link to the key"},
		{"grep -r BEGIN docs/sshdir", call.Ask, "a link to the key's directory"},
		{"cat pkg/c.go", call.Allow, "a link to an ordinary file"},
		// Lines that may make entries before the glob expands: judged by the pattern.
		{"ln -s ~/.ssh/id_rsa dist/k; cat dist/*", call.Ask, "the link is made first"},
		{"git pull && cat dist/*", call.Ask, "the pull may bring any file"},
		{"sh -c 'cat dist/*'", call.Ask, "code another program runs"},
		{"shopt -s dotglob; cat src/*", call.Ask, "dot names are matched too"},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			d := e.Evaluate(context.Background(), shellCall(tt.cmd, project))
			if d.Verdict != tt.want {
				t.Fatalf("%s (%s): %s by %s (%s), want %s", tt.cmd, tt.why, d.Verdict, d.Rule, d.Reason, tt.want)
			}
		})
	}
}

// TestFileToolReadsThroughLinks checks that a file tool's read of a link to a key is the
// key's read.
func TestFileToolReadsThroughLinks(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	key := filepath.Join(home, ".ssh", "id_ed25519")
	link := filepath.Join(home, "proj", "README.txt")
	for _, d := range []string{filepath.Dir(key), filepath.Dir(link)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(key, []byte("canary, not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(key, link); err != nil {
		t.Fatal(err)
	}
	host := pathset.Host{Home: home, Temp: []string{"/tmp"}, Moat: []string{home + "/.config/moat/**"}}
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(policy.EmbeddedPrefix+policy.DefaultTemplate, data, host)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(p, Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	c := toolCall(t, "Read", map[string]any{"file_path": link}, filepath.Dir(link))
	if d := e.Evaluate(context.Background(), c); d.Verdict != call.Ask {
		t.Fatalf("Read of a link to a key: %s by %s", d.Verdict, d.Rule)
	}
}
