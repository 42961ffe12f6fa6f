package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// writeTree writes files (relative path → content) under a new repository and returns its
// root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestExtends(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// rules are the ids of the compiled rules that are not a pack's, in order.
		rules []string
		packs []string
		// err holds the parts of the error, "FILE:LINE" relative to the repository first.
		err []string
	}{
		{
			name:  "pack by name",
			files: map[string]string{"moat.yaml": "version: 1\nextends: [recommended]\n"},
			packs: []string{"recommended"},
		},
		{
			name:  "pack by extends and packs is enabled once",
			files: map[string]string{"moat.yaml": "version: 1\nextends: [recommended]\npacks: [recommended]\n"},
			packs: []string{"recommended"},
		},
		{
			name: "own rules first, then the files in order, each with what it extends",
			files: map[string]string{
				"moat.yaml":        "version: 1\nextends: [team/a.moat.yaml, b.moat.yaml]\nrules:\n  - {id: own, command: ls, decision: allow}\n",
				"team/a.moat.yaml": "version: 1\nextends: [../c.moat.yaml]\nrules:\n  - {id: a, command: make, decision: allow}\n",
				"b.moat.yaml":      "version: 1\nrules:\n  - {id: b, command: curl, decision: deny}\n",
				"c.moat.yaml":      "version: 1\nrules:\n  - {id: c, command: wget, decision: deny}\n",
			},
			rules: []string{"own", "a", "c", "b"},
		},
		{
			name: "cycle",
			files: map[string]string{
				"moat.yaml":   "version: 1\nextends: [a.moat.yaml]\n",
				"a.moat.yaml": "version: 1\nextends: [moat.yaml]\n",
			},
			err: []string{"a.moat.yaml:2", "a cycle"},
		},
		{
			name:  "missing file",
			files: map[string]string{"moat.yaml": "version: 1\nextends: [x.moat.yaml]\n"},
			err:   []string{"moat.yaml:2", "no such file"},
		},
		{
			name:  "absolute path",
			files: map[string]string{"moat.yaml": "version: 1\nextends: [/etc/moat/x.yaml]\n"},
			err:   []string{"moat.yaml:2", "relative to this one"},
		},
		{
			name: "a setting in an included file",
			files: map[string]string{
				"moat.yaml":   "version: 1\nextends: [a.moat.yaml]\n",
				"a.moat.yaml": "version: 1\ndefault: allow\n",
			},
			err: []string{"a.moat.yaml:2", "default is a setting of the policy that extends this file"},
		},
		{
			name: "an error in an included file names its line",
			files: map[string]string{
				"moat.yaml":   "version: 1\nextends: [a.moat.yaml]\n",
				"a.moat.yaml": "version: 1\nrules:\n  - {id: x, command: ls, decision: maybe}\n",
			},
			err: []string{"a.moat.yaml:3", "decision must be"},
		},
		{
			name: "duplicate ids across files",
			files: map[string]string{
				"moat.yaml":   "version: 1\nextends: [a.moat.yaml]\nrules:\n  - {id: x, command: ls, decision: allow}\n",
				"a.moat.yaml": "version: 1\nrules:\n  - {id: x, command: make, decision: allow}\n",
			},
			err: []string{"a.moat.yaml:3", "duplicate rule id"},
		},
		{
			name: "a catch-all above extends",
			files: map[string]string{
				"moat.yaml":   "version: 1\nextends: [a.moat.yaml]\nrules:\n  - {id: all, decision: allow}\n",
				"a.moat.yaml": "version: 1\n",
			},
			err: []string{"moat.yaml:2", "can never match"},
		},
		{
			name:  "unknown pack",
			files: map[string]string{"moat.yaml": "version: 1\nextends: [recomended]\n"},
			err:   []string{"moat.yaml:2", `did you mean "recommended"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := writeTree(t, tt.files)
			path := filepath.Join(root, "moat.yaml")
			p, err := Load(path, []byte(tt.files["moat.yaml"]), testHost())
			if len(tt.err) > 0 {
				if err == nil {
					t.Fatalf("loaded, want an error with %q", tt.err)
				}
				msg := strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
				for _, part := range tt.err {
					if !strings.Contains(msg, part) {
						t.Errorf("error %q does not contain %q", msg, part)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var own []string
			for _, r := range p.Rules {
				if !strings.HasPrefix(r.Origin, "pack ") {
					own = append(own, r.ID)
				}
			}
			if !slices.Equal(own, tt.rules) || !slices.Equal(p.Packs, tt.packs) {
				t.Errorf("rules %q packs %q, want %q %q", own, p.Packs, tt.rules, tt.packs)
			}
		})
	}
}

func TestExtendsDepth(t *testing.T) {
	files := map[string]string{"moat.yaml": "version: 1\nextends: [f0.moat.yaml]\n"}
	for i := range MaxExtendsDepth + 2 {
		files[filepathName(i)] = "version: 1\nextends: [" + filepathName(i+1) + "]\n"
	}
	files[filepathName(MaxExtendsDepth+2)] = "version: 1\n"
	root := writeTree(t, files)
	_, err := Load(filepath.Join(root, "moat.yaml"), []byte(files["moat.yaml"]), testHost())
	if err == nil || !strings.Contains(err.Error(), "more than 8 deep") {
		t.Fatalf("err = %v, want the depth bound", err)
	}
}

func filepathName(i int) string { return "f" + string(rune('0'+i)) + ".moat.yaml" }

func TestExtendsEmbeddedHasNoFiles(t *testing.T) {
	_, err := Load(EmbeddedPrefix+"x", []byte("version: 1\nextends: [a.moat.yaml]\n"), testHost())
	if err == nil || !strings.Contains(err.Error(), "no file to resolve") {
		t.Fatalf("err = %v", err)
	}
}

func TestCombine(t *testing.T) {
	load := func(src string) *Policy {
		t.Helper()
		p, err := Load("/p/"+src[:4], []byte(src), testHost())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := load("version: 1\ndefault: allow\nfail: open\nhooks: {allow: explicit}\nforbid_allow: [shell]\nwrappers: [{name: w1}]\n")
	managed := load("version: 1\nfail: closed\nforbid_allow: [web.fetch]\nwrappers: [{name: w2}]\n")

	alone, overrides, err := Combine([]Layer{{Kind: "user", Policy: user}})
	if err != nil || alone != user || overrides != nil {
		t.Fatalf("one layer: %p %v %v, want the policy itself", alone, overrides, err)
	}
	c, overrides, err := Combine([]Layer{{Kind: LayerManaged, Policy: managed}, {Kind: "user", Policy: user}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Fail != FailClosed || c.Hooks.Allow != HookAllowExplicit || c.Default != call.Allow {
		t.Errorf("settings: fail %s hooks.allow %s default %s", c.Fail, c.Hooks.Allow, c.Default)
	}
	if c.ForbidAllow == nil || c.Managed() != managed || len(c.Layers) != 2 || len(c.Wrappers) != 2 {
		t.Errorf("combined: %+v", c)
	}
	var got []string
	for _, o := range overrides {
		got = append(got, o.Key+"@"+o.Layer)
	}
	if want := []string{"fail@user", "forbid_allow@user"}; !slices.Equal(got, want) {
		t.Errorf("overrides %q, want %q", got, want)
	}
	if _, _, err := Combine([]Layer{{Kind: LayerManaged, Policy: managed}}); err == nil {
		t.Error("a managed layer alone combined")
	}
}

func TestExtendsOutsideRepository(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	for name, content := range map[string]string{
		"outside.moat.yaml":        "version: 1\n",
		"repo/.git/HEAD":           "",
		"repo/moat.yaml":           "",
		"repo/sub/inside.moat.yml": "version: 1\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "outside.moat.yaml"), filepath.Join(repo, "link.moat.yaml")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	tests := []struct{ extends, err string }{
		{"../outside.moat.yaml", "lies outside"},
		{"link.moat.yaml", "lies outside"},
		{"sub/inside.moat.yml", ""},
	}
	for _, tt := range tests {
		doc := "version: 1\nextends: [" + tt.extends + "]\n"
		_, err := Load(filepath.Join(repo, "moat.yaml"), []byte(doc), testHost())
		if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("extends %s: err = %v, want %q", tt.extends, err, tt.err)
		}
	}
}
