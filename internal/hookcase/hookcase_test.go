package hookcase

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, archive, wantErr string
	}{
		{"complete", "a case\nargs: hook codex --policy $HOME/p.yaml\n-- env --\nCI=true\n\n-- p.yaml --\nversion: 1\n-- stdin --\n{}\n-- stdout --\nout\n-- stderr --\n-- exit --\n2\n-- state/audit.jsonl --\n{}\n", ""},
		{"no args", "a case\n-- stdin --\n{}\n", "no line"},
		{"no stdin", "args: hook codex\n-- stdout --\n", "no stdin"},
		{"twice", "args: hook codex\n-- stdin --\n-- stdin --\n", "given twice"},
		{"bad env", "args: hook codex\n-- env --\nCI\n-- stdin --\n", "not KEY=VALUE"},
		{"bad exit", "args: hook codex\n-- stdin --\n-- exit --\ntwo\n", "exit section"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(txtar.Parse([]byte(tt.archive)))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(c.Args, " ") != "hook codex --policy $HOME/p.yaml" || c.Exit != 2 || c.Stdout != "out\n" ||
				len(c.Env) != 1 || len(c.Files) != 1 || c.Files[0].Name != "p.yaml" || c.State["state/audit.jsonl"] != "{}\n" {
				t.Errorf("got %+v", c)
			}
		})
	}
}

func TestPrepareAndState(t *testing.T) {
	c, err := Parse(txtar.Parse([]byte("args: hook codex --policy $HOME/p.yaml\n-- env --\nMOAT_POLICY=$PROJECT/x\n-- p.yaml --\nroot: $PROJECT\n-- stdin --\n")))
	if err != nil {
		t.Fatal(err)
	}
	h, err := c.Prepare(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(h.Dir, "p.yaml")); err != nil || string(b) != "root: "+h.Project+"\n" {
		t.Errorf("p.yaml: %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(h.Project, ".git")); err != nil || !fi.IsDir() {
		t.Errorf("the project is not a git work tree: %v", err)
	}
	if env := c.Environ(h); env[len(env)-1] != "MOAT_POLICY="+h.Project+"/x" || env[1] != "PATH="+Path {
		t.Errorf("environment %q", env)
	}
	if args := c.ExpandedArgs(h); args[3] != h.Dir+"/p.yaml" {
		t.Errorf("args %q", args)
	}
	state := filepath.Join(h.Dir, ".local", "state", "moat")
	os.MkdirAll(state, 0o755)
	os.WriteFile(filepath.Join(state, "audit.jsonl"), []byte(`{"cwd":"`+h.Project+`","latency_ms":1.25,"chain":"sha256:ab12"}`+"\n"), 0o600)
	os.WriteFile(filepath.Join(state, "audit.jsonl.lock"), nil, 0o600)
	files, err := h.State()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Name != "state/audit.jsonl" || string(files[0].Data) != `{"cwd":"$PROJECT","latency_ms":0,"chain":"sha256:…"}`+"\n" {
		t.Errorf("state %q", files)
	}
	ar := txtar.Parse([]byte("args: hook codex\n-- stdin --\n{}\n-- stdout --\nold\n"))
	SetAnswer(ar, "new\n", "", 2, files)
	again, err := Parse(txtar.Parse(txtar.Format(ar)))
	if err != nil {
		t.Fatal(err)
	}
	if d := again.Diff("new\n", "", 2, files); d != "" {
		t.Errorf("the answer written does not read back:\n%s", d)
	}
	if d := again.Diff("new\n", "", 0, files); !strings.Contains(d, "exit 0, want 2") {
		t.Errorf("a different exit status is not told: %q", d)
	}
	if d := again.Diff("new\n", "", 2, nil); d != "" {
		t.Errorf("state compared though not asked: %q", d)
	}
}
