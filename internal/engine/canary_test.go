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

// canary is a home directory on disk for tests that let moat read a real file system:
// files with canary text (no real key), links between them, and an engine with the
// recommended policy for that home.
type canary struct {
	root, home string
}

// newCanary makes an empty canary home under a fresh temporary directory (its real path,
// so that no link above it takes a write elsewhere).
func newCanary(t *testing.T) canary {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return canary{root: root, home: filepath.Join(root, "home")}
}

// path is the absolute path of rel, relative to the canary home.
func (c canary) path(rel string) string { return filepath.Join(c.home, rel) }

// files writes each file, by its path relative to the home, with its text.
func (c canary) files(t *testing.T, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := c.path(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// links makes each symbolic link, by its path relative to the home, to its target,
// relative to the home too (it need not exist: a dangling link).
func (c canary) links(t *testing.T, links map[string]string) {
	t.Helper()
	for rel, target := range links {
		p := c.path(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(c.path(target), p); err != nil {
			t.Fatal(err)
		}
	}
}

// engine is an engine with the recommended policy for the canary home, moat's files
// being its configuration and the patterns given.
func (c canary) engine(t *testing.T, moat ...string) *Engine {
	t.Helper()
	host := pathset.Host{Home: c.home, Temp: []string{"/tmp"}, Moat: append([]string{c.home + "/.config/moat/**"}, moat...)}
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
	return e
}

// verdictCase is a shell command of the agent's and the verdict it must get, with why.
type verdictCase struct {
	cmd  string
	want call.Verdict
	why  string
}

// decideEach decides each case's command with e, run in dir, each as a subtest.
func decideEach(t *testing.T, e *Engine, dir string, cases []verdictCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.cmd, func(t *testing.T) {
			d := e.Evaluate(context.Background(), shellCall(tt.cmd, dir))
			if d.Verdict != tt.want {
				t.Fatalf("%s (%s): %s by %s (%s), want %s", tt.cmd, tt.why, d.Verdict, d.Rule, d.Reason, tt.want)
			}
		})
	}
}
