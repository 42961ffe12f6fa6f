package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// TestGlobsJudgedByEntries decides globs in a canary project on disk: a glob of the
// agent's own line is judged by the entries it names there (shell.Env.Entries), so that
// `tar cf ../out.tar *` is allowed where no key is, and still denied where one is, while a
// line that may make entries before the glob expands is judged by the pattern.
func TestGlobsJudgedByEntries(t *testing.T) {
	c := newCanary(t)
	project := c.path("proj")
	c.files(t, map[string]string{
		".ssh/id_rsa":                 "canary, not a key",
		"proj/Makefile":               "all:\n\ttrue\n",
		"proj/build.sh":               "true\n",
		"proj/build.log":              "ok\n",
		"proj/dist/app.js":            "x\n",
		"proj/pkg/a.go":               "package pkg\n",
		"proj/pkg/b.go":               "package pkg\n",
		"proj/keys/signing.moat-key":  "canary, not a key",
		"proj/creds/id_rsa":           "canary, not a key",
		"proj/creds/README":           "x\n",
		"proj/src/main.c":             "int main(){}\n",
		"proj/src/.hidden/notes.txt":  "x\n",
		"other/proj2/readme.txt":      "x\n",
		"proj/.git/HEAD":              "ref: refs/heads/main\n",
		"proj/build/out/artifact.bin": "x\n",
	})
	// Links a repository can carry, or an earlier call made: to the canary key, to the
	// directory holding it, to an ordinary file.
	c.links(t, map[string]string{
		"proj/docs/notes.txt": ".ssh/id_rsa",
		"proj/docs/sshdir":    ".ssh",
		"proj/pkg/c.go":       "proj/pkg/a.go",
	})
	e := c.engine(t, "/**/moat.yaml")
	decideEach(t, e, project, []verdictCase{
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
	})
}

// TestFileToolReadsThroughLinks checks that a file tool's read of a link to a key is the
// key's read.
func TestFileToolReadsThroughLinks(t *testing.T) {
	c := newCanary(t)
	c.files(t, map[string]string{".ssh/id_ed25519": "canary, not a key"})
	c.links(t, map[string]string{"proj/README.txt": ".ssh/id_ed25519"})
	link := c.path("proj/README.txt")
	e := c.engine(t)
	read := toolCall(t, "Read", map[string]any{"file_path": link}, filepath.Dir(link))
	if d := e.Evaluate(context.Background(), read); d.Verdict != call.Ask {
		t.Fatalf("Read of a link to a key: %s by %s", d.Verdict, d.Rule)
	}
}

// TestCopyIntoDirectoryOnDisk decides copies whose destination is a directory on disk: the
// source goes into it under its own name (cp -r build ~ writes ~/build), unless something
// earlier in the line may have made or removed the destination, or -T makes the
// destination the copy itself.
func TestCopyIntoDirectoryOnDisk(t *testing.T) {
	c := newCanary(t)
	project := c.path("proj")
	c.files(t, map[string]string{
		".ssh/id_rsa":           "canary, not a key",
		".config/moat/moat.yml": "canary\n",
		"proj/build/app.js":     "x\n",
		"proj/notes.txt":        "x\n",
		"proj/moat/moat.yml":    "x\n",
	})
	e := c.engine(t)
	decideEach(t, e, project, []verdictCase{
		{"cp -r build ~", call.Allow, "the home directory exists: the copy is ~/build"},
		{"mv notes.txt ~", call.Allow, "moved into the home directory as ~/notes.txt"},
		{"cp -rT build ~", call.Deny, "-T: the copy is the home directory itself, moat's files included"},
		{"rm -rf ~/old; cp -r build ~", call.Deny, "an earlier command changes the home directory: judged as writing all of it"},
		{"cp -r build ~/.config", call.Allow, "the copy is ~/.config/build, beside moat's files"},
		{"cp -r moat ~/.config", call.Deny, "the copy is ~/.config/moat, moat's own directory"},
	})
}
