package engine

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fileid"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
)

// TestShellCorpusAsRoot decides the shell corpus again for a user whose home is /root
// (an agent run as root in a container): $HOME is the user's home whoever the user is, so
// every command that does not spell /root or /home itself gets the decision it gets for
// /home/u (TestShellCorpus checks that decision against the expected one).
func TestShellCorpusAsRoot(t *testing.T) {
	const root = "/root"
	host := pathset.Host{
		Home: root,
		Temp: []string{"/tmp", "/var/tmp", "/dev/shm"},
		Moat: []string{root + "/.config/moat/**", root + "/.local/state/moat/**", "/**/moat.yaml", "/usr/local/bin/moat"},
	}
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(root+"/project/moat.yaml", data, host)
	if err != nil {
		t.Fatal(err)
	}
	// /root is this machine's real home for root: its entries are not listed, so that
	// globs in it are judged as in /home/u, which holds nothing (globmatch.go).
	e, err := New(p, Options{Host: host, Files: unlistedUnder{root}})
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "shell", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	ctx := context.Background()
	user := corpusEngine(t)
	for _, f := range files {
		cases, err := loadShellCases(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range cases {
			if strings.Contains(tc.Cmd, "/root") || strings.Contains(tc.Cmd, "/home") || strings.Contains(tc.Cmd, "/Users") {
				continue
			}
			c, err := call.Canonicalize(call.ClaudeCode, "Bash", map[string]any{"command": tc.Cmd})
			if err != nil {
				t.Fatal(err)
			}
			uc, err := corpusCall(tc.Cmd)
			if err != nil {
				t.Fatal(err)
			}
			want := user.Evaluate(ctx, uc)
			c.Cwd, c.Project = root+"/project", root+"/project"
			if d := e.Evaluate(ctx, c); d.Verdict != want.Verdict {
				t.Errorf("%s: %s: as root %s (rule %s), as /home/u %s (rule %s)", f, shorten(tc.Cmd), d.Verdict, d.Rule, want.Verdict, want.Rule)
			}
		}
	}
}

// unlistedUnder is the machine's file system, but for the directories at or below dir,
// which cannot be listed.
type unlistedUnder struct{ dir string }

func (u unlistedUnder) Lstat(name string) (fs.FileInfo, error) { return fileid.OS{}.Lstat(name) }
func (u unlistedUnder) Stat(name string) (fs.FileInfo, error)  { return fileid.OS{}.Stat(name) }
func (u unlistedUnder) EvalSymlinks(name string) (string, error) {
	return fileid.OS{}.EvalSymlinks(name)
}
func (u unlistedUnder) Readlink(name string) (string, error) { return fileid.OS{}.Readlink(name) }
func (u unlistedUnder) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == u.dir || strings.HasPrefix(name, u.dir+"/") {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return fileid.OS{}.ReadDir(name)
}
