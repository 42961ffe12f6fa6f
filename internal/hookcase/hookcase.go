// Package hookcase reads and writes the hook golden archives (testdata/hook/*.txtar): one
// agent event with its environment and files, and the answer moat gave, for tests that
// replay them in process or through the built binary.
package hookcase

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Path is the PATH of every replay: fixed, because what a PATH holds is part of a shell
// command's analysis, and the answers must not depend on the machine.
const Path = "/usr/local/bin:/usr/bin:/bin"

// Sections of an archive that are not files under HOME: what moat reads and what it
// answers. The files moat leaves in its state directory (the audit log, failure records)
// are answers too, in sections named state/FILE.
const (
	sectionEnv    = "env"
	sectionStdin  = "stdin"
	sectionStdout = "stdout"
	sectionStderr = "stderr"
	sectionExit   = "exit"
	statePrefix   = "state/"
)

// Case is one archive: the comment names the case and, on a line "args: …", moat's
// arguments; the env section adds KEY=VALUE lines to HOME and PATH; every other file
// but the answers is written under HOME. $HOME and $PROJECT are placeholders in args,
// env, stdin and files, and in the answers.
type Case struct {
	Args   []string
	Env    []string
	Stdin  string
	Files  []txtar.File
	Stdout string
	Stderr string
	Exit   int
	State  map[string]string // state/FILE → contents
}

// ParseFile reads the archive at path and the case it holds; the archive is returned too,
// for rewriting the expected answer (-update).
func ParseFile(path string) (*txtar.Archive, *Case, error) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		return nil, nil, err
	}
	c, err := Parse(ar)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return ar, c, nil
}

// Parse reads an archive.
func Parse(ar *txtar.Archive) (*Case, error) {
	c := &Case{State: map[string]string{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		if rest, ok := strings.CutPrefix(line, "args:"); ok {
			c.Args = strings.Fields(rest)
		}
	}
	if len(c.Args) == 0 {
		return nil, errors.New(`the comment has no line "args: …"`)
	}
	seen := map[string]bool{}
	for _, f := range ar.Files {
		if seen[f.Name] {
			return nil, fmt.Errorf("section %s given twice", f.Name)
		}
		seen[f.Name] = true
		switch {
		case f.Name == sectionEnv:
			for _, line := range strings.Split(string(f.Data), "\n") {
				if line = strings.TrimSpace(line); line == "" {
					continue
				}
				if !strings.Contains(line, "=") {
					return nil, fmt.Errorf("env line %q is not KEY=VALUE", line)
				}
				c.Env = append(c.Env, line)
			}
		case f.Name == sectionStdin:
			c.Stdin = string(f.Data)
		case f.Name == sectionStdout:
			c.Stdout = string(f.Data)
		case f.Name == sectionStderr:
			c.Stderr = string(f.Data)
		case f.Name == sectionExit:
			n, err := strconv.Atoi(strings.TrimSpace(string(f.Data)))
			if err != nil {
				return nil, fmt.Errorf("exit section: %w", err)
			}
			c.Exit = n
		case strings.HasPrefix(f.Name, statePrefix):
			c.State[f.Name] = string(f.Data)
		default:
			c.Files = append(c.Files, f)
		}
	}
	if !seen[sectionStdin] {
		return nil, errors.New("no stdin section")
	}
	return c, nil
}

// Home is a fresh HOME prepared for a case: the project (a git work tree, and the working
// directory) and the case's files are in place.
type Home struct {
	Dir, Project string
}

// Prepare lays out the case under dir, an empty directory.
func (c *Case) Prepare(dir string) (Home, error) {
	h := Home{Dir: dir, Project: filepath.Join(dir, "project")}
	if err := os.MkdirAll(filepath.Join(h.Project, ".git"), 0o755); err != nil {
		return h, err
	}
	for _, f := range c.Files {
		name := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return h, err
		}
		if err := os.WriteFile(name, []byte(h.Expand(string(f.Data))), 0o644); err != nil {
			return h, err
		}
	}
	return h, nil
}

// Expand replaces the placeholders with the paths of h.
func (h Home) Expand(s string) string {
	return strings.NewReplacer("$PROJECT", h.Project, "$HOME", h.Dir).Replace(s)
}

// Unexpand writes the paths of h back as placeholders, and masks the IDs and keys of
// approvals, which hash the call's directory (a new temporary one in every run).
func (h Home) Unexpand(s string) string {
	s = strings.NewReplacer(h.Project, "$PROJECT", h.Dir, "$HOME").Replace(s)
	s = approvalID.ReplaceAllString(s, "${1}$$ID")
	return approvalKey.ReplaceAllString(s, `"hash": "$$KEY"`)
}

var (
	approvalID  = regexp.MustCompile(`(moat (?:approve|deny) |approval )[0-9a-f]{4,64}\b`)
	approvalKey = regexp.MustCompile(`"hash": "[0-9a-f]{64}"`)
)

// Environ is the case's environment in h, KEY=VALUE, the case's env last.
func (c *Case) Environ(h Home) []string {
	env := []string{"HOME=" + h.Dir, "PATH=" + Path}
	for _, kv := range c.Env {
		env = append(env, h.Expand(kv))
	}
	return env
}

// ExpandedArgs are the case's arguments in h.
func (c *Case) ExpandedArgs(h Home) []string {
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = h.Expand(a)
	}
	return args
}

// Figures of a record that differ from run to run: the time the decision took, and so
// the hash that chains a record to the one before (logs --verify checks the chain).
var (
	latency = regexp.MustCompile(`"latency_ms":[0-9.e+-]+`)
	chain   = regexp.MustCompile(`"chain":"sha256:[0-9a-f]+"`)
	// The times of approvals (approvals.json), which a binary takes from the real clock.
	approvalTimes = regexp.MustCompile(`"(created|expires|answered)": "[^"]*"`)
)

// State returns the files moat left in its state directory under h, but for lock files,
// as state/NAME sections with the paths written back and the varying figures masked.
func (h Home) State() ([]txtar.File, error) {
	dir := filepath.Join(h.Dir, ".local", "state", "moat")
	var files []txtar.File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && path == dir {
			return filepath.SkipDir
		}
		// The daemon's audit database (audit.db and SQLite's files beside it) is a copy
		// of the JSONL log that the goldens hold.
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".lock") || strings.HasPrefix(d.Name(), "audit.db") {
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
		text := latency.ReplaceAllString(h.Unexpand(string(data)), `"latency_ms":0`)
		text = chain.ReplaceAllString(text, `"chain":"sha256:…"`)
		text = approvalTimes.ReplaceAllString(text, `"$1": "…"`)
		files = append(files, txtar.File{Name: statePrefix + filepath.ToSlash(rel), Data: []byte(text)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the state directory: %w", err)
	}
	return files, nil
}

// SetAnswer writes an answer into the archive's stdout, stderr, exit and state sections,
// after the inputs in that order.
func SetAnswer(ar *txtar.Archive, stdout, stderr string, code int, state []txtar.File) {
	var files []txtar.File
	for _, f := range ar.Files {
		switch {
		case f.Name == sectionStdout, f.Name == sectionStderr, f.Name == sectionExit, strings.HasPrefix(f.Name, statePrefix):
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

// Diff describes how a run's answer differs from the case's, or returns "" when it is the
// same. State files are compared when state is not nil.
func (c *Case) Diff(stdout, stderr string, code int, state []txtar.File) string {
	var b strings.Builder
	if code != c.Exit || stdout != c.Stdout || stderr != c.Stderr {
		fmt.Fprintf(&b, "exit %d, want %d\nstdout:\n%s\nwant stdout:\n%s\nstderr:\n%s\nwant stderr:\n%s", code, c.Exit, stdout, c.Stdout, stderr, c.Stderr)
	}
	if state == nil {
		return b.String()
	}
	got := map[string]string{}
	for _, f := range state {
		got[f.Name] = string(f.Data)
	}
	for name, want := range c.State {
		if got[name] != want {
			fmt.Fprintf(&b, "%s:\n%s\nwant:\n%s", name, got[name], want)
		}
	}
	for name, text := range got {
		if _, ok := c.State[name]; !ok {
			fmt.Fprintf(&b, "moat wrote %s, which the golden does not have:\n%s", name, text)
		}
	}
	return b.String()
}
