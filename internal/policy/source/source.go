// Package source finds the policies that apply to a call: the managed one of the system,
// and a flag, the environment, the trusted project file (as trusted) with the user's
// file, or the embedded default.
package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/moatdev/moat/internal/dirs"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/regfile"
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
	// Name is what errors and records call it: Path, Path with the hash of the trusted
	// version in force (see TrustedName), or "embedded:recommended".
	Name string
	Data []byte
	// Skipped are the project policies, nearest first, whose content as it is now is not
	// the one in force: untrusted files passed over, and a trusted file changed since,
	// whose trusted version is in force instead.
	Skipped []Skipped
	// Managed is the managed policy that decides together with this one, above it; nil
	// when there is none (see FindLayers).
	Managed *Source
	// Also are the user's policies below this one that decide together with it: the
	// user's own policy below a trusted project policy (see FindLayers).
	Also []Source
	// Serial is the verified serial of a signed managed policy; 0 otherwise.
	Serial int64
}

// Skipped is a project policy whose current content Find did not use.
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
	// Project is the session's project directory as the agent reports it (absolute), or
	// "". A call whose Cwd has left the project's repository (cd /tmp, a command run in
	// another directory) is still governed by the project's policy.
	Project string
	Dirs    dirs.Dirs
	// Trust decides whether a project policy may be used.
	Trust *trust.Store
	// Warn receives warnings about sources that were skipped, such as an untrusted project
	// policy. It must not be nil.
	Warn func(string)
	// VerifyManaged checks the signature and serial of the managed policy when a key is
	// pinned (see FindLayers); nil refuses a managed policy with a pinned key.
	VerifyManaged VerifyFunc
}

// Find returns the first policy source that applies. A file that is named explicitly (by
// flag or environment) but cannot be read is an error, never a fall-through to a weaker
// policy, and so is anything at a policy location that is not a regular file (a dangling
// link, a FIFO, a device, a directory); only a location where nothing is falls through,
// and the end of the chain is the embedded recommended policy, never "allow everything".
//
// Project policies are searched from the call's directory (or the project's, when the
// call left the project's repository) up to the repository root, nearest first. The first
// one the user trusted applies; one nobody trusted is passed over (with a warning) and
// does not hide a trusted one above it. A trusted one that changed since applies as the
// user trusted it, from the copy the trust store keeps, since falling back to another
// policy would let an edit loosen it; when no copy is kept, Find fails.
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
	start, root := projectScope(o.Cwd, o.Project)
	files, err := projectFiles(start, root)
	if err != nil {
		return Source{}, err
	}
	var skipped []Skipped
	for _, p := range files {
		src, sk, err := projectSource(p, root, o.Trust)
		if err != nil {
			return Source{}, err
		}
		if sk != nil {
			o.Warn(sk.Why)
			skipped = append(skipped, *sk)
		}
		if src != nil {
			src.Skipped = skipped
			return *src, nil
		}
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

// projectSource reads the project policy at p, in the repository root, and returns the
// source it stands for when the user trusted it (as it is, or as it was), and what was
// skipped of it when its current content is not used.
func projectSource(p, root string, store *trust.Store) (*Source, *Skipped, error) {
	src, err := readSource(FromProject, p)
	if err != nil {
		return nil, nil, err
	}
	sum := trust.Hash(src.Data)
	// Trust is kept by real path; a link whose real file lies in another repository
	// would borrow that file's trust.
	why, err := Escape(p, root)
	if err != nil {
		return nil, nil, err
	}
	if why != "" {
		return nil, &Skipped{Path: p, Status: trust.Untrusted, SHA256: sum, Why: "ignoring project policy " + why}, nil
	}
	status, err := store.Check(p, src.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("checking trust of %s: %w", p, err)
	}
	switch status {
	case trust.Trusted:
		return &src, nil, nil
	case trust.Changed:
		data, ok, err := store.TrustedContent(p)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fmt.Errorf("project policy %s changed since you trusted it, and the trust store has no copy of the version you trusted (an older moat trusted it, or the copy is gone), so moat cannot keep enforcing it and will not fall back to another policy: review the file, then run `moat trust %s`", p, p)
		}
		sk := &Skipped{Path: p, Status: trust.Changed, SHA256: sum, Why: SkipReason(p, trust.Changed)}
		return &Source{Kind: FromProject, Path: p, Name: TrustedName(p, data), Data: data}, sk, nil
	}
	return nil, &Skipped{Path: p, Status: trust.Untrusted, SHA256: sum, Why: SkipReason(p, trust.Untrusted)}, nil
}

// TrustedName is what errors and records call the trusted version data of the project
// policy at path, in force while the file differs from it.
func TrustedName(path string, data []byte) string {
	return fmt.Sprintf("%s (as you trusted it, sha256 %s)", path, trust.Hash(data)[:12])
}

// SkipReason says why the hooks do not use the project policy at path as it is, whose
// trust status is status (Untrusted or Changed), and what to do about it.
func SkipReason(path string, status trust.Status) string {
	if status == trust.Changed {
		return fmt.Sprintf("project policy %s changed since you trusted it; moat keeps enforcing the version you trusted until you review the change (`moat trust --diff %s`) and run `moat trust %s`", path, path, path)
	}
	return fmt.Sprintf("ignoring project policy %s: it is not trusted; review it, then run `moat trust %s`", path, path)
}

// Escape says why moat does not trust the project policy at path, in the repository
// root, when path resolves through symbolic links to a file outside root: its trust would
// be borrowed from wherever it points. It is "" when the file's real path is inside root.
func Escape(path, root string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", root, err)
	}
	if within(real, realRoot) {
		return "", nil
	}
	return fmt.Sprintf("%s: it is a symbolic link to %s, outside the repository %s, and moat does not trust a policy through a link that leaves its repository (it would borrow the trust of the file it points to); replace the link with a copy of the file, review it, then run `moat trust %s`", path, real, root, path), nil
}

// within reports whether path is dir or lies under it; both are clean and absolute.
func within(path, dir string) bool {
	if path == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
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

// readSource reads the policy at path, which must be a regular file (or a link to one);
// a FIFO or a device is refused without waiting on it.
func readSource(kind Kind, path string) (Source, error) {
	path = filepath.Clean(path)
	data, err := regfile.Read(path, MaxPolicyBytes)
	var tooLarge *regfile.TooLargeError
	if errors.As(err, &tooLarge) {
		return Source{}, fmt.Errorf("policy %s is larger than %d bytes", path, MaxPolicyBytes)
	}
	if err != nil {
		return Source{}, fmt.Errorf("reading the %s policy: %w", kind, err)
	}
	return Source{Kind: kind, Path: path, Name: path, Data: data}, nil
}

// ProjectPolicy returns the project policy nearest to cwd: the first moat.yaml from cwd up
// to the root of the repository cwd is in, whatever it is (trusted or not, readable or not:
// reading it says). Out of a repository only cwd itself is searched, so that a file planted
// in a parent directory (or /tmp) is never picked up.
func ProjectPolicy(cwd string) (string, bool, error) {
	start, root := projectScope(cwd, "")
	files, err := projectFiles(start, root)
	if err != nil || len(files) == 0 {
		return "", false, err
	}
	return files[0], true, nil
}

// projectScope is where project policies govern a call in cwd: from start up to root.
// Without a project that is from cwd to its repository root (cwd alone out of a
// repository). With one, root is the project's repository (or the project directory out
// of one), and the search starts at cwd while cwd is inside root, else at the project.
func projectScope(cwd, project string) (start, root string) {
	cwd = filepath.Clean(cwd)
	if project == "" {
		if root = RepoRoot(cwd); root == "" {
			root = cwd
		}
		return cwd, root
	}
	project = filepath.Clean(project)
	if root = RepoRoot(project); root == "" {
		root = project
	}
	if within(cwd, root) {
		return cwd, root
	}
	return project, root
}

// projectFiles lists, nearest first, the names ProjectFile takes from start up to root:
// whatever is there, so that what is not a regular file is reported, not passed over.
func projectFiles(start, root string) ([]string, error) {
	var files []string
	for dir := start; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ProjectFile)
		_, err := os.Lstat(p)
		switch {
		case err == nil:
			files = append(files, p)
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		default:
			return nil, fmt.Errorf("looking for a project policy: %w", err)
		}
		if dir == root || dir == filepath.Dir(dir) {
			return files, nil
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
