package call

import (
	"fmt"
	"slices"
)

// AccessKind is how an action touches a path. The zero value is not a kind.
type AccessKind uint8

// Access kinds, as policies name them under `paths:`.
const (
	Read AccessKind = iota + 1
	Write
	Delete
	Exec
)

var accessNames = [...]string{Read: "read", Write: "write", Delete: "delete", Exec: "exec"}

// AccessKinds lists every kind.
var AccessKinds = []AccessKind{Read, Write, Delete, Exec}

func (k AccessKind) String() string {
	if k < Read || k > Exec {
		return fmt.Sprintf("invalid(%d)", uint8(k))
	}
	return accessNames[k]
}

// MarshalText encodes the kind by name.
func (k AccessKind) MarshalText() ([]byte, error) {
	if k < Read || k > Exec {
		return nil, fmt.Errorf("invalid access kind %d", uint8(k))
	}
	return []byte(accessNames[k]), nil
}

// ParseAccessKind returns the kind named s.
func ParseAccessKind(s string) (AccessKind, bool) {
	for _, k := range AccessKinds {
		if accessNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// Access is one path an action reads, writes, deletes or executes.
type Access struct {
	Kind AccessKind `json:"kind"`
	// Path is absolute and clean. When Glob is set it is a pattern the shell would expand
	// (`/home/u/*`), and the access stands for every path it could name.
	Path string `json:"path"`
	// Recursive means the access covers Path and everything below it (rm -r, chmod -R).
	Recursive bool `json:"recursive,omitempty"`
	Glob      bool `json:"glob,omitempty"`
	// Hidden marks a glob whose wildcards also match names starting with a dot, as the
	// paths a find walks do; a shell's globs skip them.
	Hidden bool `json:"hidden,omitempty"`
	// Matches, for a glob, are the paths it names on this machine when the line starts,
	// where the analysis could tell: the line runs now (not later, from a file or a
	// schedule), nothing it runs can make an entry there before the glob expands, and the
	// directory could be listed. The glob is then judged by these entries, and by the
	// directory it empties; nil means by every path its pattern can name.
	Matches []string `json:"matches,omitempty"`
	// Redirect marks an access made by a shell redirection (`> file`) rather than by the
	// program. The engine decides redirections as units of their own, so that allowing a
	// program never allows what its output is redirected onto.
	Redirect bool `json:"redirect,omitempty"`
	// Link marks the target of a link the command makes (ln, link, cp -l): it is neither
	// read nor written now, but gets another name through which later writes reach it.
	// Such an access has Kind Read.
	Link bool `json:"link,omitempty"`
}

// Equal reports whether a and b are the same access.
func (a Access) Equal(b Access) bool {
	return a.Kind == b.Kind && a.Path == b.Path && a.Recursive == b.Recursive && a.Glob == b.Glob &&
		a.Hidden == b.Hidden && a.Redirect == b.Redirect && a.Link == b.Link && slices.Equal(a.Matches, b.Matches)
}

func (a Access) String() string {
	s := a.Kind.String() + " " + a.Path
	if a.Recursive {
		s += " (recursive)"
	}
	if a.Link {
		s += " (as the target of a link)"
	}
	switch {
	case a.Glob && len(a.Matches) == 1:
		s += " (naming 1 entry now)"
	case a.Glob && a.Matches != nil:
		s += fmt.Sprintf(" (naming %d entries now)", len(a.Matches))
	}
	return s
}

// Command is one program invocation that a shell line would run, after analysis.
type Command struct {
	// Name is the program as rules match it: the base name of the program word, with quoting
	// and escapes removed ("rm" for `\rm`, `"rm"` and `/bin/rm`).
	Name string
	// Path is the program word when it was written as a path ("/bin/rm"), else "".
	Path string
	// Args are the words after the program, with quotes removed. A word whose value is only
	// known at run time keeps its source text.
	Args []string
	// Subcommand, for a program whose first operand names a subcommand and whose own
	// options come before it (git -C dir -c k=v push), is Args from the subcommand on
	// (push): what a rule written as "git push" is matched against as well. Nil when it
	// would be Args itself.
	Subcommand []string
	// Operands are the arguments that are not options.
	Operands []string
	// Flags are the options set, by canonical name: short bundles are split ("-rf" gives
	// "r" and "f"), long options lose their dashes and values ("--force=yes" gives "force"),
	// and per-program aliases are added ("--recursive" also gives "r" for rm).
	Flags []string
	// Dynamic means the program's name is only known at run time.
	Dynamic bool
	// Accesses are the paths the command touches, as far as analysis knows them.
	Accesses []Access
	// Opaque means the command may touch paths analysis cannot see (an unknown program).
	Opaque bool
	// Elsewhere means the command runs on another machine, from code a file carries (a
	// CI job's step, a platform's build command): moat and its files are not there, and
	// its privileges are that machine's.
	Elsewhere bool
	// Net lists the network connections the command makes, as far as analysis knows them.
	Net []Net
	// Findings are what analysis noticed about this command.
	Findings []Finding
}

// HasFlag reports whether the canonical flag name is set.
func (c *Command) HasFlag(name string) bool {
	for _, f := range c.Flags {
		if f == name {
			return true
		}
	}
	return false
}

// Direction says which way data moves over a connection, seen from this machine.
type Direction string

// Directions of a connection.
const (
	Inbound  Direction = "in"   // downloads
	Outbound Direction = "out"  // uploads or sends
	Both     Direction = "both" // an interactive session or a raw socket
)

// Net is one network connection a command makes.
type Net struct {
	// Host is the remote host as written (a name or an address); "" when it is not known.
	Host      string    `json:"host,omitempty"`
	Direction Direction `json:"direction"`
	// Uploads are the absolute paths of local files the command sends.
	Uploads []string `json:"uploads,omitempty"`
}
