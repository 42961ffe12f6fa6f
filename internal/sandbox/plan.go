package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// Options are the inputs of Build.
type Options struct {
	Section *Section
	Host    pathset.Host
	// Workspace lists the absolute roots $workspace stands for.
	Workspace []string
	// Environ is the environment the command would get without the sandbox.
	Environ []string
	// SecretLooking, when set, tells of variables of Environ whether they look like
	// secrets, worked out beforehand (FindSecretLooking); Finish works out the others.
	SecretLooking SecretLooking
	// ABI is the kernel's Landlock ABI (0: none).
	ABI int
	// Errata is the kernel's set of fixed Landlock errata.
	Errata int
	// MPTCPFilter reports that the enforcer can refuse multipath TCP sockets (a seccomp
	// filter for this architecture), which Landlock's port rules do not see.
	MPTCPFilter bool
	// CreateDirs creates the missing directories of home that profiles make writable
	// (Entry.Create); a dry run leaves it unset.
	CreateDirs bool
	// LogFiles are the files moat's own processes inside the sandbox (the agent's hooks,
	// its MCP proxies) append their decision records to: the decision log and its lock
	// file. Each is granted reading and writing, and nothing else, so that a protected
	// state directory does not cost the records; with CreateDirs, missing ones are created.
	LogFiles []string
	// UserTasks counts the processes and threads a relative process limit is added to:
	// nil counts every task on the system, an upper bound of the user's.
	UserTasks func() (uint64, error)
}

// Rule is one Landlock path rule of a plan.
type Rule struct {
	Path   string
	Access Access
	// Why names the grants that led to the rule.
	Why []string
}

// Note is something about a path entry that a report must show: a path that was skipped
// because it does not exist, a pattern that Landlock cannot express, a denial or a
// protection that took effect.
type Note struct {
	Kind    NoteKind
	Pattern string
	Origin  string
	Detail  string
}

// NoteKind says what a Note is about.
type NoteKind string

// Kinds of notes.
const (
	NoteMissing     NoteKind = "missing"     // nothing exists at the path: skipped
	NoteAnywhere    NoteKind = "unenforced"  // matches in any directory: not expressible
	NoteDenied      NoteKind = "denied"      // a deny took this out of a grant
	NoteProtected   NoteKind = "protected"   // a protect made this read-only within a grant
	NoteUnaffected  NoteKind = "not granted" // a deny or protect no grant reaches
	NoteUnsupported NoteKind = "unsupported" // the kernel cannot enforce it
	NoteClosed      NoteKind = "closed"      // the file permissions already refuse it
	NoteLog         NoteKind = "log"         // moat's decision log, writable inside
	NoteState       NoteKind = "state"       // an agent's state, created before the launch
	NoteAbsent      NoteKind = "absent"      // protected, not there yet, and creatable inside
	NoteCaveat      NoteKind = "caveat"      // what a profile says the sandbox cannot allow its agent
)

// Limit is one resource limit of a plan.
type Limit struct {
	Name     string // as the policy writes it: memory, open-files, processes, cpu-time
	Resource int    // RLIMIT_*
	Value    uint64
	Detail   string
}

// Plan is everything a launch will enforce, worked out before anything runs: what
// `--dry-run` prints and what linux.Exec applies.
type Plan struct {
	Section *Section
	ABI     int
	// Handled are the file system rights this kernel restricts; a right outside it is
	// not restricted at all.
	Handled Access
	Rules   []Rule
	Notes   []Note
	// Connect and Bind are the allowed TCP ports, when restricted; nil when not.
	Connect, Bind []uint16
	// NetEnforced reports whether this kernel restricts TCP (ABI 4).
	NetEnforced bool
	// RefuseMPTCP reports that creating multipath TCP sockets will fail (seccomp), since
	// Landlock's port rules do not see them.
	RefuseMPTCP bool
	// ScopeSockets and ScopeSignals report the scopes that will be enforced.
	ScopeSockets, ScopeSignals bool
	Limits                     []Limit
	Env                        []string
	// Dropped lists the names of the environment variables that were removed.
	Dropped []string
	// Set lists the variables the section set ("NAME=value"), for the report.
	Set []string
}

// Landlock reports whether the plan restricts anything with Landlock.
func (p *Plan) Landlock() bool { return p.ABI > 0 }

// Build works out the plan of a launch. It looks at the file system (to find what exists
// and to carve the grants around denied paths) but changes nothing.
func Build(o Options) (*Plan, error) {
	cv, err := carve(o, probe{})
	if err != nil {
		return nil, err
	}
	return Finish(o, cv)
}

// Finish completes a carving into the plan of a launch: the network rules and scopes,
// the resource limits and the environment, which depend on o alone (and on the number
// of tasks now, for a relative process limit), never on the file system.
func Finish(o Options, cv *Carving) (*Plan, error) {
	p := &Plan{Section: o.Section, ABI: cv.ABI, Handled: cv.Handled, Rules: make([]Rule, len(cv.Rules)), Notes: slices.Clone(cv.Notes)}
	for i, r := range cv.Rules {
		p.Rules[i] = Rule{Path: r.Path, Access: r.Access, Why: slices.Clone(r.Why)}
	}
	s := o.Section
	p.network(o.ABI, o.Errata, o.MPTCPFilter)
	if err := p.resourceLimits(s.Limits, o.UserTasks); err != nil {
		return nil, err
	}
	p.Env, p.Dropped = filterEnv(o.Environ, s.Env, o.SecretLooking)
	for _, v := range s.Env.Set {
		if slices.ContainsFunc(p.Env, func(kv string) bool { return strings.HasPrefix(kv, v.Name+"=") }) {
			continue // the user's own value wins
		}
		kv := v.Name + "=" + pathset.Expand(v.Value, o.Host.Home)
		p.Env = append(p.Env, kv)
		p.Set = append(p.Set, kv)
	}
	return p, nil
}

// carve works out the part of a plan that depends on the file system, asking fs.
func carve(o Options, fs probe) (*Carving, error) {
	s := o.Section
	p := &Plan{Section: s, ABI: o.ABI, Handled: handledAccess(o.ABI)}
	r := resolver{host: o.Host, workspace: o.Workspace, fs: fs}
	if o.CreateDirs {
		// Before the carving, so that the protection of moat's directories reaches a
		// state directory that did not exist yet.
		if err := createLogFiles(fs, o.LogFiles); err != nil {
			return nil, err
		}
	}
	// Before the carving too: a state directory made later, beside a protected file,
	// would get only its parent's rights (see carve.go).
	if err := p.state(r, s.State, o.CreateDirs); err != nil {
		return nil, err
	}

	limits, absent, err := p.limits(r, s)
	if err != nil {
		return nil, err
	}
	c := newCarver(fs, limits)
	for _, a := range absent {
		if a.dir {
			c.absentDirs = append(c.absentDirs, a.path)
		}
	}
	type grantList struct {
		entries []Entry
		access  Access
		verb    string
	}
	for _, g := range []grantList{{s.Read, readAccess, "read"}, {s.Write, readAccess | writeAccess, "write"}, {s.Exec, execAccess, "exec"}} {
		for _, e := range g.entries {
			pats, _, err := r.expand(e.Pattern)
			if err != nil {
				return nil, fmt.Errorf("%s: %s %s: %w", e.Origin, g.verb, e.Pattern, err)
			}
			for _, pat := range pats {
				if anywhere(pat) {
					p.note(NoteAnywhere, pat, e, "Landlock grants whole existing hierarchies; a pattern that matches in any directory is not granted")
					continue
				}
				paths := fs.existing(pat)
				if len(paths) == 0 && e.Create && g.verb == "write" {
					if !o.CreateDirs {
						p.note(NoteMissing, pat, e, "nothing there yet: the launch creates it")
						continue
					}
					if err := fs.mkdirAll(strings.TrimSuffix(pat, "/**")); err != nil {
						return nil, fmt.Errorf("%s: creating %s: %w", e.Origin, pat, err)
					}
					paths = fs.existing(pat)
				}
				if len(paths) == 0 {
					p.note(NoteMissing, pat, e, "nothing there; skipped")
				}
				for _, path := range paths {
					c.grant(path, g.access, g.verb+" "+e.Pattern)
				}
			}
		}
	}
	for _, d := range baselineDevices {
		if real, err := fs.realPath(d.path); err == nil {
			c.grant(real, d.access, "device")
		}
	}
	for _, rr := range c.result() {
		p.Rules = append(p.Rules, Rule{Path: rr.path, Access: rr.access, Why: rr.why})
	}
	for _, a := range absent {
		if a.creatable(fs, p.Rules) {
			p.Notes = append(p.Notes, Note{Kind: NoteAbsent, Pattern: a.path, Origin: a.why, Detail: "nothing there yet, and Landlock protects only what exists: a process inside could create it"})
		}
	}
	for _, cv := range s.Caveats {
		p.Notes = append(p.Notes, Note{Kind: NoteCaveat, Origin: cv.Origin, Detail: cv.Text})
	}
	p.logFiles(fs, o.LogFiles)
	for _, l := range limits {
		kind := NoteDenied
		if l.mask != 0 {
			kind = NoteProtected
		}
		if !c.hit[l] {
			kind = NoteUnaffected
		}
		p.Notes = append(p.Notes, Note{Kind: kind, Pattern: l.path, Detail: l.why})
	}
	if o.ABI > 0 && o.ABI < 5 {
		p.Notes = append(p.Notes, Note{Kind: NoteUnsupported, Detail: fmt.Sprintf("Landlock ABI %d: %s not restricted", o.ABI, missingRights(o.ABI))})
	}
	return &Carving{ABI: p.ABI, Handled: p.Handled, Rules: p.Rules, Notes: p.Notes}, nil
}

// state creates the profiles' missing state paths (with create), or notes them.
// Directories are made with mode 0700 and files empty with 0600, as the agents make
// them; whatever exists, even as a symbolic link, is left alone.
func (p *Plan) state(r resolver, entries []Entry, create bool) error {
	for _, e := range entries {
		path := pathset.Expand(strings.TrimSuffix(e.Pattern, "/"), r.host.Home)
		if r.fs.exists(path) {
			continue
		}
		if !create {
			p.Notes = append(p.Notes, Note{Kind: NoteState, Pattern: path, Origin: e.Pattern + ", " + e.Origin, Detail: "nothing there yet: the launch creates it"})
			continue
		}
		isDir := strings.HasSuffix(e.Pattern, "/")
		dir := path
		if !isDir {
			dir = filepath.Dir(path)
		}
		if err := r.fs.mkdirAll(dir); err != nil {
			return fmt.Errorf("%s: creating the agent's state %s: %w", e.Origin, dir, err)
		}
		if isDir {
			continue
		}
		r.fs.changed()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !os.IsExist(err) {
			return fmt.Errorf("%s: creating the agent's state %s: %w", e.Origin, path, err)
		}
		if err == nil {
			f.Close()
		}
	}
	return nil
}

// absentPath is a protected path that does not exist.
type absentPath struct {
	path, why string
	dir       bool
}

// creatable reports whether the rules let a process create something at the path:
// whether a rule on its nearest existing directory or above gives a create right other
// than MAKE_DIR (an empty directory holds nothing, see carve.go), or REFER.
func (a absentPath) creatable(fs probe, rules []Rule) bool {
	dir := filepath.Dir(a.path)
	for {
		if ok, _ := fs.stat(dir); ok || dir == "/" {
			break
		}
		dir = filepath.Dir(dir)
	}
	real, err := fs.realPath(dir)
	if err != nil {
		return false
	}
	var granted Access
	for _, r := range rules {
		if within(real, r.Path) {
			granted |= r.Access
		}
	}
	return granted&(MakeReg|MakeSym|MakeSock|MakeFifo|Refer) != 0 || a.dir && granted&MakeDir != 0 && granted&RemoveDir != 0
}

// logFiles grants moat's decision log to the processes inside. Landlock cannot make a
// file append-only: whoever may append may also overwrite it, which the report says.
// Rotation needs the directory, which stays protected, so a log written inside grows
// until a moat outside rotates it (audit.Log keeps appending when it cannot rotate).
func (p *Plan) logFiles(fs probe, files []string) {
	for _, f := range files {
		real, err := fs.realPath(f)
		if err != nil {
			p.Notes = append(p.Notes, Note{Kind: NoteMissing, Pattern: f, Detail: "moat's decision log: nothing there yet; the launch creates it"})
			continue
		}
		p.Rules = append(p.Rules, Rule{Path: real, Access: ReadFile | WriteFile, Why: []string{"moat's decision log"}})
		p.Notes = append(p.Notes, Note{Kind: NoteLog, Pattern: real, Detail: "the hooks inside append their decisions here; Landlock cannot make a file append-only, so a process inside could also overwrite it"})
	}
}

// createLogFiles creates the log files that do not exist yet, and their directory.
func createLogFiles(fs probe, files []string) error {
	for _, f := range files {
		if !fs.exists(f) {
			fs.changed()
		}
		if err := fs.mkdirAll(filepath.Dir(f)); err != nil {
			return fmt.Errorf("creating the directory of %s: %w", f, err)
		}
		fh, err := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("creating %s: %w", f, err)
		}
		fh.Close()
	}
	return nil
}

// limits turns the deny and protect lists into caps on real paths. It also returns the
// literal protected paths that do not exist: Landlock cannot protect them.
func (p *Plan) limits(r resolver, s *Section) ([]*limit, []absentPath, error) {
	var out []*limit
	var absent []absentPath
	for _, list := range []struct {
		entries []Entry
		mask    Access
		verb    string
	}{{s.Deny, 0, "deny"}, {s.Protect, protectedAccess, "protect"}} {
		for _, e := range list.entries {
			pats, excepts, err := r.expand(e.Pattern)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %s %s: %w", e.Origin, list.verb, e.Pattern, err)
			}
			var except []*glob.Path
			for _, x := range excepts {
				if g, err := glob.CompilePath(x, glob.Options{}); err == nil {
					except = append(except, g)
				}
			}
			for _, pat := range pats {
				if anywhere(pat) {
					p.note(NoteAnywhere, pat, e, "matches in any directory: Landlock cannot take it out of a granted tree (the hooks still judge it)")
					continue
				}
				paths := r.fs.existing(pat)
				if len(paths) == 0 && list.mask != 0 && !glob.HasMeta(strings.TrimSuffix(pat, "/**")) {
					absent = append(absent, absentPath{path: filepath.Clean(strings.TrimSuffix(pat, "/**")), why: e.Pattern + ", " + e.Origin, dir: strings.HasSuffix(pat, "/**")})
				}
				for _, path := range paths {
					if r.fs.closed(path, list.mask) {
						p.Notes = append(p.Notes, Note{Kind: NoteClosed, Pattern: path, Origin: e.Pattern + ", " + e.Origin})
						continue
					}
					_, isDir := r.fs.stat(path)
					out = append(out, &limit{path: path, mask: list.mask, why: list.verb + " " + e.Pattern + " (" + pat + ", " + e.Origin + ")", except: except, dir: isDir})
				}
			}
		}
	}
	return out, absent, nil
}

func (p *Plan) note(kind NoteKind, pattern string, e Entry, detail string) {
	n := Note{Kind: kind, Pattern: pattern, Origin: e.Pattern + ", " + e.Origin, Detail: detail}
	if !slices.Contains(p.Notes, n) {
		p.Notes = append(p.Notes, n)
	}
}

// device is a device file every sandbox may use.
type device struct {
	path   string
	access Access
}

// baselineDevices are granted in every sandbox: the harmless devices, and the terminal
// (with ioctl, which terminal programs need), so that an agent's interactive interface
// works.
var baselineDevices = []device{
	{"/dev/null", ReadFile | WriteFile | Truncate},
	{"/dev/zero", ReadFile | WriteFile | Truncate},
	{"/dev/full", ReadFile | WriteFile | Truncate},
	{"/dev/random", ReadFile},
	{"/dev/urandom", ReadFile},
	{"/dev/tty", ReadFile | WriteFile | Truncate | IoctlDev},
	{"/dev/ptmx", ReadFile | WriteFile | IoctlDev},
	{"/dev/pts", ReadFile | ReadDir | WriteFile | Truncate | IoctlDev},
}

func missingRights(abi int) string {
	var m []string
	if abi < 2 {
		m = append(m, "moving files between directories (all such moves are refused)")
	}
	if abi < 3 {
		m = append(m, "truncating files")
	}
	if abi < 5 {
		m = append(m, "ioctl on devices")
	}
	return strings.Join(m, ", ")
}

// network works out the TCP rules and scopes this kernel enforces.
func (p *Plan) network(abi, errata int, mptcpFilter bool) {
	s := p.Section
	p.NetEnforced = abi >= 4
	if !s.Connect.Any {
		p.Connect = nonNil(s.Connect.List())
	}
	if !s.Bind.Any {
		p.Bind = nonNil(s.Bind.List())
	}
	p.RefuseMPTCP = p.NetEnforced && (p.Connect != nil || p.Bind != nil) && mptcpFilter
	// Signal scoping had a bug fixed by erratum 2: a kernel without the fix gets no scoping
	// at all, as go-landlock does.
	scopes := abi >= 6 && errata&2 != 0
	p.ScopeSockets = scopes && s.Scope.AbstractUnixSockets
	p.ScopeSignals = scopes && s.Scope.Signals
}

func nonNil(ports []uint16) []uint16 {
	if ports == nil {
		return []uint16{}
	}
	return ports
}
