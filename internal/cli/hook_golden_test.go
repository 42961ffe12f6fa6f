package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

var updateHookGoldens = flag.Bool("update", false, "rewrite the stdout, stderr and exit sections of testdata/hook/*.txtar")

// goldenPath is the PATH of every golden run: fixed, because what a PATH holds is part of
// a shell command's analysis, and the goldens must not depend on the machine.
const goldenPath = "/usr/local/bin:/usr/bin:/bin"

// goldenNow is the clock of every golden run, so that the records' times are exact.
var goldenNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// hookGolden sections that are not files: what the hook reads and what it answers. The
// files moat leaves in its state directory (the audit log, failure records) are answers
// too, in sections named state/FILE.
const (
	sectionEnv    = "env"
	sectionStdin  = "stdin"
	sectionStdout = "stdout"
	sectionStderr = "stderr"
	sectionExit   = "exit"
	stateSection  = "state/"
)

// Figures of a record that differ from run to run: the time the decision took, and so
// the hash that chains a record to the one before (logs --verify checks the chain).
var (
	latency = regexp.MustCompile(`"latency_ms":[0-9.e+-]+`)
	chain   = regexp.MustCompile(`"chain":"sha256:[0-9a-f]+"`)
)

// TestHookGoldens runs each testdata/hook/*.txtar through Main in process, as an agent runs
// its hook, and compares the answer with the archive's stdout, stderr and exit sections
// byte for byte. The archive's comment names the case and, on a line "args: …", moat's
// arguments; its env section adds KEY=VALUE lines to a fixed environment (HOME and PATH);
// every other file is written under the fresh HOME. $HOME and $PROJECT (HOME/project, a
// git work tree and the working directory) are expanded in args, env and stdin, and
// written back in the answer. -update rewrites the answers from today's behaviour.
func TestHookGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "hook", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no testdata/hook/*.txtar")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			g, err := readHookGolden(ar)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			stdout, stderr, code, state := g.run(t)
			if *updateHookGoldens {
				g.setAnswer(ar, stdout, stderr, code, state)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if code != g.exit || stdout != g.stdout || stderr != g.stderr {
				t.Errorf("%s\nexit %d, want %d\nstdout:\n%s\nwant stdout:\n%s\nstderr:\n%s\nwant stderr:\n%s(go test -run TestHookGoldens -update rewrites the goldens)",
					file, code, g.exit, stdout, g.stdout, stderr, g.stderr)
			}
			got := map[string]string{}
			for _, f := range state {
				got[f.Name] = string(f.Data)
			}
			for name, want := range g.state {
				if got[name] != want {
					t.Errorf("%s: %s:\n%s\nwant:\n%s", file, name, got[name], want)
				}
			}
			for name := range got {
				if _, ok := g.state[name]; !ok {
					t.Errorf("%s: moat wrote %s, which the golden does not have:\n%s", file, name, got[name])
				}
			}
		})
	}
}

// hookGolden is one archive read: the run to make and the answer expected.
type hookGolden struct {
	args   []string
	env    []string
	stdin  string
	files  []txtar.File
	stdout string
	stderr string
	exit   int
	state  map[string]string
}

func readHookGolden(ar *txtar.Archive) (*hookGolden, error) {
	g := &hookGolden{state: map[string]string{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "args:"); ok {
			g.args = strings.Fields(rest)
		}
	}
	if len(g.args) == 0 {
		return nil, fmt.Errorf("the comment has no line \"args: …\"")
	}
	seen := map[string]bool{}
	for _, f := range ar.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("section %s given twice", f.Name)
		}
		seen[f.Name] = true
		switch f.Name {
		case sectionEnv:
			for _, line := range strings.Split(string(f.Data), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					if !strings.Contains(line, "=") {
						return nil, fmt.Errorf("env line %q is not KEY=VALUE", line)
					}
					g.env = append(g.env, line)
				}
			}
		case sectionStdin:
			g.stdin = string(f.Data)
		case sectionStdout:
			g.stdout = string(f.Data)
		case sectionStderr:
			g.stderr = string(f.Data)
		case sectionExit:
			n, err := strconv.Atoi(strings.TrimSpace(string(f.Data)))
			if err != nil {
				return nil, fmt.Errorf("exit section: %w", err)
			}
			g.exit = n
		default:
			if strings.HasPrefix(f.Name, stateSection) {
				g.state[f.Name] = string(f.Data)
				continue
			}
			g.files = append(g.files, f)
		}
	}
	if !seen[sectionStdin] {
		return nil, fmt.Errorf("no stdin section")
	}
	return g, nil
}

// run runs moat in a fresh HOME and returns its answer, with the temporary paths written
// back as $PROJECT and $HOME.
func (g *hookGolden) run(t *testing.T) (stdout, stderr string, code int, state []txtar.File) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	expand := strings.NewReplacer("$PROJECT", project, "$HOME", home).Replace
	for _, f := range g.files {
		name := filepath.Join(home, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(expand(string(f.Data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "PATH": goldenPath}
	for _, kv := range g.env {
		k, v, _ := strings.Cut(expand(kv), "=")
		vars[k] = v
	}
	args := make([]string, len(g.args))
	for i, a := range g.args {
		args[i] = expand(a)
	}
	var out, errOut bytes.Buffer
	code = Main(args, Env{
		Stdin:  strings.NewReader(expand(g.stdin)),
		Stdout: &out,
		Stderr: &errOut,
		Getenv: func(k string) string { return vars[k] },
		Getwd:  func() (string, error) { return project, nil },
		Now:    func() time.Time { return goldenNow },
		// Where moat would be installed: moat protects its own binary.
		Executable: func() (string, error) { return filepath.Join(home, ".local", "bin", "moat"), nil },
	})
	unexpand := strings.NewReplacer(project, "$PROJECT", home, "$HOME").Replace
	return unexpand(out.String()), unexpand(errOut.String()), code, readState(t, filepath.Join(home, ".local", "state", "moat"), unexpand)
}

// readState returns the files moat left in its state directory, but for lock files, as
// sections state/NAME with the paths written back and the varying figures masked.
func readState(t *testing.T, dir string, unexpand func(string) string) []txtar.File {
	t.Helper()
	var files []txtar.File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		text := latency.ReplaceAllString(unexpand(string(data)), `"latency_ms":0`)
		text = chain.ReplaceAllString(text, `"chain":"sha256:…"`)
		files = append(files, txtar.File{Name: stateSection + filepath.ToSlash(rel), Data: []byte(text)})
		return nil
	})
	if err != nil {
		t.Fatalf("reading the state directory: %v", err)
	}
	return files
}

// setAnswer writes the answer into the archive's stdout, stderr, exit and state sections,
// kept after the inputs in that order.
func (g *hookGolden) setAnswer(ar *txtar.Archive, stdout, stderr string, code int, state []txtar.File) {
	var files []txtar.File
	for _, f := range ar.Files {
		switch {
		case f.Name == sectionStdout, f.Name == sectionStderr, f.Name == sectionExit, strings.HasPrefix(f.Name, stateSection):
		default:
			files = append(files, f)
		}
	}
	files = append(files,
		txtar.File{Name: sectionStdout, Data: []byte(stdout)},
		txtar.File{Name: sectionStderr, Data: []byte(stderr)},
		txtar.File{Name: sectionExit, Data: []byte(strconv.Itoa(code) + "\n")})
	ar.Files = append(files, state...)
}
