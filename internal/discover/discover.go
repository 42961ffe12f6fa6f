// Package discover finds the policy that applies to a working directory: a flag, the
// environment, a trusted project file, the user's file, or the embedded default.
package discover

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/trust"
)

// Kind says where a policy came from.
type Kind string

// Policy sources, in the order they are tried.
const (
	FromFlag     Kind = "flag"     // --policy
	FromEnv      Kind = "env"      // MOAT_POLICY
	FromProject  Kind = "project"  // moat.yaml from the working directory up to the repository root, once trusted
	FromUser     Kind = "user"     // $XDG_CONFIG_HOME/moat/moat.yaml
	FromEmbedded Kind = "embedded" // the recommended policy built into moat
	// FromFile is a file named to validate, test or trust: not a source Find chooses.
	FromFile Kind = "file"
)

// EnvVar names the environment variable that selects a policy file.
const EnvVar = "MOAT_POLICY"

// ProjectFile is the name of a project policy.
const ProjectFile = "moat.yaml"

// MaxPolicyBytes bounds what moat reads as a policy.
const MaxPolicyBytes = 4 << 20

// Source is a policy document and where it came from.
type Source struct {
	Kind Kind
	// Path is the file's absolute path; empty for the embedded policy.
	Path string
	// Name is what errors and records call it: Path, or "embedded:recommended".
	Name string
	Data []byte
	// Skipped, when set, is a project policy that would have come first but was not
	// used, because it is not trusted or changed since it was.
	Skipped *Skipped
}

// Skipped is a project policy Find passed over.
type Skipped struct {
	Path   string
	Status trust.Status // trust.Untrusted or trust.Changed
	// SHA256 is the hash of the content passed over, so that a change can be told apart
	// from the one already reported.
	SHA256 string
	// Why says why it was passed over and what to do, in a sentence.
	Why string
}

// Options are the inputs of Find.
type Options struct {
	Flag string // --policy, may be relative to Cwd
	Env  string // the value of MOAT_POLICY; must be absolute
	Cwd  string // absolute
	Dirs dirs.Dirs
	// Trust decides whether a project policy may be used.
	Trust *trust.Store
	// Warn receives warnings about sources that were skipped, such as an untrusted project
	// policy. It must not be nil.
	Warn func(string)
}

// Find returns the first policy source that applies. A file that is named explicitly (by
// flag or environment) but cannot be read is an error, never a fall-through to a weaker
// policy; the end of the chain is the embedded recommended policy, never "allow everything".
func Find(o Options) (Source, error) {
	if o.Flag != "" {
		p := o.Flag
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Cwd, p)
		}
		return readSource(FromFlag, p)
	}
	if o.Env != "" {
		if !filepath.IsAbs(o.Env) {
			return Source{}, fmt.Errorf("%s=%q must be an absolute path", EnvVar, o.Env)
		}
		return readSource(FromEnv, o.Env)
	}
	var skipped *Skipped
	if p, ok := ProjectPolicy(o.Cwd); ok {
		src, err := readSource(FromProject, p)
		if err != nil {
			return Source{}, err
		}
		status, err := o.Trust.Check(p, src.Data)
		if err != nil {
			return Source{}, fmt.Errorf("checking trust of %s: %w", p, err)
		}
		if status == trust.Trusted {
			return src, nil
		}
		skipped = &Skipped{Path: p, Status: status, SHA256: trust.Hash(src.Data), Why: SkipReason(p, status)}
		o.Warn(skipped.Why)
	}
	user := o.Dirs.UserPolicy()
	src, err := readSource(FromUser, user)
	if errors.Is(err, fs.ErrNotExist) {
		src, err = Embedded()
	}
	if err != nil {
		return Source{}, err
	}
	src.Skipped = skipped
	return src, nil
}

// SkipReason says why the hooks do not use the project policy at path, whose trust
// status is status (Untrusted or Changed), and what to do about it.
func SkipReason(path string, status trust.Status) string {
	if status == trust.Changed {
		return fmt.Sprintf("ignoring project policy %s: it changed since you trusted it; review the change (`moat trust --diff %s`), then run `moat trust %s`", path, path, path)
	}
	return fmt.Sprintf("ignoring project policy %s: it is not trusted; review it, then run `moat trust %s`", path, path)
}

// Embedded returns the policy built into moat: the recommended template.
func Embedded() (Source, error) {
	data, err := policy.Template(policy.DefaultTemplate)
	if err != nil {
		return Source{}, err
	}
	return Source{Kind: FromEmbedded, Name: policy.EmbeddedPrefix + policy.DefaultTemplate, Data: data}, nil
}

// ReadFile reads a policy file named by the user directly (validate, test, trust).
func ReadFile(path string) (Source, error) { return readSource(FromFile, path) }

func readSource(kind Kind, path string) (Source, error) {
	path = filepath.Clean(path)
	f, err := os.Open(path)
	if err != nil {
		return Source{}, fmt.Errorf("reading the %s policy: %w", kind, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicyBytes+1))
	if err != nil {
		return Source{}, fmt.Errorf("reading the %s policy %s: %w", kind, path, err)
	}
	if len(data) > MaxPolicyBytes {
		return Source{}, fmt.Errorf("policy %s is larger than %d bytes", path, MaxPolicyBytes)
	}
	return Source{Kind: kind, Path: path, Name: path, Data: data}, nil
}

// ProjectPolicy looks for moat.yaml from cwd up to the root of the repository cwd is in. Out
// of a repository only cwd itself is searched, so that a file planted in a parent
// directory (or /tmp) is never picked up.
func ProjectPolicy(cwd string) (string, bool) {
	root := RepoRoot(cwd)
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ProjectFile)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
		if root == "" || dir == root || dir == filepath.Dir(dir) {
			return "", false
		}
	}
}

// RepoRoot returns the nearest directory at or above dir that holds a .git entry (a
// directory, or a file for worktrees and submodules), or "" when there is none.
func RepoRoot(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
