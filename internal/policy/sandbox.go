package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// Sandbox is a policy's `sandbox:` section, or an agent profile: what the processes that
// `moat launch` starts may do, as the kernel enforces it. A nil field means the key was
// not written, so whatever it is combined with decides (see package sandbox).
type Sandbox struct {
	// Source and Line say where the section was written.
	Source string
	Line   int
	// Description and Commands are only written in profiles: what the profile is for, and
	// the program names that select it when no profile is named.
	Description string
	Commands    []string
	// State and Caveats are only written in profiles. State names the agent's own
	// directories (ending in /) and files beneath the profile's writable directories of
	// home that the launch creates, when missing, before the kernel's rules apply: rules
	// attach to what exists, so a state directory made later beside a protected file
	// would not be writable. Caveats say, in words, what the agent does that Landlock
	// cannot allow while its protected files stay protected.
	State   []SandboxPath
	Caveats []string

	// Read, Write and Exec grant reading (files and directory listings), writing (and
	// reading) and executing beneath the paths they name.
	Read, Write, Exec []SandboxPath
	// Deny names paths that no grant reaches, read or write; Protect names paths that
	// stay readable but never writable, whatever the grants say.
	Deny, Protect []SandboxPath

	// Connect and Bind are the TCP ports that may be connected to and bound.
	Connect, Bind *Ports
	Scope         *Scope
	Limits        *Limits
	Env           *EnvFilter
}

// SandboxPath is one entry of a path list: a path set ($secrets), a root set followed by
// a path ($home/.cargo), a path starting with ~/, or an absolute path or glob.
type SandboxPath struct {
	Pattern   string
	Line, Col int
}

// Ports is a set of TCP ports. Any means the ports are not restricted at all; otherwise
// only the ports in Ranges are allowed (none, when Ranges is empty).
type Ports struct {
	Any    bool
	Ranges []PortRange
}

// PortRange is an inclusive range of ports.
type PortRange struct{ Lo, Hi uint16 }

// Contains reports whether port is allowed.
func (p *Ports) Contains(port uint16) bool {
	if p.Any {
		return true
	}
	for _, r := range p.Ranges {
		if r.Lo <= port && port <= r.Hi {
			return true
		}
	}
	return false
}

// List returns every allowed port, in order, without repeats; nil when Any.
func (p *Ports) List() []uint16 {
	if p.Any {
		return nil
	}
	var out []uint16
	for _, r := range p.Ranges {
		for port := int(r.Lo); port <= int(r.Hi); port++ {
			out = append(out, uint16(port))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (p *Ports) String() string {
	if p.Any {
		return "any"
	}
	if len(p.Ranges) == 0 {
		return "none"
	}
	parts := make([]string, len(p.Ranges))
	for i, r := range p.Ranges {
		if r.Lo == r.Hi {
			parts[i] = strconv.Itoa(int(r.Lo))
		} else {
			parts[i] = fmt.Sprintf("%d-%d", r.Lo, r.Hi)
		}
	}
	return strings.Join(parts, ", ")
}

// Scope says which kinds of inter-process communication stay within the sandbox.
type Scope struct {
	// AbstractUnixSockets stops connecting to abstract unix sockets created outside.
	AbstractUnixSockets bool
	// Signals stops sending signals to processes outside.
	Signals bool
}

// Limits are resource limits. A zero field was not written; Unlimited lifts a limit.
type Limits struct {
	Memory    uint64 // bytes of data (RLIMIT_DATA)
	OpenFiles uint64
	// Processes is the most processes and threads the user may have (RLIMIT_NPROC);
	// with ProcessesRelative it is added to the number of tasks on the system at launch.
	Processes         uint64
	ProcessesRelative bool
	CPUSeconds        uint64
}

// Unlimited is the value of a limit written as `unlimited`.
const Unlimited = math.MaxUint64

// EnvFilter says which environment variables reach the sandboxed command. Variables whose
// name looks like a secret's are dropped unless a pattern of Allow matches them; those
// Deny matches are always dropped.
type EnvFilter struct {
	Allow, Deny []string
	// Set are variables given to the command when its environment does not set them
	// already: a profile uses them to move agent state that Landlock cannot allow where
	// it is (a value may start with ~/).
	Set []EnvVar
}

// EnvVar is one variable of EnvFilter.Set.
type EnvVar struct {
	Name, Value string
}

// MaxPortRange bounds one range of ports: each port is one kernel rule.
const MaxPortRange = 4096

var (
	sandboxKeys = []string{"read", "write", "exec", "deny", "protect", "connect", "bind", "scope", "limits", "env"}
	profileKeys = append([]string{"description", "commands", "state", "caveats"}, sandboxKeys...)
	scopeKeys   = []string{"abstract-unix-sockets", "signals"}
	limitKeys   = []string{"memory", "open-files", "processes", "cpu-time"}
	envKeys     = []string{"allow", "deny", "set"}
)

// LoadSandboxProfile reads an agent profile: a YAML document with the keys of a sandbox
// section, plus description and commands.
func LoadSandboxProfile(name string, data []byte) (*Sandbox, error) {
	root, err := parseYAML(name, data)
	if err != nil {
		return nil, err
	}
	l := newLoader(name, Host{})
	s := l.sandboxSection(root, "the profile", profileKeys)
	if len(l.errs) > 0 {
		return nil, l.errs.sorted()
	}
	return s, nil
}

func (l *loader) sandbox(n *yaml.Node) *Sandbox {
	return l.sandboxSection(n, "sandbox", sandboxKeys)
}

func (l *loader) sandboxSection(n *yaml.Node, what string, keys []string) *Sandbox {
	fields, ok := l.mapping(n, what, keys)
	if !ok {
		return nil
	}
	s := &Sandbox{Source: l.file, Line: resolve(n).Line}
	for _, f := range fields {
		switch f.key {
		case "description":
			s.Description, _ = l.str(f.value, f.key)
		case "commands":
			if items, ok := l.strs(f.value, f.key); ok {
				for _, it := range items {
					if it.val == "" || strings.ContainsRune(it.val, '/') {
						l.errorf(it.node, "commands lists program names without a directory, not %q", it.val)
						continue
					}
					s.Commands = append(s.Commands, it.val)
				}
			}
		case "state":
			s.State = l.statePaths(f.value)
		case "caveats":
			if items, ok := l.strs(f.value, f.key); ok {
				for _, it := range items {
					s.Caveats = append(s.Caveats, it.val)
				}
			}
		case "read":
			s.Read = l.sandboxPaths(f.value, f.key)
		case "write":
			s.Write = l.sandboxPaths(f.value, f.key)
		case "exec":
			s.Exec = l.sandboxPaths(f.value, f.key)
		case "deny":
			s.Deny = l.sandboxPaths(f.value, f.key)
		case "protect":
			s.Protect = l.sandboxPaths(f.value, f.key)
		case "connect":
			s.Connect = l.ports(f.value, what+"."+f.key)
		case "bind":
			s.Bind = l.ports(f.value, what+"."+f.key)
		case "scope":
			s.Scope = l.scope(f.value)
		case "limits":
			s.Limits = l.limits(f.value)
		case "env":
			s.Env = l.envFilter(f.value)
		}
	}
	if s.State != nil {
		l.checkState(s)
	}
	return s
}

// statePaths reads a profile's state list: literal paths under ~/, directories ending
// in /.
func (l *loader) statePaths(n *yaml.Node) []SandboxPath {
	items, ok := l.strs(n, "state")
	if !ok {
		return nil
	}
	out := make([]SandboxPath, 0, len(items))
	for _, it := range items {
		rest, ok := strings.CutPrefix(it.val, "~/")
		c := resolve(it.node)
		switch {
		case !ok || rest == "" || rest == "/":
			l.errorf(c, "state path %q must be a path under ~/", it.val)
		case glob.HasMeta(rest) || slices.Contains(strings.Split(strings.TrimSuffix(rest, "/"), "/"), ".."):
			l.errorf(c, "state path %q must be a literal path, without patterns or ..", it.val)
		default:
			out = append(out, SandboxPath{Pattern: it.val, Line: c.Line, Col: c.Column})
		}
	}
	return out
}

// checkState reports the state paths that no writable directory of home of the same
// profile holds: the launch creates state only where the profile lets the agent write.
func (l *loader) checkState(s *Sandbox) {
	for _, st := range s.State {
		p := strings.TrimSuffix(st.Pattern, "/")
		held := false
		for _, w := range s.Write {
			dir, ok := strings.CutSuffix(w.Pattern, "/**")
			if ok && strings.HasPrefix(dir, "~/") && !glob.HasMeta(dir) && strings.HasPrefix(p, dir+"/") {
				held = true
				break
			}
		}
		if !held {
			l.errs = append(l.errs, &Error{File: l.file, Line: st.Line, Col: st.Col, Msg: fmt.Sprintf("state path %q is beneath none of the profile's writable directories of home (write: ~/DIR/**)", st.Pattern)})
		}
	}
}

// sandboxPaths reads a path list. An empty list is allowed and grants nothing: it
// replaces a default.
func (l *loader) sandboxPaths(n *yaml.Node, what string) []SandboxPath {
	n = resolve(n)
	var nodes []*yaml.Node
	switch {
	case n != nil && n.Kind == yaml.SequenceNode:
		nodes = n.Content
	case n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		nodes = []*yaml.Node{n}
	default:
		l.errorf(n, "sandbox %s must be a path or a list of paths, not %s", what, describe(n))
		return nil
	}
	out := make([]SandboxPath, 0, len(nodes))
	for _, c := range nodes {
		s, ok := l.str(c, "a sandbox "+what+" path")
		if !ok {
			continue
		}
		if msg := checkSandboxPath(s); msg != "" {
			l.errorf(resolve(c), "sandbox %s path %q: %s", what, s, msg)
			continue
		}
		c = resolve(c)
		out = append(out, SandboxPath{Pattern: s, Line: c.Line, Col: c.Column})
	}
	return out
}

// checkSandboxPath returns what is wrong with a path entry, or "".
func checkSandboxPath(s string) string {
	if strings.HasPrefix(s, "$") {
		name, rest, _ := strings.Cut(s, "/")
		if !pathset.Known(name) {
			return fmt.Sprintf("unknown path set %s%s (known: %s)", name, suggest(name, pathset.Names), strings.Join(pathset.Names, ", "))
		}
		if rest == "" && !strings.Contains(s, "/") {
			return ""
		}
		if !pathset.IsRoot(name) {
			return fmt.Sprintf("%s is a set of paths, not a directory: only %s may be followed by a path", name, strings.Join(pathset.Roots, ", "))
		}
		return checkGlob("/" + rest)
	}
	switch {
	case s == "~":
		return ""
	case strings.HasPrefix(s, "~/"):
		return checkGlob(s[1:])
	case strings.HasPrefix(s, "/"):
		return checkGlob(s)
	case strings.HasPrefix(s, "**/"):
		return checkGlob(s[2:])
	}
	return "must be a path set such as $secrets, an absolute path, or start with ~/ or $workspace/"
}

func checkGlob(p string) string {
	if _, err := glob.CompilePath(p, glob.Options{}); err != nil {
		if pe, ok := err.(*glob.PatternError); ok {
			return pe.Msg
		}
		return err.Error()
	}
	return ""
}

func (l *loader) ports(n *yaml.Node, what string) *Ports {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!str" && n.Value == "any" {
		return &Ports{Any: true}
	}
	var nodes []*yaml.Node
	switch {
	case n != nil && n.Kind == yaml.SequenceNode:
		nodes = n.Content
	case n != nil && n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!str"):
		nodes = []*yaml.Node{n}
	default:
		l.errorf(n, "%s must be `any`, a port, or a list of ports and ranges (\"8000-8100\"), not %s", what, describe(n))
		return nil
	}
	p := &Ports{Ranges: []PortRange{}}
	for _, c := range nodes {
		c = resolve(c)
		if r, ok := l.portRange(c, what); ok {
			p.Ranges = append(p.Ranges, r)
		}
	}
	return p
}

func (l *loader) portRange(n *yaml.Node, what string) (PortRange, bool) {
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str") {
		l.errorf(n, "%s entry must be a port or a range such as \"8000-8100\", not %s", what, describe(n))
		return PortRange{}, false
	}
	lo, hi, isRange := strings.Cut(n.Value, "-")
	if n.Tag == "!!int" || !isRange {
		hi = lo
	}
	a, errA := parsePort(lo)
	b, errB := parsePort(hi)
	switch {
	case n.Value == "any":
		l.errorf(n, "%s: `any` stands alone, not in a list", what)
	case errA != nil || errB != nil:
		l.errorf(n, "%s entry %q must be a port from 1 to 65535 or a range such as \"8000-8100\"", what, n.Value)
	case a > b:
		l.errorf(n, "%s range %q runs backwards", what, n.Value)
	case int(b)-int(a)+1 > MaxPortRange:
		l.errorf(n, "%s range %q holds %d ports; at most %d (each port is one kernel rule): use `any` instead", what, n.Value, int(b)-int(a)+1, MaxPortRange)
	default:
		return PortRange{a, b}, true
	}
	return PortRange{}, false
}

func parsePort(s string) (uint16, error) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 16)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return uint16(v), nil
}

func (l *loader) scope(n *yaml.Node) *Scope {
	fields, ok := l.mapping(n, "sandbox.scope", scopeKeys)
	if !ok {
		return nil
	}
	s := &Scope{AbstractUnixSockets: true, Signals: true}
	for _, f := range fields {
		v := resolve(f.value)
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
			l.errorf(v, "sandbox.scope.%s must be true or false, not %s", f.key, describe(v))
			continue
		}
		b := v.Value == "true"
		switch f.key {
		case "abstract-unix-sockets":
			s.AbstractUnixSockets = b
		case "signals":
			s.Signals = b
		}
	}
	return s
}

func (l *loader) limits(n *yaml.Node) *Limits {
	fields, ok := l.mapping(n, "sandbox.limits", limitKeys)
	if !ok {
		return nil
	}
	lim := &Limits{}
	for _, f := range fields {
		v := resolve(f.value)
		what := "sandbox.limits." + f.key
		if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!str") {
			l.errorf(v, "%s must be a number or `unlimited`, not %s", what, describe(v))
			continue
		}
		var (
			x   uint64
			err error
		)
		switch {
		case v.Value == "unlimited":
			x = Unlimited
		case f.key == "memory":
			x, err = parseBytes(v.Value)
		case f.key == "cpu-time":
			x, err = parseSeconds(v.Value)
		case f.key == "processes" && strings.HasPrefix(v.Value, "+"):
			lim.ProcessesRelative = true
			x, err = parseCount(v.Value[1:])
		default:
			x, err = parseCount(v.Value)
		}
		if err != nil {
			l.errorf(v, "%s: %v", what, err)
			continue
		}
		switch f.key {
		case "memory":
			lim.Memory = x
		case "open-files":
			lim.OpenFiles = x
		case "processes":
			lim.Processes = x
		case "cpu-time":
			lim.CPUSeconds = x
		}
	}
	return lim
}

func parseCount(s string) (uint64, error) {
	v, err := strconv.ParseUint(s, 10, 63)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("%q is not a whole number above 0", s)
	}
	return v, nil
}

// byteUnits are the suffixes a memory limit may use, largest first.
var byteUnits = []struct {
	suffix string
	mult   uint64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}

func parseBytes(s string) (uint64, error) {
	num, mult := s, uint64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseUint(num, 10, 64)
	if err != nil || v == 0 || v > math.MaxUint64/mult {
		return 0, fmt.Errorf("%q is not a size such as 512MiB or 4GiB", s)
	}
	if v*mult < 1<<20 {
		return 0, fmt.Errorf("%q is under 1MiB, too little for any program to start", s)
	}
	return v * mult, nil
}

func parseSeconds(s string) (uint64, error) {
	if v, err := strconv.ParseUint(s, 10, 63); err == nil && v > 0 {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("%q is not a duration of a second or more, such as 90s, 30m or 2h", s)
	}
	return uint64(d / time.Second), nil
}

func (l *loader) envFilter(n *yaml.Node) *EnvFilter {
	fields, ok := l.mapping(n, "sandbox.env", envKeys)
	if !ok {
		return nil
	}
	e := &EnvFilter{}
	for _, f := range fields {
		if f.key == "set" {
			e.Set = l.envSet(f.value)
			continue
		}
		nodes, ok := l.seq(f.value, "sandbox.env."+f.key)
		if !ok {
			continue
		}
		var names []string
		for _, c := range nodes {
			s, ok := l.str(c, "a sandbox.env."+f.key+" entry")
			if !ok {
				continue
			}
			if !validEnvPattern(s) {
				l.errorf(c, "sandbox.env.%s entry %q must be a variable name, or a pattern of letters, digits, _ and *", f.key, s)
				continue
			}
			names = append(names, s)
		}
		if f.key == "allow" {
			e.Allow = names
		} else {
			e.Deny = names
		}
	}
	return e
}

// envSet reads sandbox.env.set, a mapping of variable names to values.
func (l *loader) envSet(n *yaml.Node) []EnvVar {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		l.errorf(n, "sandbox.env.set must be a mapping of variable names to values, not %s", describe(n))
		return nil
	}
	var out []EnvVar
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		val, ok := l.str(v, "a sandbox.env.set value")
		if !ok {
			continue
		}
		if k.Kind != yaml.ScalarNode || !validEnvPattern(k.Value) || strings.Contains(k.Value, "*") {
			l.errorf(k, "sandbox.env.set key %q must be a variable name", k.Value)
			continue
		}
		out = append(out, EnvVar{Name: k.Value, Value: val})
	}
	return out
}

func validEnvPattern(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '*' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
